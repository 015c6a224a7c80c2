"""Property tests: no input crashes the parser, and every link's offsets
point at its raw text (a bad file is a finding, never a crash)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brainwork.vault.links import mask_non_links
from brainwork.vault.parse import parse_text
from brainwork.vault.resolve import Resolver

# Text built from the pieces that matter to the parser, so examples hit the
# interesting cases (fences, comments, code spans, links, frontmatter).
PIECES = st.sampled_from(
    [
        "---", "\n", "\r\n", " ", "    ", "\t", "`", "```", "~~~", "%%", "<!--", "-->", "[[", "]]", "|", "\\|",
        "#", "^", "!", "[", "]", "(", ")", "a", "Note", "title: x", "used: ", '"[[t]]"', "- ", "> ", ":", "é",
        "e\u0301", "\ufeff", "%20", ".md", "../", "/", "\x00",
    ]
)
TEXT = st.lists(PIECES, max_size=60).map("".join)
FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(TEXT)
def test_parse_text_never_raises_and_offsets_hold(text):
    data = text.encode("utf-8")
    page = parse_text("p.md", data)
    decoded = data.decode("utf-8", errors="replace")
    if decoded.startswith("\ufeff"):
        decoded = decoded[1:]
    if not page.errors or all("YAML" in e.message or "title" in e.message for e in page.errors):
        for link in page.links:
            assert decoded[link.start : link.end] == link.raw
            assert link.line == decoded.count("\n", 0, link.start) + 1
            assert link.target and link.target == link.target.strip()


@FAST
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_raise(data):
    page = parse_text("b.md", data)
    assert page.id == "b" and page.title


@FAST
@given(TEXT)
def test_mask_keeps_length_and_line_breaks(text):
    masked = mask_non_links(text)
    assert len(masked) == len(text)
    assert [i for i, c in enumerate(text) if c in "\r\n"] == [i for i, c in enumerate(masked) if c in "\r\n"]


@FAST
@given(st.text(max_size=40), st.sampled_from([None, "a/b/c", "x"]))
def test_resolver_never_raises_and_stays_in_its_names(target, source):
    r = Resolver(["a/b/c", "x", "Note"], ["img/p.png"], {"Note": ["Alias"]})
    hit = r.resolve(target, source)
    assert hit.page in (None, "a/b/c", "x", "Note", "img/p.png")
