"""SVG snapshots of the workbench states (pytest-textual-snapshot).

They run on tests/tui/snapshot_vault/ (see conftest.py). Review a changed
snapshot in the HTML report pytest writes, then accept it with
``pytest tests/tui/test_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

from textual.widgets import Input

from brainwork.tui.app import BrainworkApp
from brainwork.tui.panes import PANES_BY_ID, Pane
from brainwork.tui.screens.placeholder import PlaceholderScreen
from brainwork.tui.widgets.neighbour_tree import NeighbourTree

SIZE = (120, 40)
DEMO = Pane(
    "2", "demo", "Demo",
    lambda: PlaceholderScreen("demo", "Demo — coming", "A pane that another issue builds; it says what will come."),
)


def _run(snap_compare, config, settle, *keys: str, then=None, panes=None) -> bool:
    # The graph pane plus a placeholder: snapshots of pane 1 must not change
    # whenever another pane is added to the registry.
    app = BrainworkApp(config, panes=panes or (PANES_BY_ID["graph"], DEMO))

    async def run_before(pilot) -> None:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        if then is not None:
            await then(pilot)
            await settle(pilot)
        for box in pilot.app.query(Input):
            box.cursor_blink = False  # the cursor shown steadily...
        await pilot.pause()  # ...and drawn so before the screenshot

    return snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_graph_pane_at_start(snap_compare, snapshot_config, settle) -> None:
    """Newest task at the centre, 1 hop, page list focused, counts in the status bar."""
    assert _run(snap_compare, snapshot_config, settle)


def test_graph_pane_two_hops(snap_compare, snapshot_config, settle) -> None:
    """``h``: neighbours of neighbours, expanded (few enough to expand at once)."""
    assert _run(snap_compare, snapshot_config, settle, "h")


def test_graph_pane_dead_link_highlighted(snap_compare, snapshot_config, settle) -> None:
    """Cursor on the dead link: red in the tree, explained in the preview."""

    async def to_dead_link(pilot) -> None:
        tree = pilot.app.screen.query_one(NeighbourTree)
        tree.focus()
        for _ in range(30):
            info = tree.highlighted_info
            if info is not None and info.dead:
                return
            await pilot.press("j")
        raise AssertionError("no dead link")

    assert _run(snap_compare, snapshot_config, settle, then=to_dead_link)


def test_graph_pane_after_navigating(snap_compare, snapshot_config, settle) -> None:
    """Enter on a neighbour (Billing API) moves the centre there; history 2/2."""

    async def to_billing(pilot) -> None:
        tree = pilot.app.screen.query_one(NeighbourTree)
        tree.focus()
        for _ in range(30):
            info = tree.highlighted_info
            if info is not None and info.page_id == "systems/billing-api":
                break
            await pilot.press("j")
        await pilot.press("enter")

    assert _run(snap_compare, snapshot_config, settle, then=to_billing)


def test_graph_pane_filtered_list(snap_compare, snapshot_config, settle) -> None:
    """``f`` (type filter: task) then ``/`` and text."""
    assert _run(snap_compare, snapshot_config, settle, "f", "slash", "r", "e", "d")


def test_help_screen(snap_compare, snapshot_config, settle) -> None:
    """``?`` over the graph pane."""
    assert _run(snap_compare, snapshot_config, settle, "question_mark")


def test_placeholder_pane(snap_compare, snapshot_config, settle) -> None:
    """``2``: a placeholder pane says what will come."""
    assert _run(snap_compare, snapshot_config, settle, "2")
