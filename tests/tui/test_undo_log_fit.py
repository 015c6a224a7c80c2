"""Pilot tests: the undo log (pane 3) at 80 columns. Empty, its ``enter``
(Open page) is greyed in the footer; with operations, the ``kind`` column
is as wide as its longest kind and ``when`` as its longest time, so a
kind such as "dismiss-corrections" reads whole beside "just now" (real
store, real files)."""

from __future__ import annotations

from brainwork.ops import fixes
from brainwork.tui.app import BrainworkApp
from brainwork.tui.screens.undo_log import UndoLogScreen, UndoTable

from screen_support import screen_text

UNTYPED = "topics/on-call-handover"


async def test_empty_log_greys_open_page_and_columns_fit_their_cells(sample_config, settle) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, UndoLogScreen)
        table = screen.query_one(UndoTable)
        assert table.row_count == 0 and table.check_action("select_cursor", ()) is None
        enter = app.screen.active_bindings.get("enter")  # absent while the empty table is hidden
        assert enter is None or enter.enabled is False  # the footer greys it

        app.operations.run("set type", lambda c, s: fixes.set_type(c, s, UNTYPED, "topic"))
        await settle(pilot)
        app.operations.run("create page", lambda c, s: fixes.create_page(c, s, "systems/legacy-ftp"))
        await settle(pilot)
        assert table.row_count == 2 and table.check_action("select_cursor", ()) is True
        assert app.screen.active_bindings["enter"].enabled is True
        rows = "\n".join(screen_text(app))
        assert "create-page" in rows and "set-type" in rows and "just now" in rows
        assert "create-p…" not in rows
        widths = {c.key.value: c.width for c in table.columns.values()}
        assert widths["kind"] == len("create-page") and widths["when"] == len("just now")
