"""Batch triage (service/triage.py) and the read-model helpers behind the
panes' marks, proposals and rule ranking, on a real store of a sample_vault
copy (lexical embeddings: the ranking's fallback is tested here, the
cosine ranking in the workbench tests with the real model)."""

from __future__ import annotations

import pytest

from brainwork.config import load_config
from brainwork.errors import UserError
from brainwork.index.sync import sync
from brainwork.learn.inbox import inbox
from brainwork.ops import changeset
from brainwork.service import triage
from brainwork.service.views import Marks, RuleChoice, draft_from_quote, inbox_counts, rank_rules
from brainwork.store import Store


@pytest.fixture
def vault(sample_vault_copy):
    config = load_config(sample_vault_copy)
    store = Store(config.store)
    sync(config, store)
    yield config, store
    store.close()


def _bytes(config) -> dict[str, bytes]:
    return {str(p.relative_to(config.vault)): p.read_bytes() for p in config.vault.rglob("*.md")
            if ".brainwork" not in p.parts}


def test_marks_toggle_range_and_keep() -> None:
    m = Marks()
    order = ["a", "b", "c", "d", "e"]
    assert m.toggle("b") is True
    assert m.mark_range(order, "d") == 2  # c and d join b
    assert list(m) == ["b", "c", "d"]
    assert m.toggle("c") is False and "c" not in m
    m.keep(["a", "b"])
    assert list(m) == ["b"] and m.anchor is None
    assert m.mark_range(order, "e") == 1  # no anchor: only the row itself
    assert m.clear() == 2 and not m


def test_draft_from_quote() -> None:
    d = draft_from_quote("no, check the chain the balancer serves because clients only see the balancer")
    assert d.wrong == "no, check the chain the balancer serves because clients only see the balancer"
    assert d.correct == "Check the chain the balancer serves"
    assert d.why == "Clients only see the balancer"
    # fields a person already wrote win; a bare "no" drafts nothing
    assert draft_from_quote("no", correct="Ask first").correct == "Ask first"
    assert draft_from_quote("no").correct == "" and draft_from_quote("no").why == ""


def test_batch_dismiss_is_one_operation_and_one_undo(vault) -> None:
    config, store = vault
    before = _bytes(config)
    items = inbox(store)
    counts = inbox_counts(items)
    assert (counts.open, counts.clustered, counts.proposed) == (7, 8, 0)
    ids = [i.id for i in items[:3]]
    result = triage.dismiss_corrections(config, store, ids + ["tasks/2026-09-02-renew-cert-billing-api"], "one-offs",
                                        today="2026-12-01")
    assert result.done == ids
    assert [s.id for s in result.skipped] == ["tasks/2026-09-02-renew-cert-billing-api"]
    assert result.operation.kind == "dismiss-corrections" and len(result.operation.paths) == 3
    assert inbox_counts(inbox(store)).open + inbox_counts(inbox(store)).clustered == 12
    changeset.undo(config, store)
    assert _bytes(config) == before
    with pytest.raises(UserError):
        triage.dismiss_corrections(config, store, ["tasks/2026-09-02-renew-cert-billing-api"])


def test_batch_fix_and_batch_dismiss_findings(vault) -> None:
    from brainwork.analysis.findings import check
    from brainwork.store import dismissals

    config, store = vault
    before = _bytes(config)
    found = list(check(config, store))
    fixable = [f for f in found if triage.suggested_fix(f, config.page_types)]
    assert {f.code for f in fixable} >= {"untyped", "diary-title"}
    result = triage.apply_suggested_fixes(config, store, found)
    assert set(result.done) == {f.key for f in fixable} - {s.id for s in result.skipped}
    assert result.operation.kind == "batch-fix"
    assert any(s.reason == "no suggested fix" for s in result.skipped)
    after = {f.key for f in check(config, store)}
    assert not set(result.done) & after
    changeset.undo(config, store)
    assert _bytes(config) == before

    keys = [f.key for f in found if f.code == "dead-link"]
    triage.dismiss_findings(config, store, keys, "known")
    assert set(keys) <= {d.key for d in dismissals.dismissals(store)}
    changeset.undo(config, store)
    assert not set(keys) & {d.key for d in dismissals.dismissals(store)}


def test_rank_rules_falls_back_to_word_overlap(vault) -> None:
    config, store = vault
    item = next(i for i in inbox(store) if i.id == "corrections/2026-10-26-empty-dump-file")
    rules = [
        RuleChoice("rules/verify-full-cert-chain", "Verify the full certificate chain", "active", "Inspect the chain."),
        RuleChoice("rules/backup-and-dry-run-before-migration", "Back up and rehearse before a production migration",
                   "active", "Take a backup of the database and restore it before any migration."),
    ]
    ranked = rank_rules(store, rules, [item])  # nothing embedded in this store
    assert ranked[0].rule.id == "rules/backup-and-dry-run-before-migration"
    assert {r.basis for r in ranked} == {"words"}
