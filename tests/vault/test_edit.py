"""Span edits: only the lines/spans that must change do; YAML is never re-dumped."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from brainwork.vault.edit import (
    EditError,
    add_to_list_field,
    field_block,
    frontmatter_fields,
    remove_from_list_field,
    render_scalar,
    replace_spans,
    set_field,
)

DOC = (
    "---\n"
    "title: Old  \n"
    "# a comment stays\n"
    "aliases:\n"
    "  - First\n"
    "  - Second\n"
    "\n"
    "tags: [a, b]\n"
    "used: \"[[Tool]]\"\n"
    "note: |\n"
    "  multi\n"
    "  line\n"
    "---\n"
    "Body [[Link]] text\n"
)


def _lines_changed(a: str, b: str) -> list[str]:
    import difflib

    return [l for l in difflib.ndiff(a.splitlines(True), b.splitlines(True)) if l[:1] in "+-"]


def test_set_field_replaces_only_that_line() -> None:
    out = set_field(DOC, "title", "New Title")
    assert _lines_changed(DOC, out) == ["- title: Old  \n", "+ title: New Title\n"]
    assert frontmatter_fields(out)["title"] == "New Title"


def test_set_field_keeps_quote_style_and_quotes_when_needed() -> None:
    out = set_field(DOC, "used", "[[Other]]")
    assert 'used: "[[Other]]"\n' in out
    out = set_field(DOC, "title", "1984")
    assert frontmatter_fields(out)["title"] == "1984"
    assert yaml.safe_load(out.split("---\n")[1])["title"] == "1984"  # still text for core-schema readers
    for tricky in ("yes", "a: b", "#hash", "x # y", "'quoted'", '"dq"', "- dash", "null", "2026-07-29", " pad", "tab\tin", "ü ✓"):
        got = frontmatter_fields(set_field(DOC, "title", tricky))["title"]
        assert got == tricky, tricky


def test_set_field_multiline_block_and_removal() -> None:
    out = set_field(DOC, "note", "single")
    assert "note: single\n---\n" in out and "multi" not in out
    out = set_field(DOC, "aliases", None)
    assert "aliases" not in out and "First" not in out
    assert out.count("\n") == DOC.count("\n") - 3
    assert "\n\ntags: [a, b]" in out  # the blank line before tags is not the key's


def test_set_field_new_key_and_new_block() -> None:
    out = set_field(DOC, "type", "task")
    assert out.endswith("note: |\n  multi\n  line\ntype: task\n---\nBody [[Link]] text\n")
    assert set_field("plain body\n", "type", "task") == "---\ntype: task\n---\nplain body\n"
    assert set_field("plain body\n", "type", None) == "plain body\n"
    assert set_field("---\n---\nx\n", "title", "T") == "---\ntitle: T\n---\nx\n"


def test_crlf_and_bom_are_kept() -> None:
    doc = "\ufeff" + DOC.replace("\n", "\r\n")
    out = set_field(doc, "title", "New")
    assert out.startswith("\ufeff---\r\ntitle: New\r\n")
    assert "\n" not in out.replace("\r\n", "")
    out = add_to_list_field(doc, "aliases", "Third")
    assert "  - Second\r\n  - Third\r\n\r\ntags" in out
    assert set_field("\ufeffx\r\n", "type", "task") == "\ufeff---\r\ntype: task\r\n---\r\nx\r\n"


def test_add_to_list_field_forms() -> None:
    out = add_to_list_field(DOC, "aliases", "Old")
    assert _lines_changed(DOC, out) == ["+   - Old\n"]
    assert add_to_list_field(DOC, "aliases", "first") == DOC  # already there (case-insensitive)
    out = add_to_list_field(DOC, "tags", "c")
    assert "tags: [a, b, c]\n" in out
    out = add_to_list_field(DOC, "used", "[[Second Tool]]")
    assert frontmatter_fields(out)["used"] == ["[[Tool]]", "[[Second Tool]]"]
    out = add_to_list_field(DOC, "promoted_from", "[[c-1]]")
    assert frontmatter_fields(out)["promoted_from"] == ["[[c-1]]"]
    out = add_to_list_field("no frontmatter\n", "aliases", "A")
    assert frontmatter_fields(out) == {"aliases": ["A"]}


def test_remove_from_list_field() -> None:
    out = remove_from_list_field(DOC, "aliases", "First")
    assert _lines_changed(DOC, out) == ["-   - First\n"]
    out = remove_from_list_field(out, "aliases", "Second")
    assert "aliases" not in frontmatter_fields(out)
    out = remove_from_list_field(DOC, "used", "[[Tool]]")
    assert "used" not in out
    assert remove_from_list_field(DOC, "tags", "zzz") == DOC
    assert frontmatter_fields(remove_from_list_field(DOC, "tags", "a"))["tags"] == ["b"]


def test_field_block_and_errors() -> None:
    assert field_block(DOC, "aliases") == "aliases:\n  - First\n  - Second\n"
    assert field_block(DOC, "missing") is None
    with pytest.raises(EditError):
        set_field(DOC, "bad key", "x")
    with pytest.raises(EditError):
        frontmatter_fields("---\na: [unclosed\n---\n")


def test_replace_spans() -> None:
    assert replace_spans("hello world", [(6, 11, "there"), (0, 5, "HI")]) == "HI there"
    with pytest.raises(EditError):
        replace_spans("hello", [(0, 3, "x"), (2, 4, "y")])
    with pytest.raises(EditError):
        replace_spans("hello", [(0, 9, "x")])


@settings(max_examples=150, deadline=None)
@given(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30))
def test_render_scalar_round_trips(value: str) -> None:
    line = f"k: {render_scalar(value)}"
    assert yaml.load(line, Loader=yaml.BaseLoader) == {"k": value}
    doc = set_field(DOC, "title", value)
    assert frontmatter_fields(doc)["title"] == value
    assert doc.split("title:", 1)[0] == "---\n"
    assert doc.endswith("---\nBody [[Link]] text\n")
