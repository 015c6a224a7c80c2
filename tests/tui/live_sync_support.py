"""Shared set-up of the live-sync Pilot tests (tests/tui/test_live_sync*.py):
the workbench's watcher ready, waits that poll a condition with a deadline,
the live syncs among the app's messages, and the Findings pane after its
first check."""

from __future__ import annotations

import time

from brainwork.tui.messages import IndexFinished

SIZE = (120, 40)
DEADLINE = 15.0  # seconds; the watcher answers in about 0.2 s plus the sync


async def until(pilot, condition, what: str, deadline: float = DEADLINE) -> None:
    """Let the app run until ``condition()`` holds (AssertionError after ``deadline`` s)."""
    end = time.monotonic() + deadline
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"not within {deadline} s: {what}")
        await pilot.pause(0.05)


def live_syncs(messages: list) -> list[IndexFinished]:
    return [m for m in messages if isinstance(m, IndexFinished) and getattr(m, "live", False)]


async def open_with_watcher(pilot, settle) -> None:
    await settle(pilot)
    app = pilot.app
    assert app.live_sync.watcher is not None and app.live_sync.watcher.ready.wait(DEADLINE)


async def findings_after_first_check(pilot, settle):
    """``2``: the Findings pane, once its first check is in."""
    from brainwork.tui.screens.findings import FindingsScreen

    await pilot.press("2")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, FindingsScreen)
    await until(pilot, lambda: screen.findings is not None, "the first check")
    return screen
