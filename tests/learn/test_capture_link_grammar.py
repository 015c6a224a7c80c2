"""Capture reads the page a field names (``"used": "[[tools/x|x]]"``) with
the index's link grammar (:func:`brainwork.vault.links.split_inner`), so a
link written in a record names the page the same link names in a note."""

from __future__ import annotations

import pytest

from brainwork.learn.capture import plan
from brainwork.vault.parse import parse_text

TRICKY = [
    "[[a|b|c]]",
    "[[a#h|x]]",
    "[[a\\|b]]",  # as written inside a table cell
    "![[img.png]]",
    "[[ a ]]",
    "[[a#^block|x]]",
    "[[ folder/a b #h | x ]]",
    "![[a#h]]",
]


def _index_target(raw: str) -> str:
    """The target the indexer reads for ``raw`` written in a note's table row."""
    (link,) = parse_text("p.md", f"| col |\n| --- |\n| {raw} |\n".encode("utf-8")).links
    return link.target


@pytest.mark.parametrize("raw", TRICKY)
def test_capture_asks_for_the_page_the_index_reads(sample_config, raw):
    asked: list[str] = []

    def find(name: str) -> str:
        asked.append(name)
        return "tools/found"

    _, text, links, _ = plan(sample_config, find, "task", {"request": "r", "summary": "s", "used": [raw, f"  {raw} "]})
    assert asked == [_index_target(raw)] * 2
    assert links == {"used": ["tools/found"]}
    assert 'used: "[[tools/found]]"' in text


def test_a_bare_name_is_split_like_a_link_inside(sample_config):
    asked: list[str] = []
    plan(sample_config, lambda n: asked.append(n) or "tools/found", "task",
         {"request": "r", "summary": "s", "used": ["a#h", "b|label", " c "]})
    assert asked == ["a", "b", "c"]
