"""Pilot test: the Findings pane checks again once the workbench's
background embedding pass has embedded pages, since the duplicate check
weighs meaning only for pages with an embedding: the pane then lists what
``brainwork check`` says on the same store (real model, real store)."""

from __future__ import annotations

import os

import pytest

from brainwork.analysis.findings import check
from brainwork.store import Store, vectors
from brainwork.tui.app import BrainworkApp
from brainwork.tui.screens.findings import FindingsChecked, FindingsScreen

from findings_support import SIZE

PAIR = ("tools/pg-dump", "tools/pgdump")  # near-identical pages: a duplicate with or without meaning


def _shown(findings) -> list[tuple[str, str, int, str]]:
    return sorted((f.code, f.page, f.line, f.message) for f in findings)


@pytest.mark.skipif(os.environ.get("BRAINWORK_EMBEDDER", "").lower() == "lexical",
                    reason="needs the embedding model (no meaning without it)")
async def test_findings_follow_the_embedding_pass(sample_config, settle) -> None:
    # The store as after an index without embeddings: the warm-up embeds every page.
    with Store(sample_config.store) as store:
        vectors.clear(store)
        before = check(sample_config, store)
    duplicate = next(f for f in before if f.code == "duplicate" and (f.page, f.other) == PAIR)
    assert "meaning" not in duplicate.message

    messages: list = []
    app = BrainworkApp(sample_config, warm_up=True)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await pilot.press("2")  # shown before the pass ends: its first check has no embeddings
        await settle(pilot, rounds=400)
        screen = pilot.app.screen
        assert isinstance(screen, FindingsScreen)
        checks = [m for m in messages if isinstance(m, FindingsChecked) and m.findings is not None]
        assert len(checks) >= 2, "the pane did not check again after the embedding pass"
        with app.store.use() as store:
            assert vectors.count(store) >= 100  # the pass ran
            expected = check(sample_config, store)
        assert _shown(screen.findings) == _shown(expected)
        shown = next(f for f in screen.findings if f.code == "duplicate" and (f.page, f.other) == PAIR)
        assert "meaning" in shown.message
        assert f"Findings · {len(expected)}" in str(screen.query_one("#findings-left").border_title)
