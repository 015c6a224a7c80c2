"""``brainwork search`` with a query that has no word to match ('[[', '--'):
no page matches, said as for any other query without a match."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from brainwork.analysis.search import PageSearch
from brainwork.cli import cli
from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.store import graph


@pytest.fixture
def vault(make_vault):
    return make_vault({"Home.md": "# Home\n\n[[Notes]]\n", "Notes.md": "# Notes\n\nSome notes.\n"})


@pytest.mark.parametrize("query", ["[[", "--", "#", "!? ..."])
def test_a_query_without_words_matches_no_page(vault, query) -> None:
    runner = CliRunner()
    out = runner.invoke(cli, ["--vault", str(vault), "search", "--", query], catch_exceptions=False)
    assert out.exit_code == 0 and out.stdout == "", out.output
    assert out.stderr == f"no page matches {query!r} (it has no letter or digit to match)\n"
    out = runner.invoke(cli, ["--vault", str(vault), "search", "--json", "--", query], catch_exceptions=False)
    assert out.exit_code == 0 and json.loads(out.stdout) == []


def test_an_empty_query_still_lists_pages_for_a_picker(vault, store, tmp_path) -> None:
    config = load_config(vault, tmp_path / "store")
    sync(config, store)
    search = PageSearch(graph.list_pages(store))
    assert {h.id for h in search.search("")} == {"Home", "Notes"}  # what a picker shows before typing
    assert search.search("[[") == []
