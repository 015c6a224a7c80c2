"""Panes opened while another process holds the store say so themselves
(not "Reading the vault…" for ever, with only the status bar naming the
problem)."""

from __future__ import annotations

from textual.widgets import Static

from brainwork.tui.app import BrainworkApp


async def test_findings_and_inbox_say_the_store_is_busy(snapshot_config, settle, hold_store) -> None:
    hold_store(snapshot_config.store)
    app = BrainworkApp(snapshot_config)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "another brainwork process" in app.store_error
        for key, message_id in (("2", "#findings-message"), ("4", "#inbox-empty")):
            await pilot.press(key)
            await settle(pilot)
            message = app.screen.query_one(message_id, Static)
            assert message.display and "another brainwork process" in str(message.render()), key
