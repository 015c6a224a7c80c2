"""The doctrine holds exactly the active rules (issue 4 §5)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from brainwork.learn.doctrine import doctrine, doctrine_from_vault, tokens_of
from brainwork.learn.rules import approve
from brainwork.vault.parse import parse_file


def active_in_vault(config) -> set[str]:
    out = set()
    for path in config.vault.rglob("*.md"):
        rel = path.relative_to(config.vault).as_posix()
        if ".brainwork" in rel:
            continue
        page = parse_file(config.vault, rel)
        if page.type == "rule" and page.fields.get("status") == "active":
            out.add(page.id)
    return out


def test_exactly_the_active_rules(sample_config, sample_store):
    config, store = sample_config, sample_store
    doc = doctrine(config, store)
    ids = [r.id for r in doc.rules]
    assert set(ids) == active_in_vault(config) == {"rules/verify-full-cert-chain", "rules/backup-and-dry-run-before-migration"}
    assert ids == ["rules/verify-full-cert-chain", "rules/backup-and-dry-run-before-migration"]  # by activation date
    for r in doc.rules:
        assert r.rule in doc.text and f"({r.id})" in doc.text
    for absent in ("rules/verify-leaf-cert", "rules/cite-sources-in-posts", "rules/retry-failed-ci-jobs-automatically"):
        assert absent not in doc.text
    assert doc.tokens == tokens_of(doc.text) and not doc.over_budget and doc.warning() is None
    assert sum(r.tokens for r in doc.rules) < doc.tokens
    data = doc.to_json()
    assert [r["id"] for r in data["rules"]] == ids and data["budget"] == config.thresholds.doctrine_budget_tokens
    # the same block without the store (a session hook while the workbench holds it)
    assert doctrine_from_vault(config).text == doc.text


def test_over_budget_names_the_costliest_rules(sample_config, sample_store):
    doc = doctrine(sample_config, sample_store, budget=100)
    assert doc.over_budget
    warning = doc.warning()
    costliest = doc.costliest(1)[0]
    assert costliest.id == "rules/backup-and-dry-run-before-migration"
    assert warning.startswith(f"doctrine is ~{doc.tokens} tokens, over the budget of 100")
    assert costliest.id in warning


def test_approved_rule_joins_the_doctrine(learn_vault):
    config, store = learn_vault
    approve(config, store, "rules/read-ci-log-before-rerun", today="2026-11-29")
    ids = [r.id for r in doctrine(config, store).rules]
    assert ids[-1] == "rules/read-ci-log-before-rerun" and set(ids) == active_in_vault(config)


def test_cli_doctrine(sample_config):
    from brainwork.cli import cli

    runner = CliRunner()
    v = ["--vault", str(sample_config.vault)]
    res = runner.invoke(cli, ["doctrine", *v])
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("# Doctrine") and "rules/verify-full-cert-chain" in res.stdout
    assert "doctrine: 2 active rule(s)" in res.stderr and "doctrine:" not in res.stdout
    res = runner.invoke(cli, ["doctrine", "--format", "json", "--budget", "50", *v])
    assert res.exit_code == 0
    data = json.loads(res.stdout)
    assert data["over_budget"] is True and len(data["rules"]) == 2
    assert "warning" in res.stderr and "costliest rules" in res.stderr
