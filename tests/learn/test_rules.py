"""The approval gate on a copy of sample_vault/ (docs/learning-loop.md, section 5): approve, edit
then approve, reject with a reason, supersede, link; each undoable."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from brainwork.errors import UserError
from brainwork.learn.doctrine import doctrine
from brainwork.learn.rules import approve, get_rule, link_corrections, list_rules, reject, retire
from brainwork.ops import changeset
from brainwork.store import graph
from brainwork.store import learning as q
from brainwork.vault.edit import frontmatter_fields

TODAY = "2026-11-29"
CI = "rules/read-ci-log-before-rerun"
WRITING = "rules/cite-sources-in-posts"
BACKUP = "rules/backup-and-dry-run-before-migration"


def snapshot(config) -> dict:
    return {p.relative_to(config.vault).as_posix(): p.read_bytes() for p in config.vault.rglob("*.md")}


def statuses(store) -> dict:
    return {c["id"]: c["status"] for c in q.corrections(store)}


def test_approve_activates_promotes_and_undo_reverts(learn_vault):
    config, store = learn_vault
    before = snapshot(config)
    rule = get_rule(store, CI)
    assert rule.status == "candidate" and len(rule.evidence) == 5
    assert CI not in {r.id for r in doctrine(config, store).rules}

    d = approve(config, store, CI, today=TODAY)
    assert d.action == "approve" and sorted(d.corrections) == rule.evidence
    after = get_rule(store, CI)
    assert after.status == "active" and after.activated == TODAY
    fields = frontmatter_fields((config.vault / after.path).read_text(encoding="utf-8"))
    assert fields["promoted_from"] == [f"[[{c}]]" for c in rule.evidence]
    assert "related" not in fields  # the hand-written provenance moved to promoted_from
    # promoted_to edges from every correction, and the corrections are promoted
    for c in rule.evidence:
        out = graph.page_edges(store, c).out
        assert any(e.edge == "promoted_to" and e.other == CI for e in out)
        assert statuses(store)[c] == "promoted"
    assert CI in {r.id for r in doctrine(config, store).rules}
    # only the keys named changed: the body and other keys keep their bytes
    old, new = before[after.path].decode(), (config.vault / after.path).read_text(encoding="utf-8")
    assert old.split("---", 2)[2] == new.split("---", 2)[2]

    op = changeset.undo(config, store)
    assert op.kind == "approve-rule"
    assert snapshot(config) == before
    assert get_rule(store, CI).status == "candidate"
    assert CI not in {r.id for r in doctrine(config, store).rules}


def test_edit_then_approve_and_errors(learn_vault):
    config, store = learn_vault
    text = "When a CI job fails, read its log and state the cause before re-running anything."
    approve(config, store, WRITING, text="Only publish figures and quotes that have a linkable source or approval.", today=TODAY)
    assert get_rule(store, WRITING).text.startswith("Only publish figures")
    with pytest.raises(UserError, match="only candidate rules can be approved"):
        approve(config, store, WRITING)
    with pytest.raises(UserError, match="empty"):
        approve(config, store, CI, text="   ")
    with pytest.raises(UserError, match="only an active rule can be superseded"):
        approve(config, store, CI, supersedes="rules/verify-leaf-cert")
    with pytest.raises(UserError, match="not a rule"):
        approve(config, store, "tasks/2026-09-04-fix-ci-billing-api-tests")
    d = approve(config, store, CI, text=text, today=TODAY)
    assert get_rule(store, CI).text == text
    assert d.operation.details["edited"] is True


def test_reject_with_reason_and_undo(learn_vault):
    config, store = learn_vault
    before = snapshot(config)
    status_before = statuses(store)
    with pytest.raises(UserError, match="reason"):
        reject(config, store, CI, "  ")
    d = reject(config, store, CI, "we re-run flaky suites on purpose", today=TODAY)
    rule = get_rule(store, CI)
    assert rule.status == "rejected" and rule.rejected_reason == "we re-run flaky suites on purpose"
    assert d.corrections == []  # corrections keep their status; the cluster is remembered
    assert any(r["rule"] == CI and r["corrections"] == rule.evidence for r in q.rejections(store))
    assert statuses(store) == status_before
    with pytest.raises(UserError, match="only candidate rules can be rejected"):
        reject(config, store, BACKUP, "no")
    changeset.undo(config, store)
    assert snapshot(config) == before
    assert get_rule(store, CI).status == "candidate"


def test_supersede_retire_and_link(learn_vault):
    config, store = learn_vault
    # approve the CI candidate as superseding the active backup rule (a person may choose any active rule)
    d = approve(config, store, CI, supersedes=BACKUP, today=TODAY)
    assert d.action == "supersede" and d.retired == [BACKUP]
    assert get_rule(store, BACKUP).status == "retired"
    assert get_rule(store, CI).supersedes == [BACKUP]
    assert get_rule(store, BACKUP).superseded_by == [CI]
    assert {r.id for r in doctrine(config, store).rules} == {CI, "rules/verify-full-cert-chain"}
    changeset.undo(config, store)
    assert get_rule(store, BACKUP).status == "active"

    # the inbox's "link to rule": October migration corrections become evidence of the backup rule
    link = ["corrections/2026-10-05-schema-only-dump", "corrections/2026-10-26-empty-dump-file"]
    d = link_corrections(config, store, BACKUP, link)
    assert sorted(d.corrections) == link
    assert set(link) <= set(get_rule(store, BACKUP).evidence)
    assert all(statuses(store)[c] == "promoted" for c in link)
    with pytest.raises(UserError, match="already linked"):
        link_corrections(config, store, BACKUP, link)
    with pytest.raises(UserError, match="dismissed"):
        link_corrections(config, store, BACKUP, ["corrections/2026-09-25-no-channel-wide-ping"])

    retire(config, store, BACKUP, "covered by the runbook now", today=TODAY)
    assert BACKUP not in {r.id for r in doctrine(config, store).rules}
    assert {r.id for r in list_rules(store, "retired")} >= {BACKUP, "rules/verify-leaf-cert"}


def test_cli_rules_approve_reject(learn_vault):
    config, store = learn_vault
    from brainwork.cli import cli

    store.close()  # the CLI opens the store itself (one Database per path per process)
    runner = CliRunner()
    v = ["--vault", str(config.vault)]
    res = runner.invoke(cli, ["rules", "--status", "candidate", "--json", *v])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert {r["id"] for r in data["rules"]} == {CI, WRITING}
    assert set(data) == {"rules", "pruning", "doctrine", "replay"}
    res = runner.invoke(cli, ["approve", CI, *v])
    assert res.exit_code == 0 and "approved rules/read-ci-log-before-rerun" in res.output
    res = runner.invoke(cli, ["reject", WRITING, *v])
    assert res.exit_code == 2 and "--reason" in res.output
    res = runner.invoke(cli, ["reject", WRITING, "--reason", "too broad", "--json", *v])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["action"] == "reject"
    res = runner.invoke(cli, ["approve", "rules/no-such-rule", *v])
    assert res.exit_code == 2 and "no page named" in res.output
    res = runner.invoke(cli, ["rules", "--json", *v])
    by_id = {r["id"]: r for r in json.loads(res.output)["rules"]}
    assert by_id[CI]["status"] == "active" and by_id[WRITING]["status"] == "rejected"
    assert by_id[WRITING]["rejected_reason"] == "too broad"
