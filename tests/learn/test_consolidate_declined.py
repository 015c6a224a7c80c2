"""Corrections taken out of a rule's evidence at approval are not proposed for
that rule again, even beside a new correction of the same lesson, and stay
free to join another rule (docs/learning-loop.md sections 4-5)."""

from __future__ import annotations

from datetime import date

from brainwork.index.sync import sync
from brainwork.learn.capture import capture
from brainwork.learn.consolidate import consolidate
from brainwork.learn.rules import approve
from brainwork.store import learning as q

TODAY = "2026-12-02"
CITE = "rules/cite-sources-in-posts"
DROPPED = "corrections/2026-10-17-industry-stat-no-link"
STAT = {
    "task": "tasks/2026-10-27-case-study-northwind",
    "wrong": "Quoted an industry statistic with no link to where it came from",
    "correct": "Every statistic in a post gets a link to its source, or it is cut",
    "why": "Editors cannot verify a number without its source",
}


def _drop_and_capture(config, store) -> str:
    d = approve(config, store, CITE, drop=[DROPPED], today=TODAY)
    assert d.operation.summary == f"approve {CITE}; 1 correction back to the inbox"
    return capture(config, store, "correction", dict(STAT), today=date(2026, 12, 2)).id


def test_a_dropped_correction_is_not_proposed_for_its_rule_beside_a_new_one(learn_vault):
    config, store = learn_vault
    new = _drop_and_capture(config, store)
    report = consolidate(config, store, today=TODAY, dry_run=True)
    for_cite = [c for c in report.clusters if c.rule == CITE or c.candidate == CITE]
    assert not [c for c in for_cite if DROPPED in c.corrections]
    # the new correction alone is still proposed as the rule's evidence
    assert [c.corrections for c in for_cite if new in c.corrections] == [[new]]
    assert not [d for d in report.drafts if DROPPED in d.evidence]

    # written too: the dropped correction stays in the inbox, not clustered
    consolidate(config, store, today=TODAY)
    status = {c["id"]: c["status"] for c in q.corrections(store)}
    assert status[DROPPED] == "open" and status[new] == "clustered"


def test_a_dropped_correction_still_joins_another_rule(learn_vault):
    config, store = learn_vault
    _drop_and_capture(config, store)
    # A second candidate teaching the lesson the dropped correction is about.
    (config.vault / "rules" / "link-every-statistic.md").write_text(
        "---\ntitle: Link every statistic to a published source\ntype: rule\ncreated: 2026-12-01\n"
        "tags: [rule, writing]\nrule: \"Drop statistics that cannot be linked to a published source.\"\n"
        "why: \"Unattributed statistics circulate online without origin.\"\nstatus: candidate\n---\n\n"
        "Statistics in posts need a published source.\n",
        encoding="utf-8",
    )
    sync(config, store)  # consolidation embeds the new page itself
    report = consolidate(config, store, today=TODAY, dry_run=True)
    assert not [c for c in report.clusters if c.rule == CITE and DROPPED in c.corrections]
    joined = [c for c in report.clusters if DROPPED in c.corrections]
    assert [(c.rule, c.action) for c in joined] == [("rules/link-every-statistic", "existing")]


def test_undoing_the_approval_makes_the_drop_inert(learn_vault):
    from brainwork.ops import changeset

    config, store = learn_vault
    approve(config, store, CITE, drop=[DROPPED], today=TODAY)
    changeset.undo(config, store)
    report = consolidate(config, store, today=TODAY, dry_run=True)
    assert [c.action for c in report.clusters if DROPPED in c.corrections] == ["existing"]
