"""Consolidation on a copy of sample_vault/ with the real model (docs/learning-loop.md, section 4).

The sample vault's corrections fall into four known themes (by the dates in
their file names): certificate chains (all promoted to an active rule),
CI re-runs without reading the log, migrations without a checked backup,
unsourced figures and quotes in writing; plus unrelated one-offs (UTC times,
kubectl context) and two dismissed corrections.
"""

from __future__ import annotations

import json
import re

from brainwork.index.sync import sync
from brainwork.learn.consolidate import _sentences, cluster_of, consolidate
from brainwork.learn.doctrine import doctrine
from brainwork.learn.rules import approve, get_rule, list_rules, reject
from brainwork.ops import changeset
from brainwork.store import learning as q
from brainwork.vault.edit import frontmatter_fields, set_field

from benchmarks.bench_lessons_grid import THEMES  # sample_vault/'s known themes, one table

TODAY = "2026-11-29"
THEME_OF = {d: k for k, v in THEMES.items() for d in v.split()}
CI_CANDIDATE = "rules/read-ci-log-before-rerun"
WRITING_CANDIDATE = "rules/cite-sources-in-posts"
BACKUP_RULE = "rules/backup-and-dry-run-before-migration"


def theme(cid: str) -> str | None:
    return THEME_OF.get(cid.rsplit("/", 1)[-1][5:10])


def assert_pure(clusters) -> None:
    for c in clusters:
        themes = {theme(i) for i in c.corrections}
        assert len(themes) == 1 and None not in themes, f"mixed cluster: {c.corrections}"


def _remove(config, *rels) -> None:
    for rel in rels:
        (config.vault / rel).unlink()


def test_known_clusters_on_the_sample_vault(learn_vault):
    config, store = learn_vault
    before = {c["id"]: c["status"] for c in q.corrections(store)}
    report = consolidate(config, store, today=TODAY)
    data = report.to_json()
    assert set(data) == {"clusters", "candidates_created"}
    assert data["candidates_created"] == 0  # the two recurring themes already have candidates
    for c in data["clusters"]:
        assert set(c) >= {"corrections", "tasks", "candidate", "similarity"}
    assert_pure(report.clusters)
    by_rule = {}
    for c in report.clusters:
        by_rule.setdefault(c.rule, set()).update(c.corrections)
    ci = {i for i in before if theme(i) == "ci"}
    assert by_rule[CI_CANDIDATE] == ci
    writing_open = {i for i, s in before.items() if theme(i) == "writing" and s in ("open", "clustered")}
    assert writing_open <= by_rule[WRITING_CANDIDATE]
    # the September migrations led to the active backup rule; two October ones are proposed as evidence for it
    migration = [c for c in report.clusters if c.rule == BACKUP_RULE]
    assert migration and all(c.action == "evidence" and c.candidate is None for c in migration)
    assert {"corrections/2026-10-05-schema-only-dump", "corrections/2026-10-26-empty-dump-file"} <= by_rule[BACKUP_RULE]
    # unrelated one-offs and resolved corrections are not clustered
    clustered = set().union(*by_rule.values())
    assert "corrections/2026-09-10-times-in-utc" not in clustered
    assert "corrections/2026-10-21-wrong-kube-context" not in clustered
    assert not {i for i, s in before.items() if s in ("promoted", "dismissed")} & clustered
    assert report.read == sum(1 for s in before.values() if s in ("open", "clustered"))
    # corrections in proposed clusters are now 'clustered', others untouched
    after = {c["id"]: c["status"] for c in q.corrections(store)}
    for cid in clustered:
        assert after[cid] == "clustered"
    assert after["corrections/2026-09-10-times-in-utc"] == "open"
    # the inbox can ask which cluster a correction is in
    assert cluster_of(store)["corrections/2026-10-05-schema-only-dump"]["rule"] == BACKUP_RULE
    # nothing became active
    assert {r.id for r in list_rules(store, "active")} == {BACKUP_RULE, "rules/verify-full-cert-chain"}


