"""SVG snapshots of the graph pane's layout and of acting on the page in
view, at 80x24 and 160x50 (pytest-textual-snapshot). Review a changed
snapshot in the HTML report pytest writes, then accept it with
``pytest tests/tui/test_layout_snapshots.py --snapshot-update``."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from brainwork.config import load_config
from brainwork.tui.app import BrainworkApp
from brainwork.tui.panes import PANES_BY_ID
from brainwork.tui.widgets.neighbour_tree import NeighbourTree

from test_snapshots import DEMO  # tests/tui is on sys.path (pytest prepend mode)
from test_workbench_day import WIDE_VAULT

SMALL, LARGE = (80, 24), (160, 50)


def _run(snap_compare, config, settle, size, *keys: str, then=None) -> bool:
    app = BrainworkApp(config, panes=(PANES_BY_ID["graph"], DEMO))

    async def run_before(pilot) -> None:
        await settle(pilot)
        if then is not None:
            await then(pilot)
            await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        for box in pilot.app.query(Input):
            box.cursor_blink = False
        for box in pilot.app.screen.query(Input):
            box.cursor_blink = False
        await pilot.pause()  # the steady cursor drawn before the screenshot

    return snap_compare(app, terminal_size=size, run_before=run_before)


async def _on_certbot(pilot) -> None:
    pilot.app.open_page("tasks/renew-cert")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    assert pilot.app.screen.query_one(NeighbourTree).select_page("tools/certbot")


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "160x50"])
def test_graph_pane_layout(snap_compare, snapshot_config, settle, size) -> None:
    """The list takes a third (at least 32 cells: 16 title characters at 80
    columns), the footer starts with Quit and Help, the tree ends cut
    labels with "…"."""
    assert _run(snap_compare, snapshot_config, settle, size)


def test_graph_pane_zoomed_80x24(snap_compare, snapshot_config, settle) -> None:
    """``z`` on the neighbourhood: it fills the pane; tabs, status and keys stay."""
    assert _run(snap_compare, snapshot_config, settle, SMALL, "tab", "z")


def test_graph_pane_wider_list_80x24(snap_compare, snapshot_config, settle) -> None:
    """``>`` twice: the list takes 50%."""
    assert _run(snap_compare, snapshot_config, settle, SMALL, "greater_than_sign", "greater_than_sign")


def test_rename_prompt_from_graph_pane_80x24(snap_compare, snapshot_config, settle) -> None:
    """``r`` on a neighbour in the tree: the rename prompt, its title pre-filled."""
    assert _run(snap_compare, snapshot_config, settle, SMALL, "r", then=_on_certbot)


def test_after_rename_from_graph_pane_160x50(snap_compare, snapshot_config, settle) -> None:
    """The renamed neighbour, in the tree and the list, with the notification."""

    async def rename(pilot) -> None:
        await _on_certbot(pilot)
        await pilot.press("r")
        await pilot.pause()
        pilot.app.screen.query_one(Input).value = "ACME certbot"
        await pilot.press("enter")

    assert _run(snap_compare, snapshot_config, settle, LARGE, then=rename)


def test_help_80x24(snap_compare, snapshot_config, settle) -> None:
    """``?``: the pane's keys first; Textual's generic keys folded at the end."""
    assert _run(snap_compare, snapshot_config, settle, SMALL, "question_mark")


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "160x50"])
def test_wide_titles(snap_compare, make_vault, settle, size) -> None:
    """Emoji with a variation selector and CJK titles: borders in line, cut with "…"."""

    async def to_templates(pilot) -> None:
        pilot.app.open_page("🗂️ 01 Templates")

    assert _run(snap_compare, load_config(make_vault(WIDE_VAULT)), settle, size, then=to_templates)
