"""Another process holding the vault's store: a clear message, no traceback."""

from __future__ import annotations

from textual.widgets import Static

from brainwork.tui.app import BrainworkApp

from screen_support import toasts  # tests/tui is on sys.path (pytest prepend mode)


async def test_busy_store_is_reported_and_the_ui_keeps_working(snapshot_config, settle, hold_store) -> None:
    hold_store(snapshot_config.store)
    app = BrainworkApp(snapshot_config)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await settle(pilot)
        assert not app.store.is_open
        assert str(snapshot_config.vault) in app.store_error
        assert "another brainwork process" in app.store_error
        message = app.screen.query_one("#centre-message", Static)
        assert message.display and "another brainwork process" in str(message.render())
        busy = [t for t in toasts(app) if t.title == "Vault busy"]
        assert len(busy) == 1 and str(snapshot_config.vault) in busy[0].message
        assert app.check_action("reindex", ()) is None
        await pilot.press("1", "h", "f", "slash", "x")  # nothing to read, nothing breaks
        await settle(pilot)
        assert app.return_code is None