def test_candidates_are_drafted_with_provenance(learn_vault):
    config, store = learn_vault
    _remove(config, "rules/read-ci-log-before-rerun.md", "rules/cite-sources-in-posts.md")
    sync(config, store)
    active_before = [r.id for r in doctrine(config, store).rules]
    report = consolidate(config, store, today=TODAY)
    # clustered by lesson, the writing theme is two lessons: figures without
    # a source (3 corrections) and quotes nobody said or approved (2)
    assert report.candidates_created == 3
    new = [c for c in report.clusters if c.action == "new"]
    assert sorted(theme(c.corrections[0]) for c in new) == ["ci", "writing", "writing"]
    writing = sorted(c.corrections for c in new if theme(c.corrections[0]) == "writing")
    assert [len(w) for w in writing] == [3, 2] and any("invented-quote" in i for i in writing[1])
    assert_pure(report.clusters)
    for c in new:
        assert len(c.tasks) >= 2 and len(c.corrections) >= 2
        rule = get_rule(store, c.candidate)
        assert rule.status == "candidate"
        assert rule.evidence == c.corrections  # provenance: evidence links to every correction
        # doctrine shape: one-sentence rule and why, apply a condition, the true counts in the body
        assert len(_sentences(rule.text)) == 1 and len(_sentences(rule.why, semicolon=False)) == 1
        assert rule.apply.startswith("when ")
        text = (config.vault / rule.path).read_text(encoding="utf-8")
        assert f"Evidence: {len(c.corrections)} corrections in {len(c.tasks)} tasks." in text
        fields = frontmatter_fields(text)
        assert fields["type"] == "rule" and fields["status"] == "candidate"
        assert fields["evidence"] == [f"[[{i}]]" for i in c.corrections]
        # deterministic, explainable: the rule text is a member's 'correct' (bracketed figures dropped)
        central = next(x for x in q.corrections(store) if x["id"] == c.central)
        assert set(re.findall(r"\w+", rule.text)) <= set(re.findall(r"\w+", central["fields"]["correct"]))
        assert f"[[{c.central}]]" in text
    ci = next(c for c in new if theme(c.corrections[0]) == "ci")
    assert len(ci.corrections) == 5
    # nothing becomes active without approval
    assert [r.id for r in doctrine(config, store).rules] == active_before
    # a second pass finds the same clusters in the drafted candidates: no duplicates
    again = consolidate(config, store, today=TODAY)
    assert again.candidates_created == 0
    assert {c.candidate for c in again.clusters if c.action == "existing"} >= {c.candidate for c in new}
    assert again.new == 0


def test_rejected_cluster_does_not_return_unless_new_corrections_join(learn_vault):
    config, store = learn_vault
    _remove(config, "rules/read-ci-log-before-rerun.md", "rules/cite-sources-in-posts.md")
    sync(config, store)
    first = consolidate(config, store, today=TODAY)
    ci = next(c for c in first.clusters if c.action == "new" and theme(c.corrections[0]) == "ci")
    reject(config, store, ci.candidate, "too specific; want one rule for all CI failures", today=TODAY)
    assert get_rule(store, ci.candidate).rejected_reason.startswith("too specific")

    second = consolidate(config, store, today=TODAY)
    assert second.candidates_created == 0
    assert not [c for c in second.clusters if set(c.corrections) & set(ci.corrections)]
    assert any(set(s["corrections"]) <= set(ci.corrections) for s in second.suppressed)

    # a new correction of the same kind joins: the cluster is proposed again
    (config.vault / "corrections" / "2026-11-02-rerun-without-log.md").write_text(
        "---\ntitle: Re-ran the deploy job without reading why it failed\ntype: correction\ncreated: 2026-11-02\n"
        "tags: [ci, testing]\nwrong: Re-ran the failed CI deploy job twice without opening its log.\n"
        "correct: Read the failing job's log first and state the cause before any re-run.\n"
        "why: The failure was a real broken migration check, not flakiness; re-runs only wasted an hour.\n"
        "status: open\ncorrects: \"[[tasks/2026-10-29-ci-cache-key-collision]]\"\n---\n\n"
        "Sam: the CI log said exactly what was wrong, again.\n",
        encoding="utf-8",
    )
    sync(config, store)
    third = consolidate(config, store, today=TODAY)
    again = [c for c in third.clusters if "corrections/2026-11-02-rerun-without-log" in c.corrections]
    assert again and again[0].action == "new" and again[0].candidate != ci.candidate
    assert set(ci.corrections) & set(again[0].corrections)
    body = (config.vault / f"{again[0].candidate}.md").read_text(encoding="utf-8")
    assert f"[[{ci.candidate}]]" in body  # says an earlier candidate was rejected


