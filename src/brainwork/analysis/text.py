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

from brainwork.vault.links import MDLINK, WIKILINK, mask_non_links, split_inner

_md = MarkdownIt("commonmark", {"html": True})

_OBSIDIAN_COMMENT = re.compile(r"%%.*?(?:%%|\Z)", re.DOTALL)
_WS = re.compile(r"\s+")
# For the lower bound: pieces that may be invisible, removed before counting.
_TAG_LIKE = re.compile(r"<[^>\n]*>")
_LINK_DEST = re.compile(r"\]\([^)\n]*\)?")
_REF_USE = re.compile(r"\]\[[^\]\n]*\]")
# anywhere on a line: inside list items and quotes a definition follows the markers;
# removing more than needed only lowers the bound
_REF_DEF = re.compile(r"\[[^\]\n]+\]:.*$", re.MULTILINE)
_FENCE_LINE = re.compile(r"^[ \t]*(?:`{3,}|~{3,}).*$", re.MULTILINE)
_ENTITY = re.compile(r"&(?:#\d+|#[xX][0-9a-fA-F]+|\w+);")
_NOT_ASCII_LETTER = bytes(b for b in range(256) if not (65 <= b <= 90 or 97 <= b <= 122))
_HTML_START = re.compile(r"<[A-Za-z!/?]")
_WORD = re.compile(r"\w+")
# For the lower bound a wikilink counts nothing (what it shows is left out,
# which only lowers the bound); a literal start keeps the scan fast.
_WIKILINK_FAST = re.compile(r"\[\[[^\[\]\n]*\]\]")


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
# Not an autolink (<https://...>, <a@b.c> stay: their text is shown).
_TAG_BLOCK = re.compile(
    _LINE_PREFIX + r"</?[A-Za-z](?![A-Za-z0-9+.\-]*:[^\s<>]*>)(?![^\s<>@]*@[^\s<>]*>).*?(?:\n[ \t]*\n|\Z)",
    re.MULTILINE | re.DOTALL,
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


def _shown(m: "re.Match[str]") -> str:
    if m.group(1):
        return " "
    target, heading, label = split_inner(m.group(2))
    return f" {label if label is not None else (target or heading or '')} "


def lower_bound_chars(body: str) -> int | None:
    """A cheap lower bound of ``len(visible_text(body))``, or ``None`` when
    the body holds HTML other than comments (an HTML block hides text the
    bound would count).

    Counts only ASCII letters after removing %%comments%%, the lines
    HTML comments touch, link destinations, image alt texts, reference definitions, fence lines,
    entities, tag-like spans and wikilinks (digits are not counted, so list
    numbers need no care).
    """
    text = body
    if "%%" in text:
        text = _OBSIDIAN_COMMENT.sub(" ", text)
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
            text = _TAG_BLOCK.sub(" ", text)
    if "[[" in text:
        # What a wikilink shows (its label, else its target) is body text
        # when the link is real; inside code its raw form is, which holds
        # the same letters and more; an embed shows nothing.
        text = WIKILINK.sub(_shown, text)
    if "![" in text:
        text = MDLINK.sub(lambda m: " " if m.group(1) else m.group(0), text)  # whole images
        if "![" in text:
            return None  # an image form the pattern does not know: count exactly
    if "](" in text:
        text = _LINK_DEST.sub("]", text)
    if "][" in text:
        text = _REF_USE.sub("]", text)
    if "]:" in text:
        text = _REF_DEF.sub(" ", text)
    if "```" in text or "~~~" in text:
        text = _FENCE_LINE.sub(" ", text)
    if "&" in text:
        text = _ENTITY.sub(" ", text)
    if "<" in text:
        text = _TAG_LIKE.sub(" ", text)
    # ASCII letters only, counted at C speed (digits and other scripts are
    # left out, which only lowers the bound)
    return len(text.encode("utf-8", "ignore").translate(None, _NOT_ASCII_LETTER))


def visible_chars(body: str, at_least: int | None = None) -> int:
    """Characters of body text (see the module doc).

    With ``at_least``, the answer may be any number ``>= at_least`` once the
    cheap lower bound shows the page reaches it (callers comparing against a
    threshold need no more); below it the count is exact.
    """
    if at_least is not None:
        bound = lower_bound_chars(body)
        if bound is not None and bound >= at_least:
            return bound
    return len(visible_text(body))


def words(text: str) -> list[str]:
    """Case-folded words (``\\w+`` runs) of ``text``, in order."""
    return _WORD.findall(text.casefold())
