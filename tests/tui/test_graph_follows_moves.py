"""The graph pane follows its centre page when it moves: after a rename
from the pane, its undo and its redo, and a rename the pane did not start
(as an agent's command served by the workbench is), the centre is the page
under its current name, never "no longer exists". Also: enter in the page
filter centres the graph on the highlighted match at once."""

from __future__ import annotations

from brainwork.tui.app import BrainworkApp

from screen_support import finished, shown_text  # tests/tui is on sys.path (pytest prepend mode)

SMALL = (80, 24)


def _centre(app) -> str:
    from brainwork.tui.widgets.neighbour_tree import NeighbourTree

    return app.screen.query_one(NeighbourTree).centre_id


async def test_the_centre_follows_a_rename_its_undo_and_its_redo(snapshot_config, settle) -> None:
    messages: list = []
    app = BrainworkApp(snapshot_config)
    async with app.run_test(size=SMALL, message_hook=messages.append) as pilot:
        await settle(pilot)
        app.open_page("tools/certbot")
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        app.screen.query_one("#prompt-input").value = "ACME certbot"
        await pilot.press("enter")
        await settle(pilot)
        assert not finished(messages, "rename")[-1].error
        assert _centre(app) == "tools/ACME certbot"

        await pilot.press("u")
        await settle(pilot)
        assert not finished(messages, "undo")[-1].error
        text = shown_text(app)
        assert "no longer exists" not in text, text
        assert _centre(app) == "tools/certbot"

        await pilot.press("U")
        await settle(pilot)
        assert not finished(messages, "redo")[-1].error
        assert "no longer exists" not in shown_text(app)
        assert _centre(app) == "tools/ACME certbot"


async def test_the_centre_follows_a_rename_made_elsewhere(snapshot_config, settle) -> None:
    from brainwork.ops.rename import rename

    messages: list = []
    app = BrainworkApp(snapshot_config)
    async with app.run_test(size=SMALL, message_hook=messages.append) as pilot:
        await settle(pilot)
        app.open_page("tools/certbot")
        await settle(pilot)
        # What an agent's `brainwork rename` does through the workbench: no
        # callback tells the pane.
        app.operations.run("rename", lambda c, s: rename(c, s, "tools/certbot", "Certbot client"))
        await settle(pilot)
        assert not finished(messages, "rename")[-1].error
        assert "no longer exists" not in shown_text(app)
        assert _centre(app) == "tools/Certbot client"


async def test_enter_in_the_filter_centres_the_highlighted_match(snapshot_config, settle) -> None:
    app = BrainworkApp(snapshot_config)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        before = _centre(app)
        await pilot.press("slash", *"certbot", "enter")
        await settle(pilot)
        assert before != "tools/certbot"
        assert _centre(app) == "tools/certbot"
