"""The "Parse errors" toast: raised when a file joins the set of files that
could not be read, not again after every operation (each sync reports the
whole set). Assertions are on the notifications the app posts."""

from __future__ import annotations

from textual.notifications import Notify

from brainwork.tui.app import BrainworkApp
from brainwork.tui.messages import IndexFinished

from screen_support import finished  # tests/tui is on sys.path (pytest prepend mode)

SMALL = (80, 24)


def _parse_toasts(messages: list) -> int:
    return sum(1 for m in messages if isinstance(m, Notify) and m.notification.title == "Parse errors")


async def _synced(pilot, settle, messages: list, count: int) -> None:
    """Wait for the ``count``-th sync (the start-up one runs on a timer)."""
    for _ in range(100):
        if sum(isinstance(m, IndexFinished) for m in messages) >= count:
            break
        await pilot.pause(0.05)
    await settle(pilot)


async def test_parse_error_toast_only_when_a_file_joins_the_broken_set(snapshot_config, settle, open_rename) -> None:
    vault = snapshot_config.vault
    (vault / "notes/latin1.md").write_bytes(b"---\ntitle: Latin1 page\n---\n\nCaf\xe9 [[tools/certbot]]\n")
    messages: list = []
    app = BrainworkApp(snapshot_config)
    async with app.run_test(size=SMALL, message_hook=messages.append) as pilot:
        await _synced(pilot, settle, messages, 1)
        assert _parse_toasts(messages) == 1  # the first sync tells
        await open_rename(pilot)
        app.screen.query_one("#prompt-input").value = "ACME certbot"
        await pilot.press("enter")
        await settle(pilot)
        assert not finished(messages, "rename")[-1].error
        await pilot.press("u")
        await settle(pilot)
        assert finished(messages, "undo")
        assert _parse_toasts(messages) == 1  # the same broken file: no toast after the operations
        (vault / "notes/broken-yaml.md").write_bytes(b"---\ntitle: [unclosed\n---\n\nbody\n")
        synced = sum(isinstance(m, IndexFinished) for m in messages)
        app.action_reindex(quiet=True)
        await _synced(pilot, settle, messages, synced + 1)
        assert _parse_toasts(messages) == 2  # a newly broken file
