"""Panes opened while another process holds the store (QA pass): the
findings pane said "Reading the vault…" and the inbox "Reading the
corrections…" for ever, while only the status bar named the problem."""

from __future__ import annotations

import subprocess
import sys

from textual.widgets import Static

from brainwork.tui.app import BrainworkApp

HOLD = "import sys; from brainwork.store import Store; s = Store(sys.argv[1]); print('ready', flush=True); sys.stdin.read()"


async def test_findings_and_inbox_say_the_store_is_busy(snapshot_config, settle) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(snapshot_config.store)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "ready"
        app = BrainworkApp(snapshot_config)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            assert "another brainwork process" in app.store_error
            for key, message_id in (("2", "#findings-message"), ("4", "#inbox-empty")):
                await pilot.press(key)
                await settle(pilot)
                message = app.screen.query_one(message_id, Static)
                assert message.display and "another brainwork process" in str(message.render()), key
    finally:
        holder.stdin.close()
        holder.wait(10)
