"""Page search ranks word matches in a title or alias above matches inside
a word, and returns no page that does not match at all (known answers on a
copy of sample_vault/)."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from brainwork.analysis.search import PageSearch
from brainwork.cli import cli
from brainwork.config import load_config
from brainwork.store import Store, graph

EDI_TASKS = {"tasks/2026-10-06-renew-cert-edi-endpoint", "tasks/2026-09-09-renew-cert-edi-endpoint"}
TLS_TASKS = {"tasks/2026-09-02-renew-cert-billing-api", "tasks/2026-09-05-renew-cert-customer-portal"}
INTERMEDIATE = "problems/expired-intermediate-cert"  # "edi" inside its alias "missing intermediate"


@pytest.fixture(scope="module")
def vault(indexed_template, tmp_path_factory):
    root = tmp_path_factory.mktemp("search") / "sample_vault"
    shutil.copytree(indexed_template, root)
    return root


@pytest.fixture(scope="module")
def pages(vault):
    config = load_config(vault)
    with Store(config.store, read_only=True) as store:
        return {None: graph.list_pages(store), "tool": graph.list_pages(store, "tool")}


def ids(pages, query: str, type_: str | None = None, limit: int = 10) -> list[str]:
    return [h.id for h in PageSearch(pages[type_]).search(query, limit)]


def test_a_whole_word_in_the_title_outranks_letters_inside_a_word(pages) -> None:
    found = ids(pages, "EDI")
    assert set(found[:2]) == EDI_TASKS
    assert INTERMEDIATE in found[2:]


def test_word_starts_in_any_order_and_initials(pages) -> None:
    assert ids(pages, "cert chain")[0] == "rules/verify-full-cert-chain"
    assert ids(pages, "chain cert")[0] == "rules/verify-full-cert-chain"
    assert set(ids(pages, "rtc")[:2]) == TLS_TASKS  # Renew TLS Certificate ...
    assert ids(pages, "certbot")[0] == "tools/certbot"


def test_typos_and_pieces_of_words_still_match_below_word_matches(pages) -> None:
    assert ids(pages, "certbto")[0] == "tools/certbot"
    assert INTERMEDIATE in ids(pages, "mediate")[:3]
    hits = PageSearch(pages[None]).search("EDI", 10)
    words = [h.score for h in hits if h.id in EDI_TASKS]
    assert min(words) > max(h.score for h in hits if h.id not in EDI_TASKS)


def test_a_type_filter_returns_only_pages_that_match(pages) -> None:
    assert ids(pages, "cert", "tool") == ["tools/certbot"]
    assert ids(pages, "zzqx") == []


def test_the_command_ranks_the_same(vault) -> None:
    base = ["--vault", str(vault)]
    r = CliRunner().invoke(cli, ["search", *base, "--json", "--limit", "6", "EDI"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert {h["id"] for h in json.loads(r.output)[:2]} == EDI_TASKS
    r = CliRunner().invoke(cli, ["search", *base, "--json", "--type", "tool", "cert"], catch_exceptions=False)
    assert [h["id"] for h in json.loads(r.output)] == ["tools/certbot"]
