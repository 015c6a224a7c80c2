"""The key footer gives its room to the keys that work before the greyed
ones: with too little width, a greyed key drops and an available key later
in the list stays (an active rule's Retire after Approve, Edit, Reject and
Supersede, all greyed for it). The kept keys keep their declared order."""

from __future__ import annotations

from textual.app import App
from textual.binding import Binding

from brainwork.tui.widgets.key_footer import KeyFooter

from screen_support import screen_text  # tests/tui is on sys.path (pytest prepend mode)


class FooterApp(App):
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("a", "approve", "Approve"),
        Binding("e", "edit", "Edit text"),
        Binding("r", "reject", "Reject"),
        Binding("s", "supersede", "Supersede"),
        Binding("R", "retire", "Retire"),
    ]
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, available: set[str]) -> None:
        super().__init__()
        self.available = available

    def compose(self):
        yield KeyFooter()

    def check_action(self, action: str, parameters) -> bool | None:
        if action in ("quit", "help") or action in self.available:
            return True
        return None if action in ("approve", "edit", "reject", "supersede", "retire") else True

    def action_help(self) -> None: ...
    def action_approve(self) -> None: ...
    def action_edit(self) -> None: ...
    def action_reject(self) -> None: ...
    def action_supersede(self) -> None: ...
    def action_retire(self) -> None: ...


def _footer(app) -> str:
    return screen_text(app)[-1]


async def test_a_greyed_key_gives_way_to_one_that_works() -> None:
    app = FooterApp({"retire"})  # an active rule: only Retire works
    async with app.run_test(size=(50, 5)) as pilot:
        await pilot.pause()
        footer = _footer(app)
        assert footer.startswith(" q Quit  ? Help"), footer
        assert "R Retire" in footer, footer
        assert "s Supersede" not in footer, footer  # greyed, so it is the one that drops
    app = FooterApp({"approve", "edit", "reject", "supersede"})  # a candidate: Retire is greyed
    async with app.run_test(size=(50, 5)) as pilot:
        await pilot.pause()
        footer = _footer(app)
        assert "a Approve  e Edit text  r Reject" in footer and "R Retire" not in footer, footer


async def test_with_room_for_all_every_key_keeps_its_place() -> None:
    app = FooterApp({"retire"})
    async with app.run_test(size=(120, 5)) as pilot:
        await pilot.pause()
        footer = _footer(app)
        assert " q Quit  ? Help  a Approve  e Edit text  r Reject  s Supersede  R Retire" in footer, footer
