"""Shared helpers of the findings-pane and merge-modal Pilot tests."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.widgets import OptionList

from brainwork.config import load_config
from brainwork.tui.screens.findings import FindingList, FindingsScreen

SIZE = (120, 40)
UNTYPED = "topics/on-call-handover"  # no type; folder suggests "topic"
DEAD_SOURCE = "tasks/2026-09-09-renew-cert-edi-endpoint"  # [[systems/legacy-ftp]]
DIARY = "tasks/2026-09-14-renew-cert-billing"


def plain(widget) -> str:
    return str(widget.render())


def choices(prompt) -> list[str]:
    """The choices a :class:`ChoicePrompt` lists, as shown, top first."""
    olist = prompt.query_one("#choice-list", OptionList)
    return [str(olist.get_option_at_index(i).prompt) for i in range(olist.option_count)]


def page_of(choice: str) -> str:
    """The page id a page choice shows after its title ("Title  id  0.83")."""
    return choice.split("  ")[1]


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


FINDINGS_VAULT = Path(__file__).resolve().parent / "findings_vault"


def findings_vault_config(tmp_path: Path):
    """A copy of tests/tui/findings_vault/ (one finding of each common code,
    owned by these tests so that snapshots do not follow sample_vault/)."""
    dst = tmp_path / "vault"
    shutil.copytree(FINDINGS_VAULT, dst, ignore=shutil.ignore_patterns(".brainwork"))
    return load_config(dst)


def snap_app(snap_compare, config, settle, steps, monkeypatch=None):
    """Run ``steps(pilot)`` (async) on the workbench, then compare the SVG."""
    from textual.widgets import Input

    from brainwork.tui.app import BrainworkApp
    from brainwork.tui.screens import undo_log

    if monkeypatch is not None:  # times in the undo log would change every run
        monkeypatch.setattr(undo_log, "format_time", lambda created, now=None: "just now")
        monkeypatch.setattr(undo_log, "absolute_time", lambda created: "2026-10-01 12:00:00 UTC")
    app = BrainworkApp(config)

    async def run_before(pilot) -> None:
        await settle(pilot)
        await steps(pilot)
        await settle(pilot)
        pilot.app.clear_notifications()  # toasts time out: not part of the state
        await pilot.pause()
        # A modal prompt is its own screen: the app's query does not reach it.
        for box in [*pilot.app.query(Input), *pilot.app.screen.query(Input)]:
            box.cursor_blink = False
        await pilot.pause()

    return snap_compare(app, terminal_size=SIZE, run_before=run_before)
