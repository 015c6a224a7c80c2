"""Search compares names and queries in one Unicode form (NFC): a query
typed decomposed ("e" plus a combining accent, as some keyboards and macOS
file names give it) finds the page written composed, and back."""

from __future__ import annotations

import json
import unicodedata

import pytest
from click.testing import CliRunner

from brainwork.cli import cli

NFC, NFD = (lambda s: unicodedata.normalize("NFC", s)), (lambda s: unicodedata.normalize("NFD", s))


@pytest.fixture
def search(make_vault):
    vault = make_vault({
        "places/café.md": f"# {NFC('café')}\n\nWhere the team meets.\n",
        "tools/certbot.md": f"---\ntitle: {NFD('certbót')}\n---\nA client.\n",  # stored decomposed
        "Home.md": "# Home\n\n[[café]] [[certbot]]\n",
    })
    runner = CliRunner()

    def run(query: str) -> list[dict]:
        out = runner.invoke(cli, ["--vault", str(vault), "search", query, "--json"], catch_exceptions=False)
        assert out.exit_code == 0, out.output
        return json.loads(out.stdout)

    return run


@pytest.mark.parametrize("form", [NFC, NFD])
def test_either_form_of_the_query_finds_the_whole_name(search, form) -> None:
    hits = search(form("café"))
    assert (hits[0]["id"], hits[0]["score"]) == ("places/café", 100.0)
    hits = search(form("certbót"))
    assert (hits[0]["id"], hits[0]["score"]) == ("tools/certbot", 100.0)
