"""The doctrine: exactly the active rules, most corrected first, within a
hard budget, and scoped to a project when asked (``--cwd``)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from brainwork.learn.doctrine import doctrine, doctrine_from_vault, in_scope, project_of, tokens_of
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
    # most corrected first, then newest
    evidence = {r.id: r.evidence for r in doc.rules}
    assert [r.evidence for r in doc.rules] == sorted(evidence.values(), reverse=True)
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
    doc = doctrine(sample_config, sample_store, budget=250)  # one of the two rules fits
    assert doc.over_budget and len(doc.text) <= 1000 and doc.omitted and doc.rules
    warning = doc.warning()
    costliest = doc.costliest(1)[0]
    assert costliest.id == "rules/backup-and-dry-run-before-migration"
    assert warning.startswith(f"doctrine is ~{doc.tokens} tokens, over the budget of 250")
    assert costliest.id in warning


def test_approved_rule_joins_the_doctrine(learn_vault):
    config, store = learn_vault
    approve(config, store, "rules/read-ci-log-before-rerun", today="2026-11-29")
    ids = [r.id for r in doctrine(config, store).rules]
    assert "rules/read-ci-log-before-rerun" in ids and set(ids) == active_in_vault(config)


def test_cli_doctrine(sample_config):
    from brainwork.cli import cli

    runner = CliRunner()
    v = ["--vault", str(sample_config.vault)]
    res = runner.invoke(cli, ["doctrine", *v])
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("# Doctrine") and "rules/verify-full-cert-chain" in res.stdout
    assert "doctrine: 2 active rules" in res.stderr and "doctrine:" not in res.stdout
    # the size in the budget's unit (tokens), not characters beside a budget in tokens
    assert f"~{tokens_of(res.stdout):,} of the 2,500 token budget" in res.stderr and "characters" not in res.stderr
    res = runner.invoke(cli, ["doctrine", "--format", "json", "--budget", "50", *v])
    assert res.exit_code == 0
    data = json.loads(res.stdout)
    assert data["text_tokens"] == tokens_of(data["text"]) <= 50
    assert data["over_budget"] is True and data["rules"] == [] and data["omitted_count"] == 2
    assert len(data["text"]) <= 200 and "2 more active rules left out" in data["text"]
    assert {"rules", "tokens", "budget", "over_budget", "text"} <= set(data) and data["unit"] == "tokens"
    # no rule fits: one line says so and what budget the first rule needs, no "~N of the budget" beside it
    first = data["omitted"][0]
    cost = {r["id"]: r["tokens"] for r in json.loads(runner.invoke(cli, ["doctrine", "--format", "json", *v]).stdout)["rules"]}
    assert res.stderr.strip().splitlines() == [
        f"brainwork: warning: no rule printed, only the line saying so: the first rule, {first} "
        f"(~{cost[first]} tokens), needs a budget of {data['needs']} or more with the heading "
        "(the budget is 50; 2 active rules left out)"
    ]
    assert "of the 50 token budget" not in res.stderr
    fits = json.loads(runner.invoke(cli, ["doctrine", "--format", "json", "--budget", str(data["needs"]), *v]).stdout)
    assert [r["id"] for r in fits["rules"]] == [first] and fits["needs"] is None
    short = json.loads(runner.invoke(cli, ["doctrine", "--format", "json", "--budget", str(data["needs"] - 1), *v]).stdout)
    assert short["rules"] == [] and short["needs"] == data["needs"]


def test_budget_is_a_hard_cap_on_stdout_most_corrected_first(rulebook, doctrine_cli):
    vault = rulebook()
    full = doctrine_cli(vault, "--budget", "100000")
    assert full.returncode == 0 and "(11)" in full.stdout
    for budget in (50, 300, 600):
        res = doctrine_cli(vault, "--budget", str(budget))
        assert res.returncode == 0, res.stderr
        assert len(res.stdout) <= 4 * budget, (budget, len(res.stdout))
        assert "left out" in res.stdout and "brainwork doctrine --budget" in res.stdout
    res = doctrine_cli(vault, "--budget", "600")
    shown = [line.split("(rules/")[1].split(")")[0] for line in res.stdout.splitlines() if "(rules/" in line]
    assert shown and shown == [f"r{k:02d}" for k in range(11, 11 - len(shown), -1)]  # most evidence first
    left = 11 - len(shown)
    assert f"({left} more active rules left out" in res.stdout
    data = json.loads(doctrine_cli(vault, "--format", "json", "--budget", "600").stdout)
    assert [r["id"] for r in data["rules"]] == [f"rules/{s}" for s in shown] and data["omitted_count"] == left
    # the default fits a hook
    default = doctrine_cli(vault)
    assert len(default.stdout) <= 10_000
    # the store-free fallback agrees
    from brainwork.config import load_config
    from brainwork.store import Store

    config = load_config(vault)
    with Store(config.store) as store:
        assert doctrine(config, store, 600).text == doctrine_from_vault(config, 600).text == res.stdout


def test_scope_with_cwd(rulebook, doctrine_cli, tmp_path):
    vault = rulebook(n=3, scoped={
        2: "scope: [payments-service]\n",
        3: "scope:\n  - '*/infra/*'\n",
    })
    repo = tmp_path / "src" / "payments-service"
    (repo / ".git").mkdir(parents=True)
    (repo / "lib" / "deep").mkdir(parents=True)
    other = tmp_path / "src" / "website"
    other.mkdir(parents=True)
    infra = tmp_path / "ops" / "infra" / "dns"
    infra.mkdir(parents=True)
    assert project_of(repo / "lib" / "deep") == (repo.resolve(), "payments-service")
    assert project_of(other)[1] == "website"

    def ids(cwd):
        out = doctrine_cli(vault, "--format", "json", *(["--cwd", str(cwd)] if cwd else []))
        assert out.returncode == 0, out.stderr
        return sorted(r["id"] for r in json.loads(out.stdout)["rules"]), json.loads(out.stdout)

    assert ids(None)[0] == ["rules/r01", "rules/r02", "rules/r03"]  # no cwd: no scope applied
    got, data = ids(repo / "lib" / "deep")
    assert got == ["rules/r01", "rules/r02"] and data["project"] == "payments-service" and data["out_of_scope"] == 1
    assert ids(other)[0] == ["rules/r01"]
    assert ids(infra)[0] == ["rules/r01", "rules/r03"]
    # the store-free fallback applies the same scope
    from brainwork.config import load_config

    config = load_config(vault)
    assert sorted(r.id for r in doctrine_from_vault(config, cwd=repo).rules) == ["rules/r01", "rules/r02"]
    assert in_scope([], other) and in_scope(["Payments-Service"], repo) and not in_scope(["payments-service"], other)
