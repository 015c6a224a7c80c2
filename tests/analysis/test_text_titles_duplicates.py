"""Units of the quality bar: visible text, diary titles, duplicate scoring."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brainwork.analysis.duplicates import DupDoc, find_duplicates
from brainwork.analysis.text import lower_bound_chars, visible_chars, visible_text
from brainwork.analysis.titles import diary_title, find_dates, thing_title


# -- visible text -------------------------------------------------------------------------
def test_visible_text_drops_markup_and_keeps_what_a_reader_sees():
    body = (
        "# Heading\n\nSome **bold** and _italic_ text with [[target|label]], [[plain]] and ![[img.png]].\n\n"
        "A [link](https://example.com/x \"title\") and ![alt](pic.png) &amp; more.\n\n"
        "<!-- hidden -->\n%%hidden too%%\n\n```sh\nls -la\n```\n\n[ref]: https://example.com\n"
    )
    assert visible_text(body) == (
        "Heading Some bold and italic text with label, plain and . A link and & more. ls -la"
    )


def test_visible_text_html_block_is_not_text():
    assert visible_text("<div>\nhidden html\n</div>\n\ntext") == "text"
    # the block's lines are left out of the bound; marker-ended blocks are counted exactly
    assert lower_bound_chars("<div>x</div>") == 0
    assert lower_bound_chars("<div>\nhidden\n\ntext") == 4
    assert lower_bound_chars("see <https://x.org> here") >= 7
    assert lower_bound_chars("<!-- hidden -->\ntext") == 4
    assert lower_bound_chars("<script>\nx\n\nstill script\n</script>") is None
    # a line that starts with an inline tag is a paragraph: its text counts
    assert visible_text('<span class="f">[Edit it](https://x.y "t") | more</span>') == "Edit it | more"
    assert lower_bound_chars('<span class="f">[Edit it](https://x.y "t") | more</span>') == 14  # all of it
    # digits and the spaces between words count; list markers do not
    assert visible_text("1. ab 12\n2. cd") == "ab 12 cd"
    assert lower_bound_chars("1. ab 12\n2. cd") == 8


_pieces = st.sampled_from(
    [
        "word", "Wörter", " ", "\n", "\n\n", "# ", "## ", "- ", "**", "_", "`", "```\n", "~~~\n", "[[", "]]", "|", "#",
        "![[", "[", "](", ")", "](https://x.y/z)", "<!--", "-->", "%%", "&amp;", "&#35;", "<b>", "</b>", "> ",
        "[x]: http://r", "\\", "1.", "|---|", "é", "ß", "😀", "=", "<div>", "<span class=x>", "<https://a.b>", "<pre>", "</div>",
        "7", "2026", "1. ", "2) ", "\t", "    ", "a b", "* ", "+ ", "<br>", "![x](y)", "[^1]: ", "    x",
        "---\n", "===\n", "\\\n", "  \n", "&nbsp;", "<a\nb>", "`a  b`", "<p>", "<span>", "</span>\n",
        "<table>", "<td>", "<x-y a='1'>", "<b>x</b> ", "\n\n",
        ":", ",", ";", "?", "!", "|", "^", ".", "'", '"', "(", ")", "/", "@", "$", "-", "+", "&", "` a `", "x`",
        "` `", "] ", " [", "# x #", "[a ](b)", "\\:", "*a*", "_a_", "](\n", " 'title')",
    ]
)


@settings(max_examples=600, deadline=None)
@given(st.lists(_pieces, max_size=40).map("".join))
def test_lower_bound_never_exceeds_the_exact_count(body):
    bound = lower_bound_chars(body)
    exact = len(visible_text(body))
    if bound is not None:
        assert bound <= exact, (bound, exact, visible_text(body))
    # with a threshold, the answer is exact below it and >= it above
    for limit in (0, 5, 20):
        got = visible_chars(body, at_least=limit)
        assert (got == exact) if exact < limit else got >= limit


@settings(max_examples=300, deadline=None)
@given(st.lists(_pieces, max_size=60).map("".join))
def test_the_bound_of_the_first_lines_bounds_the_whole_body(body):
    exact = len(visible_text(body))
    for cut in [i for i, c in enumerate(body) if c == "\n"]:
        bound = lower_bound_chars(body[: cut + 1])
        if bound is not None:
            assert bound <= exact, (cut, bound, exact)


# -- titles ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "title, date",
    [
        ("Sync 29.07.2026", "29.07.2026"),
        ("Sync 2026-07-29", "2026-07-29"),
        ("Sync 2026/7/9", "2026/7/9"),
        ("Sync 07/29/2026", "07/29/2026"),
        ("Sync 29/07/2026", "29/07/2026"),
        ("Sync 29 Jul 2026", "29 Jul 2026"),
        ("Sync 29th of July 2026", "29th of July 2026"),
        ("Sync July 29, 2026", "July 29, 2026"),
        ("Sync Jul. 29 2026", "Jul. 29 2026"),
        ("Sync Wednesday, 29 July 2026", "Wednesday, 29 July 2026"),
    ],
)
def test_date_forms(title, date):
    assert [m.group(0) for m in find_dates(title)] == [date]


@pytest.mark.parametrize(
    "title", ["Release 2.1.10", "Notes 45.13.2026", "2-factor authentication", "Release notes September 2026",
              "May the build be green", "Upgrade to PostgreSQL 16", "Room 12/14/99"],
)
def test_not_dates(title):
    assert find_dates(title) == []
    assert diary_title(title, 80) is None


def test_thing_title_suggestions():
    assert thing_title("Ticket 5388 of 28.09.2026: nightly CI red", 80) == "Nightly CI red"
    assert thing_title("OPS-123: fix login on 2026/07/29", 80) == "Fix login"
    assert thing_title("Incident #42 on Monday, 29 July 2026 - payment outage", 80) == "Payment outage"
    long = "Investigate why the nightly export job keeps timing out when the warehouse is under heavy load"
    assert thing_title(long, 80) == "Investigate why the nightly export job keeps timing out"
    d = diary_title(long, 80)
    assert d.too_long and d.dates == () and d.length == len(long)


# -- duplicates -------------------------------------------------------------------------------
WORDS = [f"w{i}" for i in range(3000)]


def random_body(rng: random.Random, n: int = 120) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def test_blocking_finds_every_planted_pair_among_many():
    """400 random pages and 10 planted near-copies (5 % of words changed, a
    different title): all 10 pairs are found, nothing else."""
    rng = random.Random(7)
    docs = [DupDoc(f"p{i:03}", (f"Page {i}",), random_body(rng)) for i in range(400)]
    planted = set()
    for k in range(10):
        src = docs[k * 37]
        words = src.body.split()
        for _ in range(6):
            words[rng.randrange(len(words))] = rng.choice(WORDS)
        copy = DupDoc(f"z{k:02}", (src.names[0] + " copy",), " ".join(words))
        docs.append(copy)
        planted.add((src.id, copy.id))
    # names weigh nothing here, so only the body blocking can bring a pair together
    pairs = find_duplicates(docs, 0.88, 0.93, name_weight=0.0)
    assert {(p.a, p.b) for p in pairs} == planted


def test_semantic_score_is_averaged_in_when_both_vectors_exist():
    body = "restore the nightly backup into the scratch database before touching production tables"
    a = DupDoc("a", ("Backup rehearsal",), body)
    b = DupDoc("b", ("Backup rehearsal",), body + " again")
    (lexical_only,) = find_duplicates([a, b], 0.88, 0.93)
    assert lexical_only.semantic is None and lexical_only.score == lexical_only.lexical
    v = np.ones(4, dtype=np.float32) / 2
    w = np.array([0.5, 0.5, 0.5, -0.5], dtype=np.float32)  # cosine 0.5
    (both,) = find_duplicates([a, b], 0.7, 0.93, vectors={"a": v, "b": v})
    assert both.semantic == pytest.approx(1.0) and both.score == pytest.approx((both.lexical + 1.0) / 2, abs=1e-3)
    assert find_duplicates([a, b], 0.88, 0.93, vectors={"a": v, "b": w}) == []  # meaning disagrees: no pair


def test_empty_pages_with_one_name_are_duplicates_and_weights_apply():
    a, b = DupDoc("x/Note", ("Note", "Note"), ""), DupDoc("y/note", ("note", "note"), "")
    (p,) = find_duplicates([a, b], 0.88, 0.93)
    assert p.score == 1.0 and p.merge
    c = DupDoc("c", ("Alpha",), "shared words in both pages here")
    d = DupDoc("d", ("Omega",), "shared words in both pages here")
    assert find_duplicates([c, d], 0.88, 0.93) == []  # bodies alike, names not: 0.4*0.0 + 0.6*1.0
    (q,) = find_duplicates([c, d], 0.88, 0.93, name_weight=0.0)
    assert q.score == 1.0


@pytest.mark.parametrize("title, expected", [
    ("UTF-8 decoding fails on SHA-256 files", "UTF-8 decoding fails on SHA-256 files"),
    ("Upgrade node-20 runners", "Upgrade node-20 runners"),
    ("Patch CVE-2024-3094 in xz", "Patch CVE-2024-3094 in xz"),
    ("[ABC-42] Parse ISO-8601 dates", "Parse ISO-8601 dates"),
    ("Ticket: 5120 certificate for billing expiring", "Certificate for billing expiring"),
    ("INC0012345 disk full on build host", "Disk full on build host"),
])
def test_suggested_titles_drop_tickets_and_keep_standard_names(title, expected):
    """Standards and versions with a dash name the subject; an upper-case
    key, a keyword ticket and a service-desk number do not."""
    assert thing_title(title, 60) == expected
