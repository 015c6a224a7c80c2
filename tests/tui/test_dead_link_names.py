"""Pilot test: the neighbourhood tree names a dead link as its page writes
it (``CON``), not in the normalised form the store keys it by."""

from __future__ import annotations

from brainwork.tui.app import BrainworkApp
from brainwork.tui.screens.graph import GraphScreen
from brainwork.tui.widgets.neighbour_tree import NeighbourTree


def labels(tree: NeighbourTree) -> list[str]:
    out, stack = [], [tree.root]
    while stack:
        node = stack.pop()
        out.append(str(node.label))
        stack.extend(node.children)
    return out


async def test_dead_links_show_as_written(sample_config, settle) -> None:
    odd = sample_config.vault / "odd"
    odd.mkdir(exist_ok=True)
    (odd / "devices.md").write_text("---\ntype: topic\n---\nSee [[CON]] and [[Legacy-FTP-Box]].\n")
    (odd / "near.md").write_text("---\ntype: topic\n---\nNext to [[odd/devices]].\n")
    app = BrainworkApp(sample_config)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.open_page("odd/devices")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GraphScreen) and screen.current == "odd/devices"
        shown = "\n".join(labels(screen.query_one(NeighbourTree)))
        assert "✗ CON (dead link)" in shown and "✗ Legacy-FTP-Box (dead link)" in shown
        assert "✗ con " not in shown

        app.open_page("odd/near")  # at 2 hops the dead links are a hop-1 page's
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        shown = "\n".join(labels(screen.query_one(NeighbourTree)))
        assert "✗ CON (dead link)" in shown, shown
