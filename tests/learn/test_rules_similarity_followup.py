"""The Rules pane gives one similarity for all of a rule's evidence when the
last consolidation reported several clusters for it: the clusters' figures
weighted by their size, said so beside it; a lone correction's 1.0 counts
for nothing (real consolidation pass on a copy of sample_vault/)."""

from __future__ import annotations

import pytest

from brainwork.learn.consolidate import consolidate
from brainwork.store import learning as q
from brainwork.tui.screens.rules import LAST_PASS, pass_similarity, read_rules_view

CITE = "rules/cite-sources-in-posts"


def test_several_clusters_for_one_rule_give_one_figure() -> None:
    clusters = [
        {"corrections": ["c1", "c2", "c3"], "candidate": "rules/a", "similarity": 0.46, "action": "existing"},
        {"corrections": ["c4"], "candidate": "rules/a", "similarity": 1.0, "action": "existing"},
        {"corrections": ["c5", "c6"], "candidate": "rules/a", "similarity": 0.66, "action": "existing"},
        {"corrections": ["c7", "c8"], "candidate": None, "rule": "rules/b", "similarity": 0.9, "action": "evidence"},
        {"corrections": ["c9"], "candidate": "rules/c", "similarity": 1.0, "action": "existing"},
    ]
    out = pass_similarity(clusters)
    assert set(out) == {"rules/a"}  # b: matched as evidence; c: one correction, no pair
    figure, source = out["rules/a"]
    assert figure == pytest.approx((3 * 0.46 + 2 * 0.66) / 5)
    assert source == f"{LAST_PASS}: 2 clusters, weighted by size"
    assert pass_similarity(clusters[:1])["rules/a"] == (0.46, LAST_PASS)


def test_the_pane_shows_the_weighted_figure(learn_vault) -> None:
    config, store = learn_vault
    consolidate(config, store, today="2026-11-29")
    mine = [c for c in q.last_pass(store)["clusters"] if c["candidate"] == CITE and len(c["corrections"]) >= 2]
    assert len(mine) == 2  # sample_vault: two groups join the same candidate
    view = read_rules_view(config, store)
    figure, source = view.cluster[CITE]
    n = [len(c["corrections"]) for c in mine]
    assert figure == pytest.approx(sum(k * c["similarity"] for k, c in zip(n, mine)) / sum(n))
    assert source.endswith("2 clusters, weighted by size")
