"""Pilot test: a file whose name is not valid UTF-8 does not stop the
workbench following the vault (tui/live_sync.py, index/watch.py).

A real file with such a name appears in the real vault of an open
workbench; one warning names it as bytes, and corrections written from
outside afterwards (a real ``brainwork capture`` process) reach the inbox
without ctrl+r. Whether a sync can index the vault while the name is there
is the scanner's business: this test asks only that the capture shows once
the name is gone, and that one made after that shows too.
"""

from __future__ import annotations

import asyncio
import os

import pytest

from brainwork.index.watch import UndecodableName
from brainwork.tui import live_sync
from brainwork.tui.app import BrainworkApp
from brainwork.tui.screens.inbox import InboxScreen

from live_sync_support import SIZE, open_with_watcher, until  # tests/tui is on sys.path
from screen_support import toasts  # tests/tui is on sys.path (pytest prepend mode)
from test_live_sync import BRAINWORK, TASK

TITLE = "A file name cannot be read"


async def capture(vault, title: str) -> str:
    """Run ``brainwork capture correction``; the new page's id."""
    proc = await asyncio.create_subprocess_exec(
        str(BRAINWORK), "capture", "correction", "--vault", str(vault),
        "--title", title, "--task", TASK,
        "--wrong", "Pressed ctrl+r to see it", "--correct", "It shows up by itself",
        "--why", "Agents capture while people curate",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "BRAINWORK_VAULT": str(vault)},
    )  # fmt: skip
    out, err = await proc.communicate()
    if proc.returncode != 0:
        pytest.skip(f"capture does not run beside the open workbench: {err.decode().strip()}")
    new = out.decode().strip().splitlines()[-1]
    assert new.startswith("corrections/"), out
    return new


async def test_a_non_utf8_file_name_does_not_stop_following_the_vault(sample_config, settle) -> None:
    if not BRAINWORK.exists():
        pytest.skip(f"{BRAINWORK} is not installed")
    vault = sample_config.vault
    messages: list = []
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SIZE, notifications=True, message_hook=messages.append) as pilot:
        await open_with_watcher(pilot, settle)
        await pilot.press("4")
        await settle(pilot)
        inbox = app.screen
        assert isinstance(inbox, InboxScreen)
        app.clear_notifications()

        bad = os.fsencode(vault) + b"/topics/caf\xe9.md"
        try:
            with open(bad, "wb") as f:
                f.write(b"---\ntitle: x\n---\n")
        except OSError as exc:
            pytest.skip(f"this file system refuses non-UTF-8 names: {exc}")

        def warnings() -> list[str]:
            return [t.message for t in toasts(app) if t.title == TITLE]

        await until(pilot, lambda: warnings(), "the warning naming the file")
        assert "b'topics/caf\\xe9.md'" in warnings()[0]
        assert not [t for t in toasts(app) if t.title == "Not following the vault on disk"]
        watcher = app.live_sync.watcher
        assert watcher.is_running and watcher.polling

        first = await capture(vault, "Captured beside a non-UTF-8 name")
        os.unlink(bad)
        await until(pilot, lambda: first in [i.id for i in inbox.items], f"{first} in the inbox")
        await until(pilot, lambda: not watcher.polling, "back to inotify")
        second = await capture(vault, "Captured once the name is gone")
        await until(pilot, lambda: second in [i.id for i in inbox.items], f"{second} in the inbox")
        assert watcher.is_running
        said = [m for m in messages if isinstance(m, live_sync.WatchFailed)]
        assert [type(m.error) for m in said] == [UndecodableName]  # once, and nothing failed
