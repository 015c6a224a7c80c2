"""The text a reader sees in a page body, and its words.

Used by the ``stub`` finding (how much body text a page has) and by the
duplicate detector (which words two pages share).

What counts as body text (docs/findings.md, "stub"): everything a reader of
the rendered page reads — paragraphs, headings, list items, table cells, code
(inline and fenced), link *labels* (for ``[[target|label]]`` the label, for
``[[target]]`` the target as Obsidian shows it, for ``[label](url)`` the
label). Not counted: the frontmatter (not part of the body), markup
characters (``#``, ``*``, fences, ...), link syntax and destinations, embeds
(``![[...]]``, images), HTML tags and comments, ``%%comments%%`` and link
reference definitions. Runs of whitespace count as one space.

The exact measure tokenises with markdown-it-py, which is slow (~0.3 MB/s
with inline parsing on this machine), so :func:`visible_chars` first computes
a cheap *lower bound* (ASCII letters only, after removing everything that
might be hidden); a page whose lower bound already reaches the threshold
cannot be a stub and is never tokenised.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.common.html_blocks import block_names
from markdown_it.common.html_re import HTML_OPEN_CLOSE_TAG_STR

from brainwork.vault.links import (
    MDLINK, MDLINK_DEST_LOOSE, MDLINK_DEST_OPEN, MDLINK_REF_DEF, MDLINK_REF_USE, WIKILINK, mask_non_links, split_inner,
)

_md = MarkdownIt("commonmark", {"html": True})

_OBSIDIAN_COMMENT = re.compile(r"%%.*?(?:%%|\Z)", re.DOTALL)
_WS = re.compile(r"\s+")
# For the lower bound: pieces that may be invisible, removed before counting.
_TAG_LIKE = re.compile(r"<[^>\n]*>")
_FENCE_LINE = re.compile(r"^[ \t]*(?:`{3,}|~{3,}).*$", re.MULTILINE)
_ENTITY = re.compile(r"&(?:#\d+|#[xX][0-9a-fA-F]+|\w+);")
_HTML_START = re.compile(r"<[A-Za-z!/?]")
_WORD = re.compile(r"\w+")
_EMBED = re.compile("!" + WIKILINK.pattern.removeprefix("(!?)"))
_WIKILINK_NO_EMBED = re.compile(WIKILINK.pattern.removeprefix("(!?)"))


def _replace_wikilinks(body: str) -> str:
    """``body`` with each real wikilink (not in code or comments) replaced by
    what Obsidian displays: the label, else the target; embeds by nothing."""
    if "[[" not in body:
        return body
    masked = mask_non_links(body)
    parts: list[str] = []
    pos = 0
    for m in WIKILINK.finditer(masked):
        parts.append(body[pos : m.start()])
        if not m.group(1):  # not an embed
            target, heading, label = split_inner(body[m.start(2) : m.end(2)])
            shown = label if label is not None else (target or heading or "")
            parts.append(shown)
        pos = m.end()
    parts.append(body[pos:])
    return "".join(parts)


def _inline_text(token, out: list[str]) -> None:
    for child in token.children or ():
        kind = child.type
        if kind == "image":
            continue  # its alt text lives inside the image token: not body text
        if kind in ("text", "code_inline"):
            out.append(child.content)
        elif kind in ("softbreak", "hardbreak"):
            out.append(" ")


def visible_text(body: str) -> str:
    """The body text a reader sees (see the module doc), whitespace collapsed.

    Exact but slow (markdown-it-py tokenises every inline span).
    """
    text = _OBSIDIAN_COMMENT.sub(" ", body) if "%%" in body else body
    text = _replace_wikilinks(text)
    out: list[str] = []
    for tok in _md.parse(text):
        if tok.type == "inline":
            _inline_text(tok, out)
            out.append(" ")
        elif tok.type in ("fence", "code_block"):
            out.append(tok.content)
            out.append(" ")
    return _WS.sub(" ", "".join(out)).strip()


_HTML_NOT_COMMENT = re.compile(r"<(?:[A-Za-z/?]|!(?!--))")
_LINE_PREFIX = r"^[ \t>*+\-0-9.)]*"
_MARKER_BLOCK = re.compile(_LINE_PREFIX + r"<(?:script|pre|style|textarea|\?|!)", re.MULTILINE | re.IGNORECASE)
# The lines that start an HTML block of CommonMark type 6 (a block-level tag
# name) or 7 (a complete tag alone on its line), to the next blank line:
# markdown-it's own patterns. A line that starts with another tag, such as
# ``<span class="x">[Edit](url) ...</span>``, is a paragraph whose text is
# shown (its tags are removed one by one).
_TAG_BLOCK = re.compile(
    _LINE_PREFIX + r"(?:</?(?:" + "|".join(block_names) + r")(?=\s|/?>|$)|"
    + HTML_OPEN_CLOSE_TAG_STR.lstrip("^") + r"[ \t]*$).*?(?:\n[ \t]*\n|\Z)",
    re.MULTILINE | re.DOTALL | re.IGNORECASE,
)


def _comment_lines_removed(text: str) -> str:
    """``text`` without the lines from each ``<!--`` to the end of the line
    holding its ``-->`` (to the end of the text when unclosed)."""
    parts: list[str] = []
    pos = 0
    while True:
        start = text.find("<!--", pos)
        if start < 0:
            break
        line_start = text.rfind("\n", 0, start) + 1
        parts.append(text[pos:max(pos, line_start)])
        close = text.find("-->", start + 4)
        if close < 0:
            pos = len(text)
            break
        nl = text.find("\n", close)
        pos = len(text) if nl < 0 else nl
        parts.append(" ")
    parts.append(text[pos:])
    return "".join(parts)


#: Put where the lower bound removes something: neither a letter, a digit
#: nor whitespace, so no gap between words is counted across a removal (a
#: removed ``<br>`` or embed may join two words in the rendered text).
_CUT = "\x00"


def _shown_link(m: "re.Match[str]") -> str:
    """What a (not embedded) wikilink matched by ``_WIKILINK_NO_EMBED`` shows."""
    target, heading, label = split_inner(m.group(1))
    return label if label is not None else (target or heading or "")


# Ordered and bullet list markers and quote markers at line starts hide their
# digits; removing every such prefix (and digits a line starts with) only
# lowers the bound.
# Found after the line break before them, in "\n" + text: a pattern that
# opens with a literal is searched in C, ``^`` is tried at every character.
_LINE_MARKERS = re.compile(r"\n[ \t>*+\-0-9.)]+")
# The ASCII punctuation CommonMark (without tables, typographer or linkify)
# shows wherever the bound has not removed it already: never markup on its
# own (``*``, ``_``, ``#``, `````, ``~``, ``=``, ``[``, ``]``, ``<``, ``>``,
# ``\\`` and ``%`` may be), and the line-start markers it can be part of
# (``1.``, ``2)``, ``- ``, ``+ ``) are removed with the line prefix.
_SHOWN_PUNCT = ":,;?!|^.'\"()/@$-+&"
_COUNTED = "A-Za-z0-9" + re.escape(_SHOWN_PUNCT)
# Whitespace between two counted characters: the rendered text keeps at
# least one space there (a soft break, a block boundary or the space
# itself), and runs of whitespace count as one. Brackets and ``#`` between
# them (``[label] | x``, ``text\n\n## Heading``) hide no whitespace; a
# backtick or emphasis marker may (a code span drops a space at each end).
_GAP = re.compile(rf"[{_COUNTED}]\]*+(?:\s++[\[#]*+)++(?=[{_COUNTED}])")
_NOT_COUNTED = bytes(
    b for b in range(256) if not (48 <= b <= 57 or 65 <= b <= 90 or 97 <= b <= 122 or chr(b) in _SHOWN_PUNCT)
)


def lower_bound_chars(body: str, enough: int | None = None) -> int | None:
    """A cheap lower bound of ``len(visible_text(body))``, or ``None`` when
    the body holds HTML other than comments (an HTML block hides text the
    bound would count).

    With ``enough``, the whitespace gaps are not counted once the counted
    characters alone reach it (the gap scan is most of the cost, and a
    caller comparing against a threshold needs no more than a bound that
    reaches it).

    Counts ASCII letters, digits and the punctuation that is never markup
    (``_SHOWN_PUNCT``), and one space for each run of whitespace between
    two of them, after removing %%comments%%, the lines HTML comments
    touch, link destinations, image alt texts, reference definitions, fence
    lines, entities, tag-like spans, embeds, what a wikilink does not show,
    and list and quote markers at line starts. Characters of other scripts
    are not counted. obsidian-hub: 80 of 6,571 pages tokenised, 51 of them
    stubs (3,000 when only letters and digits counted, 195 before the
    punctuation).
    """
    text = body
    if "%%" in text:
        text = _OBSIDIAN_COMMENT.sub(" ", text)
    if "[[" in text:
        # What a wikilink shows (its label, else its target) is body text
        # when the link is real; inside code its raw form is, which holds
        # the same letters and more; an embed shows nothing. Replaced before
        # the HTML blocks are found, as visible_text does (``![[x]]<div>``
        # starts an HTML block). Embeds first, then links, each pattern
        # opening with its literal (a wikilink holds no bracket, so the two
        # passes replace what WIKILINK's one pass would).
        if "![[" in text:
            text = _EMBED.sub("", text)
        text = _WIKILINK_NO_EMBED.sub(_shown_link, text)
    if "<" in text and _HTML_START.search(text):
        # The lines a comment touches are left out whole (a comment block
        # is whole lines up to the one holding -->), and so is every run of
        # lines from one that starts with a tag to the next blank line (an
        # HTML block of CommonMark types 6 and 7, in a list item or quote
        # too); blocks that end at a marker instead (script, pre, style,
        # textarea, <? and <! forms) are counted exactly.
        if "<!--" in text:
            text = _comment_lines_removed(text)
        if _HTML_NOT_COMMENT.search(text):
            if _MARKER_BLOCK.search(text):
                return None
            text = _TAG_BLOCK.sub(_CUT + "\n", text)  # the next line still starts a line
    if "![" in text:
        text = MDLINK.sub(lambda m: _CUT if m.group(1) else m.group(0), text)  # whole images
        if "![" in text:
            return None  # an image form the pattern does not know: count exactly
    if "](" in text:
        if MDLINK_DEST_OPEN.search(text):
            return None  # a destination or title may go on past the line break: count exactly
        text = MDLINK_DEST_LOOSE.sub("]", text)
    if "][" in text:
        text = MDLINK_REF_USE.sub("]", text)
    if "]:" in text:
        text = MDLINK_REF_DEF.sub(_CUT, text)
    if "```" in text or "~~~" in text:
        text = _FENCE_LINE.sub(_CUT, text)
    if "&" in text:
        text = _ENTITY.sub(_CUT, text)
    if "<" in text:
        text = _TAG_LIKE.sub(_CUT, text)
    if "<" in text and _HTML_START.search(text):
        return None  # a tag the line-bound patterns did not remove (one spanning lines): count exactly
    text = _LINE_MARKERS.sub("\n", "\n" + text)[1:]
    # Letters, digits and shown punctuation counted at C speed.
    counted = len(text.encode("utf-8", "ignore").translate(None, _NOT_COUNTED))
    if enough is not None and counted >= enough:
        return counted
    return counted + len(_GAP.findall(text))


def visible_chars(body: str, at_least: int | None = None) -> int:
    """Characters of body text (see the module doc).

    With ``at_least``, the answer may be any number ``>= at_least`` once the
    cheap lower bound shows the page reaches it (callers comparing against a
    threshold need no more); below it the count is exact.
    """
    if at_least is not None:
        if len(body) > _PREFIX_CHARS:
            # The bound of the first whole lines is a bound of the whole
            # body: every removal is within a line or runs from its start
            # to a later point (a closing marker, a blank line, the end), so
            # what survives in the lines is what survives of them in the
            # body. Most pages reach the threshold within their first lines.
            cut = body.rfind("\n", 0, _PREFIX_CHARS)
            if cut > 0:
                bound = lower_bound_chars(body[: cut + 1], at_least)
                if bound is not None and bound >= at_least:
                    return bound
        bound = lower_bound_chars(body, at_least)
        if bound is not None and bound >= at_least:
            return bound
    return len(visible_text(body))


#: How much of a long body :func:`visible_chars` bounds first (characters,
#: cut back to a line end). Real notes open with templates and comments:
#: in obsidian-hub 352 pages reach the threshold within 400 characters,
#: 6,500 within 2,000 (one pass each, instead of a short one and the body).
_PREFIX_CHARS = 2_000


def words(text: str) -> list[str]:
    """Case-folded words (``\\w+`` runs) of ``text``, in order."""
    return _WORD.findall(text.casefold())
