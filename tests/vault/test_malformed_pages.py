"""Pages whose frontmatter or size is wrong: each is reported once, naming
file and line, the same way by ``brainwork index``, ``check`` and ``show``
(real subprocesses on a vault made in the test), and the rest of the page
(body, links) still counts."""

from __future__ import annotations

import json

import pytest

from brainwork.vault.edit import EditError, frontmatter_fields
from brainwork.vault.frontmatter import split_frontmatter
from brainwork.vault.links import WIKILINK_PARTS, WIKILINK_VALUE, split_inner
from brainwork.vault.parse import parse_text

LIMIT = 4096  # max_file_bytes of the test vault (bytes): the oversize page needs only a little more

LIST_FM = "---\n- a\n- b\n---\nbody [[Elsewhere]]\n"
UNCLOSED_FM = "---\ntitle: Left open\ntype: task\n\nbody [[Opened]]\n"


def parse(text: str):
    return parse_text("p.md", text.encode("utf-8"))


# -- a list as frontmatter ----------------------------------------------------
def test_list_frontmatter_is_reported_on_its_first_item():
    p = parse(LIST_FM)
    (err,) = p.errors
    assert (err.path, err.line) == ("p.md", 2)
    assert err.message.startswith("frontmatter must be a mapping, got a list")
    # Kept as a block without fields, like broken YAML: the body and its links count.
    assert p.has_frontmatter and p.fields == {} and p.body == "body [[Elsewhere]]\n" and p.body_line == 5
    assert [(l.target, l.line) for l in p.links] == [("Elsewhere", 5)]


def test_list_frontmatter_line_skips_blank_and_comment_lines_and_keeps_its_links():
    p = parse("---\n\n# tags\n- \"[[x]]\"\n---\ntext\n")
    (err,) = p.errors
    assert err.line == 4
    assert [(l.target, l.where, l.line) for l in p.links] == [("x", "frontmatter", 4)]


def test_list_frontmatter_cannot_be_edited():
    with pytest.raises(EditError, match="line 2: frontmatter must be a mapping, got a list"):
        frontmatter_fields(LIST_FM)


# -- an opening fence never closed --------------------------------------------
@pytest.mark.parametrize("text", [UNCLOSED_FM, UNCLOSED_FM.replace("\n", "\r\n"), "\ufeff" + UNCLOSED_FM,
                                  "---\n\n  'my key': x\n[[Opened]]\n"])
def test_unclosed_frontmatter_is_reported_on_line_1_and_read_as_body(text):
    p = parse_text("p.md", text.encode("utf-8"))
    (err,) = p.errors
    assert (err.path, err.line) == ("p.md", 1) and "never closed" in err.message
    assert not p.has_frontmatter and p.fields == {} and p.body_line == 1
    assert p.body == text.lstrip("\ufeff")  # every byte is body text
    (link,) = p.links
    assert link.target == "Opened" and link.line == text.count("\n", 0, text.index("[[Opened")) + 1


@pytest.mark.parametrize("text", ["---\n\nSome text\n\n[[q]]\n", "---\nSee https://x.org at 12:30\n",
                                  "---\n- item\n", "---\n", "---\n# Heading\n"])
def test_a_leading_rule_followed_by_no_key_is_not_reported(text):
    assert not split_frontmatter(text).unclosed
    assert parse(text).errors == []


def test_unclosed_frontmatter_cannot_be_edited():
    """An edit would put a new block above the open one, leaving its fields as body text."""
    with pytest.raises(EditError, match="line 1: frontmatter opened on line 1 is never closed"):
        frontmatter_fields(UNCLOSED_FM)


# -- one link grammar -----------------------------------------------------------
@pytest.mark.parametrize(
    "inner, target, heading, label",
    [
        ("a|b|c", "a", None, "b|c"),
        ("a#h|b|c", "a", "h", "b|c"),
        ("a\\|b|c", "a", None, "b|c"),
        (" a | b | c ", "a", None, "b | c"),
        ("a|b#c", "a", None, "b#c"),
    ],
)
def test_target_is_before_the_first_pipe_and_the_label_all_after_it(inner, target, heading, label):
    assert split_inner(inner) == (target, heading, label)
    (link,) = parse(f"x [[{inner}]]\n").links
    assert (link.target, link.heading, link.label) == (target, heading, label)
    shown = WIKILINK_PARTS.fullmatch(f"[[{inner}]]")
    assert shown.group(1).rstrip("\\").strip() == target and shown.group(2).strip() == label
    assert WIKILINK_VALUE.match(f"[[{inner}]]").group(1).rstrip("\\").strip() == target


# -- the commands agree -----------------------------------------------------------
@pytest.fixture
def vault(make_vault):
    return make_vault({
        "brainwork.toml": f"[thresholds]\nmax_file_bytes = {LIMIT}\n",
        "listed.md": LIST_FM,
        "unclosed.md": UNCLOSED_FM,
        "pipes.md": "# Pipes\n\nsee [[Missing|b|c]] and [[Alpha|x|y]]\n",
        "Alpha.md": "# Alpha\n",
        "huge.md": "---\ntitle: Huge\ntype: task\n---\n" + "word " * (LIMIT // 5 + 1),
    })


def test_index_check_and_show_report_the_same_file_and_line(vault, tmp_path, bw):
    store = tmp_path / "store"
    r = bw(vault, store, "index")
    assert r.returncode == 0, r.stderr
    index_lines = {line.strip().split(": ", 1)[0] for line in r.stdout.splitlines()[1:]}
    assert index_lines == {"huge.md:1", "listed.md:2", "unclosed.md:1"}, r.stdout

    r = bw(vault, store, "check", "--format", "json")
    findings = json.loads(r.stdout)
    parse_errors = {(f["path"], f["line"]) for f in findings if f["code"] == "parse-error"}
    assert parse_errors == {("huge.md", 1), ("listed.md", 2), ("unclosed.md", 1)}
    dead = {(f["path"], f["line"], f["target"]) for f in findings if f["code"] == "dead-link"}
    assert dead == {("listed.md", 5, "Elsewhere"), ("unclosed.md", 5, "Opened"), ("pipes.md", 3, "Missing")}

    r = bw(vault, store, "show", "pipes", "--json")
    edges = {(e["target"], e["label"], e["dead"]) for e in json.loads(r.stdout)["edges"]["out"]}
    assert edges == {("Missing", "b|c", True), ("Alpha", "x|y", False)}


def test_set_type_on_a_file_over_the_limit_says_it_is_too_large(vault, tmp_path, bw):
    before = (vault / "huge.md").read_bytes()
    r = bw(vault, tmp_path / "store", "set-type", "huge", "topic")
    assert r.returncode == 2
    assert r.stderr.strip() == (f"brainwork: error: huge.md: file is {len(before):,} bytes, over the "
                                f"{LIMIT:,}-byte limit; too large to edit"), r.stderr
    assert (vault / "huge.md").read_bytes() == before
