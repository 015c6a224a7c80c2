"""Frontmatter as real files have it (docs/vault-format.md "Pages"), through parse_text."""

from __future__ import annotations

import pytest

from brainwork.vault.frontmatter import FrontmatterError, NotAMapping, parse_yaml, split_frontmatter
from brainwork.vault.parse import parse_text


def parse(text: str | bytes, name: str = "note.md"):
    data = text.encode("utf-8") if isinstance(text, str) else text
    return parse_text(name, data)


def test_plain_frontmatter():
    p = parse("---\ntitle: Hello\ntype: task\noutcome: success\n---\n# Heading\nbody\n")
    assert p.has_frontmatter
    assert p.fields == {"title": "Hello", "type": "task", "outcome": "success"}
    assert p.title == "Hello" and p.type == "task"
    assert p.body == "# Heading\nbody\n" and p.body_line == 6
    assert p.errors == []


def test_byte_order_mark_is_dropped():
    p = parse(b"\xef\xbb\xbf---\ntitle: Hello\n---\nbody [[x]]\n")
    assert p.has_frontmatter and p.title == "Hello"
    assert p.body == "body [[x]]\n"
    (link,) = p.links
    assert link.line == 4
    # Offsets are into the decoded text after the BOM.
    text = b"\xef\xbb\xbf---\ntitle: Hello\n---\nbody [[x]]\n".decode("utf-8")[1:]
    assert text[link.start : link.end] == "[[x]]"


def test_crlf_line_endings():
    data = b"---\r\ntitle: Hi\r\ntype: task\r\n---\r\n# H\r\n[[a|b]] and [[c]]\r\n"
    p = parse(data)
    assert p.fields == {"title": "Hi", "type": "task"}
    assert p.body_line == 5
    assert [(l.target, l.label, l.line) for l in p.links] == [("a", "b", 6), ("c", None, 6)]
    text = data.decode()
    assert all(text[l.start : l.end] == l.raw for l in p.links)


def test_crlf_heading_title_has_no_carriage_return():
    p = parse(b"# Title here\r\n\r\ntext\r\n")
    assert p.title == "Title here"


def test_empty_block():
    p = parse("---\n---\n# Heading\n[[z]]\n")
    assert p.has_frontmatter and p.fields == {} and p.errors == []
    assert p.title == "Heading"
    assert p.body_line == 3 and p.links[0].line == 4


def test_block_with_only_blank_lines_and_comments():
    p = parse("---\n\n# just a comment\n---\nbody\n")
    assert p.has_frontmatter and p.fields == {} and p.errors == []


def test_leading_rule_without_closing_fence_is_not_frontmatter():
    p = parse("---\n\nSome text\n\n[[q]]\n")
    assert not p.has_frontmatter and p.errors == []
    assert p.body.startswith("---\n") and p.body_line == 1
    assert p.links[0].line == 5


def test_leading_rule_around_a_paragraph_is_not_frontmatter():
    """``---`` / text / ``---`` is valid YAML (a plain scalar) but not a
    mapping: Markdown reads it as rule, paragraph, rule, and so do we."""
    p = parse("---\nSome text with a [[link]]\n---\nmore\n")
    assert not p.has_frontmatter and p.errors == [] and p.fields == {}
    assert p.body_line == 1
    (link,) = p.links
    assert (link.target, link.where, link.line) == ("link", "body", 2)


def test_yaml_list_block_is_frontmatter_written_wrongly():
    p = parse("---\n- a\n- b\n---\ntext\n")
    assert p.has_frontmatter and p.fields == {} and p.body == "text\n"
    assert [(e.line, e.message.split(" (")[0]) for e in p.errors] == [(2, "frontmatter must be a mapping, got a list")]


@pytest.mark.parametrize(
    "value",
    ["2026-07-29", "yes", "no", "true", "False", "on", "1984", "1.5e3", "0x1F", "12:30", "~", "null", ".inf"],
)
def test_title_that_yaml_would_convert_stays_text(value):
    p = parse(f"---\ntitle: {value}\naliases: [{value}]\ncreated: 2026-07-29\n---\n")
    assert p.title == value
    assert p.fields["title"] == value and isinstance(p.fields["title"], str)
    assert p.aliases == [value]
    assert p.fields["created"] == "2026-07-29"
    assert p.errors == []


def test_nested_values_stay_text():
    p = parse("---\ntitle: x\nn: {a: 1, b: [true, 2.5]}\n---\n")
    assert p.fields["n"] == {"a": "1", "b": ["true", "2.5"]}


