"""Link forms and what is not a link (docs/vault-format.md "Link forms"), per
Obsidian's rules (``Linking notes and files/Internal links.md`` in the help vault)."""

from __future__ import annotations

import pytest

from brainwork.vault.links import body_links, mask_non_links, split_inner
from brainwork.vault.parse import parse_text


def links(body: str):
    return body_links(body, 0, 1)


def one(body: str):
    found = links(body)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize(
    "raw,target,heading,label,embed",
    [
        ("[[t]]", "t", None, None, False),
        ("[[t|l]]", "t", None, "l", False),
        ("[[t#H]]", "t", "H", None, False),
        ("[[t#H|l]]", "t", "H", "l", False),
        ("[[t#^b]]", "t", "^b", None, False),
        ("[[t#^b|l]]", "t", "^b", "l", False),
        ("[[t#H#Sub]]", "t", "H#Sub", None, False),
        ("![[embed]]", "embed", None, None, True),
        ("![[Figure 1.png]]", "Figure 1.png", None, None, True),
        ("![[Engelbart.jpg|100x145]]", "Engelbart.jpg", None, "100x145", True),
        ("![[doc.pdf#page=3]]", "doc.pdf", "page=3", None, True),
        ("[[Some Note.md]]", "Some Note.md", None, None, False),
        ("[[folder/Note]]", "folder/Note", None, None, False),
        ("[[ spaced ]]", "spaced", None, None, False),
        ("[[t|l|m]]", "t", None, "l|m", False),
    ],
)
def test_wikilink_forms(raw, target, heading, label, embed):
    link = one(f"before {raw} after")
    assert (link.target, link.heading, link.label, link.embed) == (target, heading, label, embed)
    assert link.raw == raw and link.style == "wikilink" and link.edge == "related" and link.where == "body"


def test_table_escaped_pipe():
    body = "| a | b |\n|---|---|\n| [[t\\|l]] | ![[img.png\\|200]] |\n"
    first, second = links(body)
    assert (first.target, first.label, first.line) == ("t", "l", 3)
    assert (second.target, second.label, second.embed) == ("img.png", "200", True)
    assert split_inner("Note#Part\\|shown") == ("Note", "Part", "shown")


def test_self_heading_link_makes_no_link():
    assert links("see [[#Heading]] and [[#^block]] and [[#H|label]]") == []
    assert links("[[]] and [[|x]]") == []


@pytest.mark.parametrize(
    "raw,target,heading,label,embed",
    [
        ("[x](Some%20Note.md)", "Some Note.md", None, "x", False),
        ("[x](Some%20Note)", "Some Note", None, "x", False),
        ("[x](folder/Note.md#Part%20two)", "folder/Note.md", "Part two", "x", False),
        ("[x](<Some Note.md>)", "Some Note.md", None, "x", False),
        ('[x](Note.md "a title")', "Note.md", None, "x", False),
        ("![alt](img%20one.png)", "img one.png", None, "alt", True),
        ("[x](../up/Note.md)", "../up/Note.md", None, "x", False),
        ("[a [nested] label](n.md)", "n.md", None, "a [nested] label", False),
    ],
)
def test_markdown_links_to_local_files(raw, target, heading, label, embed):
    link = one(f"text {raw} text")
    assert (link.target, link.heading, link.label, link.embed) == (target, heading, label, embed)
    assert link.style == "markdown" and link.raw == raw


@pytest.mark.parametrize(
    "raw",
    [
        "[x](https://example.com/a.md)",
        "[x](mailto:a@b.c)",
        "[x](obsidian://open?vault=v&file=n)",
        "[x](#local-anchor)",
        "[x](//host/path.md)",
        "[x]()",
        "[x](C:\\\\Windows\\\\x.md)",
        "[x](file:///etc/passwd)",
    ],
)
def test_markdown_links_that_are_not_vault_links(raw):
    assert links(f"a {raw} b") == []


NOT_LINKS = {
    "fenced backticks": "```\n[[a]]\n```\n",
    "fenced tildes": "~~~md\n[[a]]\n~~~\n",
    "fence with longer closer": "````\n```\n[[a]]\n```\n````\n",
    "fenced in blockquote": "> ```md\n> [[a]]\n> ```\n",
    "fenced in list": "1. step\n   ```md\n   [[a]]\n   ```\n",
    "unclosed fence runs to the end": "```\n[[a]]\n\nmore [[b]]\n",
    "indented code": "para\n\n    [[a]]\n",
    "tab-indented code": "para\n\n\t[[a]]\n",
    "inline code": "use `[[a]]` here",
    "double-backtick inline code": "use ``x ` [[a]]`` here",
    "inline code across a line break": "use `[[a]]\nstill code` here",
    "html comment inline": "x <!-- [[a]] --> y",
    "html comment block": "<!--\n[[a]]\n\n[[b]]\n-->\n",
    "unclosed html comment": "x <!-- [[a]]\n",
    "obsidian comment inline": "x %%[[a]]%% y",
    "obsidian comment block": "%%\n[[a]]\n\n[[b]]\n%%\n",
    "unclosed obsidian comment": "x %% [[a]]\n\n[[b]]\n",
    "markdown link in code": "`[x](Note.md)`",
    "escaped brackets": "\\[\\[a\\]\\]",
}


