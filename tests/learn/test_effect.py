"""Does a rule help? Before/after corrections per task, and pruning (issue 4 §5, §7).

sample_vault/ holds dated history: the certificate-chain rule (active
2026-09-20) was followed by renewals without chain corrections; the backup
rule (active 2026-09-25) was followed by migrations that still got backup
corrections.
"""

from __future__ import annotations

from brainwork.learn.effect import rule_effects
from brainwork.learn.prune import suggestions
from brainwork.learn.rules import overview

CERT = "rules/verify-full-cert-chain"
BACKUP = "rules/backup-and-dry-run-before-migration"


def test_cert_rule_helped_backup_rule_did_not(embedded_sample):
    config, store = embedded_sample
    effects = rule_effects(config, store)
    assert set(effects) == {CERT, BACKUP}
    cert, backup = effects[CERT], effects[BACKUP]
    for e in (cert, backup):
        assert e.tasks_before >= 3 and e.tasks_after >= 3
    assert cert.after < cert.before and cert.helped is True
    assert cert.after == 0  # no chain correction after the rule; the two others are of other kinds
    assert cert.all_after > cert.after
    assert backup.after >= backup.before and backup.helped is False
    assert backup.corrections_after >= 2
    # the task class: renewals for the cert rule, migrations for the backup rule
    cert_class = {t for t, _ in cert.task_class}
    assert {"tasks/2026-10-13-renew-cert-billing-api", "tasks/2026-10-28-renew-cert-edge-proxy"} <= cert_class
    assert not any("migrate" in t for t in cert_class)
    backup_class = {t for t, _ in backup.task_class}
    assert {"tasks/2026-10-05-migrate-orders-db-pg16", "tasks/2026-10-26-migrate-portal-users-email-lowercase"} <= backup_class
    assert not any("renew-cert" in t or "blog" in t for t in backup_class)
    assert set(cert.source_tasks) <= cert_class


def test_rules_json_shows_effect_and_pruning(embedded_sample):
    config, store = embedded_sample
    data = overview(config, store, today="2026-11-29")
    by_id = {r["id"]: r for r in data["rules"]}
    for rid in (CERT, BACKUP):
        r = by_id[rid]
        assert {"before", "after", "tasks_before", "tasks_after", "all_before", "all_after"} <= set(r)
        assert r["doctrine_tokens"] > 0
    assert by_id[CERT]["after"] < by_id[CERT]["before"]
    assert by_id[BACKUP]["after"] >= by_id[BACKUP]["before"]
    assert by_id["rules/cite-sources-in-posts"]["before"] is None  # candidates have no effect yet
    assert data["pruning"] == []  # both rules had matching tasks in October


def test_stale_and_overlapping_rules_are_suggested(embedded_sample):
    config, store = embedded_sample
    later = suggestions(config, store, today="2027-06-01")
    retire = {s.rules[0]: s for s in later if s.kind == "retire"}
    assert set(retire) == {CERT, BACKUP}
    assert retire[CERT].last_activity == "2026-10-28" and retire[CERT].days > config.thresholds.rule_stale_days
    from dataclasses import replace

    # two active rules this similar overlap (threshold lowered to the pair's similarity)
    loose = replace(config, thresholds=replace(config.thresholds, rule_overlap_similarity=0.1))
    merge = [s for s in suggestions(loose, store, today="2026-11-29") if s.kind == "merge"]
    assert merge and set(merge[0].rules) == {CERT, BACKUP}
    assert not [s for s in suggestions(config, store, today="2026-11-29") if s.kind == "merge"]
