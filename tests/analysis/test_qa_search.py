"""Palette search regressions found in QA."""

from __future__ import annotations

from brainwork.analysis.search import PageSearch

PAGES = [
    {"id": "tools/certbot", "title": "certbot", "type": "tool", "aliases": []},
    {"id": "sources/blog-certbot-nginx", "title": "Blog: Setting up certbot with nginx", "type": "source", "aliases": []},
    {"id": "tasks/2026-13-45-r", "title": "r", "type": "task", "aliases": []},
    {"id": "tasks/x", "title": "...", "type": "task", "aliases": ["c"]},
    {"id": "rules/verify-full-cert-chain", "title": "Verify the full certificate chain", "type": "rule", "aliases": []},
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