def test_contradicting_cluster_is_drafted_as_superseding(learn_vault):
    """Before September, the leaf-only rule was active; the chain corrections
    contradict it, so consolidation drafts a rule proposed to supersede it."""
    config, store = learn_vault
    vault = config.vault
    _remove(config, "rules/verify-full-cert-chain.md")
    leaf = vault / "rules" / "verify-leaf-cert.md"
    leaf.write_text(set_field(leaf.read_text(encoding="utf-8"), "status", "active"), encoding="utf-8")
    for path in (vault / "corrections").glob("*.md"):
        text = path.read_text(encoding="utf-8")
        if theme("corrections/" + path.stem) == "cert":
            path.write_text(set_field(text, "status", "open"), encoding="utf-8")
    sync(config, store)
    # Clustered by lesson at the default threshold, the first chain
    # correction ("configure fullchain.pem ...", mean 0.31 to the other
    # four) stays apart from them; this test is about superseding, so the
    # five are clustered together at 0.30.
    import dataclasses

    config = dataclasses.replace(config, thresholds=dataclasses.replace(config.thresholds, cluster_similarity=0.30))
    report = consolidate(config, store, today=TODAY)
    cert = [c for c in report.clusters if theme(c.corrections[0]) == "cert"]
    assert len(cert) == 1 and cert[0].action == "supersede" and cert[0].rule == "rules/verify-leaf-cert"
    assert len(cert[0].corrections) == 5
    candidate = get_rule(store, cert[0].candidate)
    assert candidate.proposed_supersedes == "rules/verify-leaf-cert"
    # the migration cluster does not contradict the backup rule: evidence only
    assert all(c.action == "evidence" for c in report.clusters if c.rule == BACKUP_RULE)

    # the proposal is a suggestion: a plain approve leaves the older rule active
    decision = approve(config, store, candidate.id, today=TODAY)
    assert decision.action == "approve" and decision.retired == [] and decision.suggested == "rules/verify-leaf-cert"
    assert get_rule(store, "rules/verify-leaf-cert").status == "active"
    changeset.undo(config, store)
    decision = approve(config, store, candidate.id, supersedes="rules/verify-leaf-cert", today=TODAY)
    assert decision.action == "supersede" and decision.retired == ["rules/verify-leaf-cert"]
    assert get_rule(store, "rules/verify-leaf-cert").status == "retired"
    new = get_rule(store, candidate.id)
    assert new.status == "active" and new.supersedes == ["rules/verify-leaf-cert"]
    assert "rules/verify-leaf-cert" not in {r.id for r in doctrine(config, store).rules}
    changeset.undo(config, store)
    assert get_rule(store, "rules/verify-leaf-cert").status == "active"
    assert get_rule(store, candidate.id).status == "candidate"


def test_dry_run_writes_nothing_and_consolidate_is_undoable(learn_vault):
    config, store = learn_vault
    _remove(config, "rules/read-ci-log-before-rerun.md", "rules/cite-sources-in-posts.md")
    sync(config, store)
    snapshot = {p: p.read_bytes() for p in config.vault.rglob("*.md")}
    dry = consolidate(config, store, today=TODAY, dry_run=True)
    assert dry.candidates_created == 3 and dry.operation is None  # ci, figures, quotes
    assert {p: p.read_bytes() for p in config.vault.rglob("*.md")} == snapshot
    assert q.last_pass(store) is None
    real = consolidate(config, store, today=TODAY)
    assert json.dumps(real.to_json(), sort_keys=True) == json.dumps(dry.to_json(), sort_keys=True)
    assert real.operation is not None
    changeset.undo(config, store)
    assert {p: p.read_bytes() for p in config.vault.rglob("*.md")} == snapshot


def test_only_a_cluster_teaching_the_same_lesson_is_proposed_as_superseding(learn_vault):
    """With matching and contradiction forced for every cluster (thresholds
    0 and -1), a cluster is drafted as superseding an active rule only when
    both teach the same lesson: the CI and writing clusters become rules of
    their own, the October migrations may replace the backup rule, and
    nothing proposes to replace the certificate-chain rule."""
    import dataclasses

    config, store = learn_vault
    _remove(config, "rules/read-ci-log-before-rerun.md", "rules/cite-sources-in-posts.md")
    sync(config, store)
    forced = dataclasses.replace(
        config, thresholds=config.thresholds.with_overrides({"rule_match_similarity": 0.0, "rule_contradiction_margin": -1.0})
    )
    report = consolidate(forced, store, today=TODAY)
    assert_pure([c for c in report.clusters if len(c.corrections) >= 2])  # with match 0, one-offs match some rule
    by_theme = {theme(c.corrections[0]): c for c in report.clusters if len(c.corrections) >= 2}
    for t in ("ci", "writing"):
        c = by_theme[t]
        assert c.action == "new" and c.rule is None, c
        assert get_rule(store, c.candidate).proposed_supersedes is None
    superseding = [c for c in report.clusters if c.action == "supersede"]
    assert {c.rule for c in superseding} <= {BACKUP_RULE}
    assert all(theme(i) == "migration" for c in superseding for i in c.corrections)
    assert not [r for r in list_rules(store, "candidate") if r.proposed_supersedes == "rules/verify-full-cert-chain"]