@pytest.mark.parametrize("body", NOT_LINKS.values(), ids=NOT_LINKS.keys())
def test_not_links(body):
    assert links(body) == []


def test_links_after_code_still_count_with_right_lines():
    body = "```\n[[a]]\n```\n\n    [[b]]\n\nsee [[c]] `[[d]]` %%[[e]]%% <!-- [[f]] --> [[g]]\n"
    found = links(body)
    assert [(l.target, l.line) for l in found] == [("c", 7), ("g", 7)]


def test_list_continuation_is_not_code():
    body = "- item\n    - [[nested]]\n\t1. [[tabbed]]\n"
    assert [l.target for l in links(body)] == ["nested", "tabbed"]


def test_links_in_callouts_and_tables_count():
    body = "> [!note] Title\n> see [[a]]\n\n| x |\n|---|\n| [[b]] |\n"
    assert [(l.target, l.line) for l in links(body)] == [("a", 2), ("b", 6)]


def test_percent_inside_code_span_does_not_open_a_comment():
    body = "wrap text with `%%` to comment.\n\nthen [[a]]\n"
    assert [l.target for l in links(body)] == ["a"]


def test_inline_code_inside_label_is_kept():
    (link,) = links("[[Functions#hasTag|`hasTag`]]")
    assert (link.target, link.heading, link.label) == ("Functions", "hasTag", "`hasTag`")
    (link,) = links("[[Filters#`wikilink`|wikilink]]")
    assert (link.heading, link.label) == ("`wikilink`", "wikilink")


def test_offsets_and_lines_point_at_the_raw_text():
    text = "---\ntitle: t\n---\nline one\nx [[a|b]] and [y](c%20d.md)\n"
    page = parse_text("n.md", text.encode())
    assert [l.line for l in page.links] == [5, 5]
    for link in page.links:
        assert text[link.start : link.end] == link.raw


def test_two_links_on_a_line_in_order():
    found = links("[m](m.md) then [[w]] then [n](n.md)")
    assert [l.target for l in found] == ["m.md", "w", "n.md"]


def test_mask_keeps_length_and_newlines():
    body = "a `x`\n```\ncode\n```\n%% c\nc %% <!-- h -->\n"
    masked = mask_non_links(body)
    assert len(masked) == len(body)
    assert [i for i, c in enumerate(masked) if c == "\n"] == [i for i, c in enumerate(body) if c == "\n"]


# -- frontmatter edges --------------------------------------------------------
def fm_links(yaml: str, name: str = "p.md"):
    return parse_text(name, f"---\n{yaml}---\nbody\n".encode()).links


def test_frontmatter_edge_keys_one_or_a_list():
    found = fm_links('used: "[[tool-a]]"\ncited:\n  - "[[src-1]]"\n  - "[[src-2|S2]]"\nproduced: ["[[art]]"]\n')
    assert [(l.target, l.edge, l.reverse, l.where, l.line) for l in found] == [
        ("tool-a", "used", False, "frontmatter", 2),
        ("src-1", "cited", False, "frontmatter", 4),
        ("src-2", "cited", False, "frontmatter", 5),
        ("art", "produced", False, "frontmatter", 6),
    ]
    assert found[2].label == "S2"


def test_inverse_keys_reverse_the_edge():
    found = fm_links(
        'type: correction\ncorrects: "[[task-x]]"\nused_by: "[[t1]]"\ncited_by: "[[t2]]"\n'
        'produced_by: "[[t3]]"\npromoted_from: "[[c1]]"\nsuperseded_by: "[[r2]]"\n'
    )
    assert [(l.target, l.edge, l.reverse) for l in found] == [
        ("task-x", "corrected_by", True),
        ("t1", "used", True),
        ("t2", "cited", True),
        ("t3", "produced", True),
        ("c1", "promoted_to", True),
        ("r2", "supersedes", True),
    ]


def test_other_keys_give_related_and_comments_are_skipped():
    found = fm_links('notes: see [[other]]\nRelated: "[[r]]"\n# old: [[nope]]\nnested:\n  key: "[[deep]]"\n')
    assert [(l.target, l.edge, l.reverse) for l in found] == [
        ("other", "related", False),
        ("r", "related", False),
        ("deep", "related", False),
    ]


def test_frontmatter_link_offsets_crlf():
    text = '---\r\nused: "[[tool]]"\r\n---\r\n'
    (link,) = parse_text("p.md", text.encode()).links
    assert text[link.start : link.end] == "[[tool]]" and link.line == 2
