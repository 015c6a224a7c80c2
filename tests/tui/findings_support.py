"""Shared helpers of the findings-pane and merge-modal Pilot tests."""

from __future__ import annotations

from brainwork.tui.screens.findings import FindingList, FindingsScreen

SIZE = (120, 40)
UNTYPED = "topics/on-call-handover"  # no type; folder suggests "topic"
DEAD_SOURCE = "tasks/2026-09-09-renew-cert-edi-endpoint"  # [[systems/legacy-ftp]]
DIARY = "tasks/2026-09-14-renew-cert-billing"


def plain(widget) -> str:
    return str(widget.render())


async def open_findings(pilot, settle) -> FindingsScreen:
    await settle(pilot)
    await pilot.press("2")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, FindingsScreen)
    assert screen.findings is not None
    return screen


async def move_to(pilot, screen: FindingsScreen, code: str, page: str) -> None:
    """Highlight the finding ``code`` on ``page`` (keyboard navigation
    itself is tested once, in the first test)."""
    olist = screen.query_one(FindingList)
    olist.focus()
    for i in range(olist.option_count):
        option_id = olist.get_option_at_index(i).id
        if option_id.startswith("f:"):
            f = screen.findings[int(option_id[2:])]
            if f.code == code and f.page == page:
                olist.highlighted = i
                await pilot.pause()
                assert screen.current is f
                return
    raise AssertionError(f"no {code} finding on {page}")


def codes_and_pages(screen: FindingsScreen) -> set[tuple[str, str]]:
    return {(f.code, f.page) for f in screen.findings}
