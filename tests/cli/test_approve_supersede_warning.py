"""``approve --supersedes`` of a rule teaching another lesson is the
person's choice, and they are told what it replaces: a warning on stderr
names both rules and their similarity, on the dry run and on the approval;
a supersession of the same lesson, or no supersession, says nothing."""

from __future__ import annotations

from click.testing import CliRunner

from brainwork.cli import cli

WARNING = "brainwork: warning:"


def _approve(vault, *args):
    r = CliRunner().invoke(cli, ["--vault", str(vault), "approve", "rules/cite-sources-in-posts", *args],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r


def test_superseding_an_unrelated_rule_warns_and_still_retires_it(embedded_vault_copy) -> None:
    dry = _approve(embedded_vault_copy, "--supersedes", "rules/verify-full-cert-chain", "--dry-run")
    assert WARNING in dry.stderr and "do not teach the same lesson" in dry.stderr
    assert "“Every figure and quote in a post needs a source”" in dry.stderr
    assert "“Verify the full certificate chain as clients see it”" in dry.stderr
    done = _approve(embedded_vault_copy, "--supersedes", "rules/verify-full-cert-chain")
    assert "retired rules/verify-full-cert-chain" in done.stdout
    assert WARNING in done.stderr and "superseding retires the older rule all the same" in done.stderr


def test_a_plain_approve_says_nothing_of_superseding(embedded_vault_copy) -> None:
    r = _approve(embedded_vault_copy)
    assert WARNING not in r.stderr and "retired" not in r.stdout
