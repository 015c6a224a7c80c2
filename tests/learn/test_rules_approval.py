"""Approval does only what the person chose (copy of sample_vault/, real
store, real model): partial promotion with the rest back in the inbox,
no supersession unless asked for, and edit-then-approve of title, rule,
why and apply from the CLI."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from brainwork.errors import UserError
from brainwork.index.sync import sync
from brainwork.learn.consolidate import consolidate
from brainwork.learn.doctrine import doctrine
from brainwork.learn.inbox import inbox
from brainwork.learn.rules import approve, get_rule, plan_approval
from brainwork.ops import changeset
from brainwork.store import graph
from brainwork.store import learning as q
from brainwork.vault.edit import frontmatter_fields, set_field

TODAY = "2026-11-29"
CI = "rules/read-ci-log-before-rerun"
BACKUP = "rules/backup-and-dry-run-before-migration"
CERT = "rules/verify-full-cert-chain"
KEEP = [
    "corrections/2026-09-04-read-log-before-rerun",
    "corrections/2026-09-28-say-what-job-reported",
    "corrections/2026-10-23-healthcheck-in-output",
]
DROP = ["corrections/2026-09-15-retry-masked-race", "corrections/2026-10-09-audit-failure-deterministic"]


def snapshot(config) -> dict:
    return {p.relative_to(config.vault).as_posix(): p.read_bytes() for p in config.vault.rglob("*.md")}


def statuses(store) -> dict:
    return {c["id"]: c["status"] for c in q.corrections(store)}


def page_fields(config, page_id: str) -> dict:
    return frontmatter_fields((config.vault / f"{page_id}.md").read_text(encoding="utf-8"))


def test_partial_promotion_returns_the_rest_to_the_inbox_and_undo_restores_every_byte(learn_vault):
    config, store = learn_vault
    before = snapshot(config)
    status_before = statuses(store)
    assert get_rule(store, CI).evidence == sorted(KEEP + DROP)

    plan = plan_approval(store, CI, drop=DROP)
    assert plan.promote == KEEP and plan.back == DROP
    d = approve(config, store, CI, evidence=KEEP + DROP[:1], drop=DROP[:1], today=TODAY)
    assert sorted(d.corrections) == KEEP and d.back == DROP and d.retired == []

    rule = get_rule(store, CI)
    assert rule.status == "active" and rule.evidence == KEEP
    fields = page_fields(config, CI)
    assert fields["promoted_from"] == [f"[[{c}]]" for c in KEEP]
    assert "related" not in fields and "evidence" not in fields  # the dropped ones are not linked any more
    now = statuses(store)
    for c in KEEP:
        assert now[c] == "promoted"
        assert any(e.edge == "promoted_to" and e.other == CI for e in graph.page_edges(store, c).out)
    in_inbox = {i.id: i for i in inbox(store)}
    for c in DROP:
        assert now[c] == "open"
        assert c in in_inbox and in_inbox[c].rules == []  # back in the inbox, evidence of no rule
        assert not any(e.other == CI for e in graph.page_edges(store, c).in_ + graph.page_edges(store, c).out)
    assert d.operation.details["back_to_inbox"] == DROP
    # consolidation does not propose them as this rule's evidence again
    report = consolidate(config, store, today=TODAY, dry_run=True)
    assert not [c for c in report.clusters if c.rule == CI and set(c.corrections) & set(DROP)]

    op = changeset.undo(config, store)
    assert op.kind == "approve-rule" and op.id == d.operation.id
    assert snapshot(config) == before  # one operation: every byte of every file back
    assert statuses(store) == status_before
    assert get_rule(store, CI).evidence == sorted(KEEP + DROP)


def test_evidence_choices_are_checked(learn_vault):
    config, store = learn_vault
    before = snapshot(config)
    with pytest.raises(UserError, match="not evidence of"):
        approve(config, store, CI, evidence=["corrections/2026-10-05-schema-only-dump"])
    with pytest.raises(UserError, match="not evidence of"):
        approve(config, store, CI, drop=["tasks/2026-09-04-fix-ci-billing-api-tests"])
    with pytest.raises(UserError, match="no correction left"):
        approve(config, store, CI, drop=KEEP + DROP)
    with pytest.raises(UserError, match="why is empty"):
        approve(config, store, CI, why="  ")
    assert snapshot(config) == before


def _propose(config, store, rule: str, older: str) -> None:
    path = config.vault / f"{rule}.md"
    path.write_text(set_field(path.read_text(encoding="utf-8"), "proposed_supersedes", f"[[{older}]]"), encoding="utf-8")
    sync(config, store)


def test_a_plain_approve_never_retires_another_rule(learn_vault):
    config, store = learn_vault
    _propose(config, store, CI, BACKUP)
    assert get_rule(store, CI).proposed_supersedes == BACKUP
    older_before = (config.vault / f"{BACKUP}.md").read_bytes()

    d = approve(config, store, CI, today=TODAY)
    assert d.action == "approve" and d.retired == [] and d.suggested == BACKUP  # shown, not applied
    assert get_rule(store, BACKUP).status == "active"
    assert (config.vault / f"{BACKUP}.md").read_bytes() == older_before
    assert get_rule(store, CI).supersedes == []
    assert {r.id for r in doctrine(config, store).rules} == {BACKUP, CERT, CI}
    # --keep-older is still accepted and changes nothing
    changeset.undo(config, store)
    d = approve(config, store, CI, keep_older=True, today=TODAY)
    assert d.retired == [] and get_rule(store, BACKUP).status == "active"


def test_supersedes_retires_the_older_rule_and_records_both_sides(learn_vault):
    config, store = learn_vault
    before = snapshot(config)
    old = get_rule(store, BACKUP)
    new_text = "When a CI job fails, read its log and state the cause before re-running anything."
    d = approve(config, store, CI, text=new_text, supersedes=BACKUP, today=TODAY)
    assert d.action == "supersede" and d.retired == [BACKUP]
    retired = get_rule(store, BACKUP)
    assert retired.status == "retired" and retired.retired == TODAY and retired.superseded_by == [CI]
    assert page_fields(config, BACKUP)["retired_reason"] == f"superseded by {CI}"
    assert get_rule(store, CI).supersedes == [BACKUP]
    sides = d.operation.details["superseded"]
    assert sides["old"] == {"id": BACKUP, "text": old.text, "why": old.why}
    assert sides["new"]["id"] == CI and sides["new"]["text"] == new_text
    changeset.undo(config, store)
    assert snapshot(config) == before


def test_cli_edit_then_approve_all_four_fields(learn_vault):
    config, store = learn_vault
    from brainwork.cli import cli

    store.close()  # the CLI opens the store itself
    v = ["--vault", str(config.vault)]
    runner = CliRunner()
    title = "Read the failing job's log before any re-run"
    text = "Read the failing job's log and state the cause before re-running it."
    why = "Re-runs until green hid real bugs four times."
    apply_ = "when a CI job fails"
    edit = ["--title", title, "--text", text, "--why", why, "--apply", apply_]
    untouched = snapshot(config)
    res = runner.invoke(cli, ["approve", CI, *edit, "--drop", DROP[0], "--dry-run", "--json", *v])
    assert res.exit_code == 0, res.output
    plan = json.loads(res.output)
    assert plan["edits"] == {"title": title, "text": text, "why": why, "apply": apply_}
    assert plan["back_to_inbox"] == [DROP[0]] and plan["supersedes"] is None
    assert snapshot(config) == untouched  # a dry run writes nothing

    res = runner.invoke(cli, ["approve", CI, *edit, "--drop", DROP[0], *v])
    assert res.exit_code == 0, res.output
    assert "4 corrections promoted" in res.output and f"1 back to the inbox: {DROP[0]}" in res.output
    f = page_fields(config, CI)
    assert (f["title"], f["rule"], f["why"], f["apply"], f["status"]) == (title, text, why, apply_, "active")
    assert page_fields(config, DROP[0])["status"] == "open"
    res = runner.invoke(cli, ["rules", "--json", *v])
    rule = next(r for r in json.loads(res.output)["rules"] if r["id"] == CI)
    assert (rule["title"], rule["text"], rule["why"], rule["apply"]) == (title, text, why, apply_)
    assert DROP[0] not in rule["evidence"]

    res = runner.invoke(cli, ["undo", *v])
    assert res.exit_code == 0, res.output
    assert snapshot(config) == untouched
    res = runner.invoke(cli, ["approve", CI, "--evidence", "corrections/2026-10-05-schema-only-dump", *v])
    assert res.exit_code == 2 and "not evidence of" in res.output