def test_title_that_is_not_text_falls_back_and_is_reported_on_its_line():
    p = parse("---\ntype: task\nsummary: s\ntitle: [a, b]\n---\n# From heading\n")
    assert p.title == "From heading"
    (err,) = p.errors
    assert (err.path, err.line) == ("note.md", 4)
    assert "title" in err.message


def test_title_rule_frontmatter_then_heading_then_file_name():
    assert parse("---\ntitle: T\n---\n# H\n", "f/name.md").title == "T"
    assert parse("---\ntitle: '  '\n---\n# H\n", "f/name.md").title == "H"
    assert parse("text\n# H1 later\n## H2\n", "f/name.md").title == "H1 later"
    assert parse("## only h2\n", "f/name.md").title == "name"
    assert parse("```\n# not a heading\n```\n", "f/name.md").title == "name"
    assert parse("#hashtag\n", "f/name.md").title == "name"
    assert parse("# Closed heading ##\n", "f/name.md").title == "Closed heading"


# -- broken YAML: the error names the file and the right line ----------------
# Lines counted by hand: line 1 is the opening fence.
BROKEN = [
    # unclosed flow sequence opened on line 3
    ("---\ntitle: ok\ntags: [a, b\nfoo: bar\n---\nbody\n", 3, "flow sequence"),
    # unclosed flow mapping on line 2
    ("---\nmeta: {a: 1\nfoo: bar\n---\n", 2, "flow mapping"),
    # unterminated double quote opened on line 4
    ('---\na: 1\nb: 2\nc: "unterminated\nd: 4\n---\nbody\n', 4, "quoted scalar"),
    # mapping value on an over-indented line 3
    ("---\ntitle: ok\n  bad: indent\nfoo: bar\n---\n", 3, "mapping values"),
    # a list item dedented out of its block, line 4
    ("---\na:\n  - x\n - y\n---\n", 4, "expected key"),
    # tab used for indentation on line 3
    ("---\na: 1\n\tb: 2\n---\n", 3, "tab"),
    # undefined alias on line 5
    ("---\na: 1\nb: 2\nc: 3\nd: *nope\n---\n", 5, "alias"),
]


@pytest.mark.parametrize("text,line,fragment", BROKEN)
def test_broken_yaml_names_file_and_line(text, line, fragment):
    p = parse(text, "dir/broken note.md")
    assert p.has_frontmatter and p.fields == {}
    (err,) = p.errors
    assert err.path == "dir/broken note.md"
    assert err.line == line, err.message
    assert fragment in err.message
    assert str(err).startswith(f"dir/broken note.md:{line}: broken YAML frontmatter")
    assert p.title == "broken note"  # still a page


def test_broken_yaml_line_counts_crlf_and_bom():
    p = parse(b"\xef\xbb\xbf---\r\ntitle: ok\r\ntags: [a\r\n---\r\n")
    assert p.errors[0].line == 3


def test_broken_yaml_keeps_body_links_and_frontmatter_links():
    p = parse("---\nused: \"[[tool-a]]\"\ntags: [x\n---\nsee [[b]]\n")
    assert p.errors and p.errors[0].line == 3
    assert [(l.target, l.edge, l.where) for l in p.links] == [("tool-a", "used", "frontmatter"), ("b", "related", "body")]


def test_parse_yaml_direct():
    assert parse_yaml("") == {}
    assert parse_yaml("  \n") == {}
    with pytest.raises(NotAMapping):
        parse_yaml("just text")
    with pytest.raises(FrontmatterError) as exc:
        parse_yaml("a: [\n", first_line=10)
    assert exc.value.line == 10


def test_split_positions():
    text = "---\na: 1\n---\nbody\n"
    s = split_frontmatter(text)
    assert text[s.yaml_start : s.yaml_end] == "a: 1\n"
    assert text[s.body_start :] == "body\n" and s.body_line == 4
    assert split_frontmatter("no fence\n").yaml_text is None
    assert split_frontmatter(" ---\na: 1\n---\n").yaml_text is None  # must start the file
    # "..." closes a YAML document too
    assert split_frontmatter("---\na: 1\n...\nbody").yaml_text == "a: 1\n"
    # a closing fence at end of file without newline
    s = split_frontmatter("---\na: 1\n---")
    assert s.yaml_text == "a: 1\n" and s.body_start == len("---\na: 1\n---")


def test_common_fields_aliases_and_tags():
    p = parse("---\naliases: [One, Two]\ntags:\n  - '#x'\n  - y\n---\n")
    assert p.aliases == ["One", "Two"] and p.tags == ["x", "y"]
    p = parse("---\nalias: Single\ntags: a, b\n---\n")
    assert p.aliases == ["Single"] and p.tags == ["a", "b"]
    p = parse("---\naliases:\ntags: {a: 1}\n---\n")
    assert p.aliases == [] and p.tags == []
