"""Regressions found by using the graph pane in a real terminal (QA pass)."""

from __future__ import annotations

from brainwork.store import graph
from brainwork.tui.app import BrainworkApp
from brainwork.tui.screens.graph import neighbourhood_title

CERTBOT = "tools/certbot"


def test_title_counts_second_hop_pages() -> None:
    rows = [
        {"id": "a", "hop": 1}, {"id": "a", "hop": 1}, {"id": "b", "hop": 1},
        {"id": "c", "hop": 2}, {"id": "d", "hop": 2}, {"id": "c", "hop": 2},
    ]
    assert neighbourhood_title(rows[:3], 1) == "Neighbourhood · 1 hop · 2 linked"
    assert neighbourhood_title(rows, 2) == "Neighbourhood · 2 hops · 4 pages"


async def test_two_hop_view_says_how_many_pages_it_shows(sample_config, settle) -> None:
    """With 2 hops the title said "16 linked", the 1-hop figure, while the
    tree showed dozens more pages."""
    app = BrainworkApp(sample_config)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.open_page(CERTBOT)
        await settle(pilot)
        centre = app.screen.query_one("#graph-centre")
        with app.store.use() as store:
            rows = graph.neighbourhood(store, CERTBOT, 2)
        near = len({r["id"] for r in rows if r["hop"] == 1})
        far = len({r["id"] for r in rows if r["hop"] == 2})
        assert far > 0
        assert str(centre.border_title) == f"Neighbourhood · 1 hop · {near} linked"
        await pilot.press("h")
        await settle(pilot)
        assert str(centre.border_title) == f"Neighbourhood · 2 hops · {near + far} pages"
