"""The inbox after a person rejects a candidate: its corrections say the
candidate was rejected and that consolidation leaves them alone until a new
correction joins, both right after the rejection (the last pass still names
the candidate) and after the next pass (which proposes nothing for them)
(copy of sample_vault/, real store, real model)."""

from __future__ import annotations

from brainwork.learn.consolidate import consolidate
from brainwork.learn.inbox import Rejection, inbox
from brainwork.learn.rules import reject
from brainwork.service import views

TODAY = "2026-11-29"
REJECTED_ON = "2026-11-30"


def test_a_rejected_candidates_corrections_say_it_was_rejected(learn_vault):
    config, store = learn_vault
    report = consolidate(config, store, today=TODAY)
    # sample_vault: the pass adds two clusters to the hand-written candidate
    # rules/cite-sources-in-posts ("existing")
    rule = "rules/cite-sources-in-posts"
    joined = [c for c in report.clusters if c.candidate == rule and c.action == "existing"]
    assert joined
    members = {cid for c in joined for cid in c.corrections}
    name = rule.rsplit("/", 1)[-1]
    reject(config, store, rule, "not a lesson", today=REJECTED_ON)

    items = {i.id: i for i in inbox(store)}
    for c in joined:
        for cid in c.corrections:
            item = items[cid]
            assert item.rejections == [Rejection(rule, REJECTED_ON)]
            assert views.cluster_label(item) == f"rejected: {name} ({len(c.corrections)})"
            text = views.cluster_text(item)
            assert (f"was evidence of the candidate rule {rule}, rejected on {REJECTED_ON}: "
                    "not proposed again until a new correction joins its evidence") in text.splitlines()
            assert f"evidence of the candidate rule {rule}" not in text.replace("was evidence of", "")
    assert all(not i.rejections for c, i in items.items() if c not in members)

    again = consolidate(config, store, today=REJECTED_ON)
    assert any(set(s["corrections"]) <= members and s["rejected"] == [rule] for s in again.suppressed)
    items = {i.id: i for i in inbox(store)}
    for cid in members:
        item = items[cid]
        assert item.cluster is None and item.considered is not None  # read by the pass, in none of its clusters
        assert views.cluster_label(item) == f"rejected: {name}"
        lines = views.cluster_text(item).splitlines()
        assert lines[0] == (f"in the candidate rule {rule}, rejected on {REJECTED_ON}: "
                            "not proposed again until a new correction joins its evidence")
        assert not any("no recurring lesson" in ln or f"evidence of {rule}" in ln for ln in lines)
    one_off = next(i for i in items.values() if i.considered and not i.rejections and i.cluster is None)
    assert views.cluster_text(one_off).splitlines()[0].startswith(
        f"considered by the last consolidation ({one_off.considered[:10]}): no recurring lesson yet")
