"""The status bar on a narrow line: counts are never cut mid-word; the
vault's path, the progress and then whole counts give way first, at 80 and
160 columns (a large vault's counts beside an embedding pass's progress)."""

from __future__ import annotations

import dataclasses

import pytest

from brainwork.store import graph
from brainwork.tui.app import BrainworkApp
from brainwork.tui.widgets.status_bar import VAULT_MIN, counts_content, fit, work_forms

from screen_support import screen_text  # tests/tui is on sys.path (pytest prepend mode)

#: obsidian-hub's counts, where "15 parse errors" read "15 parse erro…".
HUB = graph.GraphCounts(pages=6571, attachments=0, edges={"related": 22411}, dead_links=68, parse_errors=15, types={})
WORK = ("embedding · ~6 min left", 4000, 12000)


def test_counts_forms_drop_whole_counts() -> None:
    assert str(counts_content(HUB)) == "6571 pages · 22411 edges · 68 dead links · 15 parse errors"
    assert str(counts_content(HUB, drop=1)) == "6571 pages · 68 dead links · 15 parse errors"
    assert str(counts_content(HUB, drop=2)) == "68 dead links · 15 parse errors"
    one = dataclasses.replace(HUB, pages=1, edges={"related": 1}, dead_links=1, parse_errors=1)
    assert str(counts_content(one)) == "1 page · 1 edge · 1 dead link · 1 parse error"


def test_work_forms_shorten_the_progress() -> None:
    assert work_forms(WORK) == [("embedding · ~6 min left", True), ("embedding · ~6 min left 33%", False),
                                ("embedding 33%", False)]
    assert work_forms(("indexing…", 0, 0)) == [("indexing…", True), ("indexing…", False)]


def test_fit_gives_way_in_order() -> None:
    counts, work = [60, 46, 33], [59, 29, 15]
    assert fit(200, 42, counts, work) == (0, 0, 42)  # all fits
    assert fit(160, 42, counts, work) == (0, 0, 41)  # the vault's path is cut first
    assert fit(60 + 59 + VAULT_MIN - 1, 42, counts, work) == (0, 1, 42)  # then the bar goes
    assert fit(80, 42, counts, work) == (0, 2, 0)  # then the label shortens and the vault goes
    assert fit(70, 42, counts, work) == (1, 2, 0)  # then the edges
    assert fit(10, 42, counts, work) == (2, 2, 0)  # nothing fits: the shortest forms
    assert fit(80, 42, counts, []) == (0, 0, 20)  # no work: the counts and the vault's path


@pytest.mark.parametrize("size", [(160, 50), (80, 24)])
async def test_counts_are_whole_beside_the_progress(sample_config, settle, size) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        app.counts = HUB
        app.background = WORK
        await pilot.pause(0.2)
        line = screen_text(app)[size[1] - 2]  # the status bar sits above the key footer
        assert "6571 pages · 22411 edges · 68 dead links · 15 parse errors" in line, line
        assert "…" not in line.split("vault:")[-1].split("pages")[1], line
        if size[0] == 160:
            assert "embedding · ~6 min left" in line and "33%" in line
        else:
            assert line.rstrip().endswith("embedding 33%") and "vault:" not in line
        app.background = None
        await pilot.pause(0.2)
        line = screen_text(app)[size[1] - 2]
        assert "vault:" in line and "15 parse errors" in line and "embedding" not in line
