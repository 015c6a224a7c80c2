"""Pilot test: at 80 columns every page row of the palette keeps its id
(the title is shortened instead)."""

from __future__ import annotations

from brainwork.tui.app import BrainworkApp
from brainwork.tui.commands import PAGE_HITS

from screen_support import screen_text


async def test_page_ids_survive_a_narrow_palette(sample_config, settle) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for query in ("Renew TLS cert", "parse"):
            await pilot.press("ctrl+p")
            await settle(pilot)
            await pilot.press(*query)
            await settle(pilot)
            await pilot.pause(0.3)  # the palette gathers hits on a timer
            rows = [r.strip() for r in screen_text(app)]
            shown = "\n".join(rows)
            hits = app.page_search.search(query, PAGE_HITS)
            page_rows = [r for r in rows if r.startswith("page: ")]
            assert page_rows, shown
            for hit in hits[: len(page_rows)]:
                if hit.title and f"page: {hit.title}"[:12] in shown:
                    assert hit.id in shown, (hit.id, shown)
            # no row ends where its id should start
            assert not [r for r in rows if r.endswith(" ·")], shown
            await pilot.press("escape")
            await settle(pilot)
