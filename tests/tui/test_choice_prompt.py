"""The choice prompt with no suggestions: it says so only after a search
(retargeting a dead link that resembles no page must not open on "nothing
matches" before anything was typed)."""

from __future__ import annotations

from textual.app import App
from textual.widgets import OptionList

from brainwork.tui.modals.prompts import ChoicePrompt


class _Host(App[None]):
    def __init__(self, prompt: ChoicePrompt):
        super().__init__()
        self.prompt = prompt

    def on_mount(self) -> None:
        self.push_screen(self.prompt)


def _first_option(app) -> str:
    olist = app.screen.query_one("#choice-list", OptionList)
    return str(olist.get_option_at_index(0).prompt)


async def test_empty_suggestions_say_so_and_typing_searches() -> None:
    prompt = ChoicePrompt("Retarget [[gone]]", [], search=lambda text: [("pages/edge", "Edge proxy", "edge")])
    app = _Host(prompt)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert _first_option(app) == "no suggestions; type to find a page"
        await pilot.press("e", "d")
        await pilot.pause()
        assert _first_option(app) == "Edge proxy"


async def test_a_search_that_finds_nothing_still_says_nothing_matches() -> None:
    prompt = ChoicePrompt("Pick", [("a", "Alpha", "alpha")])
    app = _Host(prompt)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("z", "z")
        await pilot.pause()
        assert _first_option(app) == "nothing matches"
