"""``brainwork search``: fuzzy page search over titles, aliases and ids."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from brainwork.cli import cli

FILES = {
    "tools/certbot.md": "---\ntitle: certbot\ntype: tool\naliases: [letsencrypt client]\n---\n",
    "tasks/2026-09-02-renew-cert.md": "---\ntitle: Renew the api certificate\ntype: task\n---\n",
    "rules/verify-chain.md": "---\ntitle: Verify the full certificate chain\ntype: rule\nstatus: active\n---\n",
    "Home.md": "# Home\n",
}


@pytest.fixture
def run(make_vault):
    vault = make_vault(FILES)
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(cli, ["--vault", str(vault), *args], catch_exceptions=False)

    return invoke


def test_search_ranks_titles_aliases_and_ids(run):
    out = run("search", "certbot", "--json")
    assert out.exit_code == 0, out.output
    hits = json.loads(out.stdout)
    assert hits[0]["id"] == "tools/certbot" and hits[0]["type"] == "tool" and hits[0]["score"] == 100
    assert json.loads(run("search", "letsencrypt client", "--json").stdout)[0]["id"] == "tools/certbot"
    assert json.loads(run("search", "2026-09-02-renew", "--json").stdout)[0]["id"] == "tasks/2026-09-02-renew-cert"
    text = run("search", "certificate", "chain").stdout.splitlines()
    assert text[0].split()[1] == "rules/verify-chain" and text[0].endswith("[rule]")


def test_search_filters_by_type_and_limits(run):
    hits = json.loads(run("search", "cert", "--type", "task", "--json").stdout)
    assert [h["id"] for h in hits] == ["tasks/2026-09-02-renew-cert"]
    assert len(json.loads(run("search", "cert", "--limit", "1", "--json").stdout)) == 1


def test_search_user_errors_are_one_line(run):
    for args, message in ((["search", "x", "--type", "nope"], "unknown type 'nope'"),
                          (["search", "  "], "give something to search for")):
        out = run(*args)
        assert out.exit_code == 2 and message in out.stderr and len(out.stderr.strip().splitlines()) == 1
    out = run("search", "zzzzqqqq")
    assert out.exit_code == 0 and out.stdout == "" and "no page matches" in out.stderr
