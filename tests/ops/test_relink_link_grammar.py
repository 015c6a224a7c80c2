"""Relink finds a wikilink's target text with the index's link grammar
(:func:`brainwork.vault.links.split_inner`): the span it rewrites is the
target the index read, whatever the link's label, heading, embed mark,
table escape or spacing, and retarget keeps every other byte."""

from __future__ import annotations

import pytest

from brainwork.ops import changeset as cs
from brainwork.ops import fixes
from brainwork.ops.relink import target_span
from brainwork.vault.links import WIKILINK, split_inner
from brainwork.vault.parse import parse_text

from ops_helpers import snapshot

TRICKY = [
    "[[a|b|c]]",
    "[[a#h|x]]",
    "[[a\\|b]]",
    "![[img.png]]",
    "[[ a ]]",
    "[[ a b #h | x ]]",
    "[[a#^blk|x]]",
    "[[a\\\\|b]]",  # a backslash before the escape: the target keeps one
    "[[a|`]` code]]",  # a label whose inline code holds a bracket
    "[[\u00a0a\u2003|x]]",  # Unicode spaces are trimmed like ASCII ones
]


@pytest.mark.parametrize("raw, where", [(raw, where) for raw in TRICKY for where in ("body", "table", "frontmatter")
                                        if not (where == "frontmatter" and "`" in raw)])  # inline code is body syntax
def test_target_span_is_the_target_the_index_reads(raw, where):
    if where == "body":
        text = f"# P\n\nsee {raw} here\n"
    elif where == "table":
        text = f"| a | b |\n| --- | --- |\n| {raw} | x |\n"
    else:
        text = f"---\nrelated: '{raw}'\n---\nbody\n"
    (link,) = parse_text("p.md", text.encode("utf-8")).links
    ts = target_span(text, link)
    assert ts is not None and not ts.markdown
    assert ts.text == link.target == text[ts.start : ts.end]
    m = WIKILINK.fullmatch(link.raw)
    if m:  # the inside is grammar's to split: the same target
        assert split_inner(m.group(2))[0] == link.target


@pytest.mark.parametrize("raw", ["[[ |x]]", "[[#h|x]]", "[[\\|x]]"])
def test_a_link_without_target_has_no_span(raw):
    text = f"see {raw}\n"
    (link,) = parse_text("p.md", b"see [[z]]\n").links
    assert target_span(text, link._replace(raw=raw, start=4, end=4 + len(raw))) is None


@pytest.fixture
def vault(make_vault):
    return make_vault({
        "a.md": "# a\n",
        "img.png": b"\x89PNG\r\n\x1a\n",
        "New.md": "# New\n",
        "Rows.md": "# Rows\n\n| link | note |\n| --- | --- |\n| [[a\\|b]] | [[ a ]] |\n\n"
                   "[[a|b|c]] and [[a#h|x]] and ![[a]] and [[ a #^blk | y ]]\n",
    })


def test_retarget_rewrites_only_the_target_of_each_tricky_link(env, vault):
    config, store = env
    before = snapshot(vault)
    fixes.retarget_link(config, store, "Rows", "a", "New")
    assert (vault / "Rows.md").read_text() == (
        "# Rows\n\n| link | note |\n| --- | --- |\n| [[New\\|b]] | [[ New ]] |\n\n"
        "[[New|b|c]] and [[New#h|x]] and ![[New]] and [[ New #^blk | y ]]\n"
    )
    cs.undo(config, store)
    assert snapshot(vault) == before
