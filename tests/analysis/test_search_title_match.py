"""Palette search: a short title inside the query does not match, longer
names still match by part."""

from __future__ import annotations

from brainwork.analysis.search import PageSearch
from brainwork.store.graph import PageRow

def _page(id_: str, title: str, type_: str, aliases: list[str]) -> PageRow:
    return PageRow(id_, id_ + ".md", "page", title, type_, None, aliases, [], None)


PAGES = [
    _page("tools/certbot", "certbot", "tool", []),
    _page("sources/blog-certbot-nginx", "Blog: Setting up certbot with nginx", "source", []),
    _page("tasks/2026-13-45-r", "r", "task", []),
    _page("tasks/x", "...", "task", ["c"]),
    _page("rules/verify-full-cert-chain", "Verify the full certificate chain", "rule", []),
]


def test_a_short_title_inside_the_query_does_not_match():
    """A page titled "r" scored 90 for "certbot" (WRatio matched "r" inside
    the query) and ranked above real matches."""
    ids = [h.id for h in PageSearch(PAGES).search("certbot")]
    assert ids[:2] == ["tools/certbot", "sources/blog-certbot-nginx"]
    assert "tasks/2026-13-45-r" not in ids and "tasks/x" not in ids


def test_longer_names_still_match_by_part():
    s = PageSearch(PAGES)
    assert s.search("cert chain")[0].id == "rules/verify-full-cert-chain"
    assert s.search("r")[0].id == "tasks/2026-13-45-r"  # an exact short name still wins
