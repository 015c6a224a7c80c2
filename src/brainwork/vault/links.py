"""Find the links a page writes, the way Obsidian reads them.

Link forms (see docs/vault-format.md): ``[[target]]``, ``[[target|label]]``,
``[[target#Heading]]``, ``[[target#^block]]``, ``![[embed]]``, table-escaped
``[[target\\|label]]``, and Markdown links to local files
(``[x](Some%20Note.md)``). ``[[#Heading]]`` is a link within the page and
makes no edge. Nothing inside fenced or indented code, inline code, HTML
comments or ``%%comments%%`` is a link.

Block structure (code blocks, HTML comment blocks) is what markdown-it-py's
block parse finds; a line scan finds it in the usual shapes (top-level
fences and comment blocks) and markdown-it runs only on the notes the scan
cannot decide (11 of 6,571 in obsidian-hub; it tokenises ~2.7 MB/s here).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from urllib.parse import unquote

from markdown_it import MarkdownIt

from brainwork.model import Link
from brainwork.vocabulary import BODY_EDGE, EDGE_KEYS

# Possessive runs: a link's inside holds no bracket, so giving characters
# back can never let the closing brackets match (same matches, fewer steps:
# ~2x faster over obsidian-hub's 49,000 "[...](" candidates).
WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]*+)\]\]")
MDLINK = re.compile(
    r"(!?)\[((?:[^\[\]\n]++|\[[^\[\]\n]*+\])*+)\]"
    r"\(\s*(<[^>\n]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)"
    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
# WIKILINK and MDLINK without their leading "!?": a pattern that starts
# with a literal is searched for that literal in C; the "!" is read back.
_WIKILINK_SCAN = re.compile(WIKILINK.pattern[len("(!?)"):])
_MDLINK_SCAN = re.compile(MDLINK.pattern[len("(!?)"):])
#: A wikilink read for what it shows: group 1 the target (up to ``#``),
#: group 2 the label (after ``|``, or ``\|`` inside a table cell), None
#: without one. For turning links into their visible text, not for resolving.
WIKILINK_PARTS = re.compile(r"!?\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\\?\|([^\]]*))?\]\]")
#: A value that is exactly one wikilink (a frontmatter field such as
#: ``rule: "[[rules/x]]"``), group 1 its target.
WIKILINK_VALUE = re.compile(r"^\s*!?\[\[([^\[\]|#]+)(?:#[^\[\]|]*)?(?:\|[^\[\]]*)?\]\]\s*$")
#: A Markdown link's destination without spaces, ``](dest)``.
MDLINK_DEST = re.compile(r"\]\([^)\s]*\)")
#: A Markdown link's destination to the end of the line, closed or not: a
#: generous match, for bounds that may remove more than the link.
MDLINK_DEST_LOOSE = re.compile(r"\]\([^)\n]*\)?")
#: A Markdown link destination left open at the end of its line
#: (``[a](\n/url)``, ``[a](url\n'title')``): CommonMark may close it on a later line.
MDLINK_DEST_OPEN = re.compile(r"\]\([^)\n]*$", re.MULTILINE)
#: A reference-style link's use, ``][ref]``.
MDLINK_REF_USE = re.compile(r"\]\[[^\]\n]*\]")
#: A link reference definition, ``[ref]: dest``, anywhere on a line (inside
#: list items and quotes a definition follows the markers).
MDLINK_REF_DEF = re.compile(r"\[[^\]\n]+\]:.*$", re.MULTILINE)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
#: A ``](`` whose destination may be a local file: after the whitespace
#: MDLINK allows there, neither a URL scheme (``https:``), ``#`` nor ``//``
#: (a destination that starts with one of these is skipped whatever MDLINK
#: matches around it: the destination group starts at the first character
#: that is not whitespace and never ends inside such a start). A text with
#: no such ``](`` holds no Markdown link to a local file, so its MDLINK
#: scan is skipped: 13 of obsidian-hub's 6,549 bodies with a ``](`` have
#: one; the others' 49,000 web links cost a scan of ~0.09 s CPU.
_MDLINK_LOCAL = re.compile(r"\]\(\s*(?![A-Za-z][A-Za-z0-9+.\-]*:|#|//)")
# A code span: a backtick run not preceded by a backtick, up to the first run
# of the same length (not across a blank line). Written to start with the
# literal backtick (searched in C): ten times faster than opening with the
# lookbehind, the same matches. The inside is taken a run at a time (text
# without backticks, a line break, a backtick run), not a character at a
# time: a closing run can start only where a backtick run does, and the
# lazy repeat still tries each such start in order (~1.6x faster).
_INLINE_CODE = re.compile(r"(`(?<!``)`*+)((?:[^`\n]++|\n(?![ \t]*\n)|`++)+?)(?<!`)\1(?!`)")
# A comment up to its first closing mark, or to the end of the text; the
# possessive runs match what ``<!--.*?(?:-->|\Z)`` does, 2-4x faster.
_HTML_COMMENT = re.compile(r"<!--(?:[^-]++|-(?!->))*+(?:-->|\Z)")
_OBSIDIAN_COMMENT = re.compile(r"%%(?:[^%]++|%(?!%))*+(?:%%|\Z)")
_CONTAINER = r"(?:>|[-*+]|\d{1,9}[.)])"
#: A body without any of these has no block for markdown-it to find: a fence
#: marker, a comment opener, or a line indented to four columns (at its start,
#: or inside a quote or list item: ``-     code`` opens a code block there).
#: Lines are found by the line break before them (searched in ``"\n" +
#: body``): a pattern that starts with a literal is scanned in C, ``^`` is
#: tried at every character. The lookahead holds every character such a
#: line can start with, so a line of text fails at its first character
#: instead of in each branch (the scan ~2x faster).
_NEEDS_BLOCKS = re.compile(
    rf"```|~~~|<!--|\n(?=[ \t>*+\-\d])(?: {{4}}| {{0,3}}\t|[ \t]*(?:{_CONTAINER}[ \t]*)*{_CONTAINER}(?: {{5}}| {{0,4}}\t))"
)
#: The line-start branch of :data:`_NEEDS_BLOCKS` alone: it starts with a
#: literal, so only line breaks are tried (the whole alternation is tried at
#: every character: 4x slower over obsidian-hub).
_NEEDS_BLOCKS_LINE = re.compile(_NEEDS_BLOCKS.pattern[len("```|~~~|<!--|"):])
#: What the block scan looks at, in ``"\n" + body``: after a line break, a
#: fence marker (``lead`` holds any indentation and quote or list markers
#: before it), a line indented to four columns inside a quote or list item
#: (``deep``) or at its start (``indent``), a line that may open an HTML
#: block (``html``); and a comment opener anywhere (``comment``, past its
#: ``<``: every branch then opens with a literal, so the search skips to the
#: next line break or ``<`` in C instead of trying each branch at every
#: character, ~2x faster). After a line break, the lookahead holds every
#: character a branch can start with (a line of text fails there at once,
#: not in each branch: the scan ~25% faster over both corpora); ``lead`` is
#: possessive, as it takes no fence character, so giving any of it back
#: cannot let a fence match.
_BLOCK_EVENT = re.compile(
    rf"\n(?=[ \t>*+\-\d`~<])(?:(?P<lead>[ \t]*+(?:{_CONTAINER}[ \t]*+)*+)(?P<fence>`{{3,}}|~{{3,}})"
    rf"|(?P<deep>[ \t]*(?:{_CONTAINER}[ \t]*)*{_CONTAINER}(?: {{5}}| {{0,4}}\t))"
    r"|(?P<indent> {4}| {0,3}\t)"
    r"| {0,3}(?P<html><(?:[A-Za-z/?]|!(?!--))))"
    r"|<(?P<comment>!--)"
)
#: HTML blocks that end at a closing tag or marker rather than at a blank
#: line (CommonMark types 1, 3, 4 and 5).
_HTML_UNTIL_MARKER = re.compile(r"<(?:(?:script|pre|style|textarea)(?:[ \t>]|$)|\?|![A-Za-z]|!\[CDATA\[)", re.IGNORECASE | re.MULTILINE)
#: Lines that are each a whole comment block: ``<!--`` at the start, ``-->``
#: later on the line (``<!-->`` closes itself, as markdown-it reads it).
_COMMENT_LINES = re.compile(r"(?:<!(?=--)[^\n]*?-->[^\n]*(?:\n|\Z))+")
_BLANK_LINE = re.compile(r"\n[ \t]*\r?\n")
_LONE_CR = re.compile(r"\r(?!\n)")
_NOT_EOL = re.compile(r"[^\r\n]+")
# A line after which an indented line may open an indented code block: blank,
# an ATX heading, a thematic break or setext underline, a bare list marker,
# or a line starting with '<' (an HTML block may end there). After any other
# line the indented line continues a paragraph or list item (CommonMark: an
# indented code block cannot interrupt a paragraph).
_BLOCK_END = re.compile(r"[ \t]*(?:#|<|(?:[-*_=][ \t]*)+$|(?:[-*+]|\d{1,9}[.)])[ \t]*$|$)")
_TOP_KEY = re.compile(r"^([^\s#\-:'\"][^:]*?|'[^']*'|\"[^\"]*\")[ \t]*:(?:[ \t]|$)")

_md = MarkdownIt("commonmark", {"html": True}).disable(["inline", "text_join"], ignoreInvalid=True)


#: Every byte but ``\n`` and ``\r`` to a space, for :func:`_blanked`.
_BLANK_BYTES = bytes(b if b in (10, 13) else 32 for b in range(256))


def _blanked(text: str) -> str:
    """``text`` with every character but line breaks turned into a space."""
    if "\n" not in text and "\r" not in text:
        return " " * len(text)
    if text.isascii():
        # One character a byte: one pass in C, ~2x faster than splitting
        # the lines (code and comment blocks span several).
        return text.encode("ascii").translate(_BLANK_BYTES).decode("ascii")
    if "\r" not in text:
        # Split and joined: ~3x faster than a substitution per line.
        return "\n".join([" " * len(line) for line in text.split("\n")])
    return _NOT_EOL.sub(lambda m: " " * (m.end() - m.start()), text)


def _blank_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with the (start, end) ``spans`` blanked; spans may nest or
    overlap (markdown-it's tokens of a list hold their items' blocks)."""
    pieces = []
    pos = 0
    for start, end in sorted(spans):
        start = max(start, pos)
        if start >= end:
            continue
        pieces.append(text[pos:start])
        pieces.append(_blanked(text[start:end]))
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


def mask_non_links(body: str) -> str:
    """Return ``body`` with code, comments and inline code blanked to spaces.

    The result has the same length and the same line breaks, so offsets and
    line numbers found in it hold for ``body``.
    """
    if not _needs_blocks(body):
        return _mask(body, False)
    spans = _block_spans(body)
    return _mask(body, True) if spans is None else _mask(body, False, spans)


def _needs_blocks(body: str) -> bool:
    """Whether markdown-it's block parse may find a block to mask in ``body``."""
    if "```" in body or "~~~" in body or "<!--" in body:
        return True
    return bool(_NEEDS_BLOCKS_LINE.search("\n" + body))


_CONTAINER_PREFIX = re.compile(r"[ \t]*(?:(?:>|[-*+]|\d{1,9}[.)])[ \t]*)+")


def _block_spans(body: str) -> list[tuple[int, int]] | None:
    """The fenced code blocks and HTML comment blocks markdown-it's block
    parse finds in ``body``, as (start, end) offsets of whole lines, found
    by a scan; None when the scan cannot decide (then only the parse knows).

    The scan decides the usual shapes of real notes (CommonMark 0.31): a
    fence opened at the start of a line closes at the first line of at
    least as many of its marker characters, indented by at most three
    spaces and followed only by spaces or tabs (or runs to the end of the
    text); a line starting with ``<!--`` opens a comment block that ends
    with the first line containing ``-->`` (from the line's start); both
    interrupt a paragraph, a quote or a list item that is not indented. It
    gives up on a fence or comment block inside a quote or list item or
    indented at all, on one that may sit inside another HTML block, on a
    line indented four columns that may open an indented code block (after
    a blank line, a heading, a block's end...: ``_BLOCK_END``), and on lone
    carriage returns (markdown-it counts them as line breaks).
    """
    if "\r" in body and _LONE_CR.search(body):
        return None
    spans: list[tuple[int, int]] = []
    pos = 0  # events before pos are inside a block already found
    block_end = -1  # where the last block found ended (an indented line there opens code)
    html_from = -1  # start of the last line that may open an HTML block
    html_sticky = False  # that block ends at a marker, not at a blank line

    def in_html(at: int) -> bool:
        return html_from >= 0 and (html_sticky or not _BLANK_LINE.search(body, html_from, at))

    # Offsets in the padded text are one past the body's, so a match's start
    # (its line break) is the body offset of the line it opens.
    padded = "\n" + body
    while (m := _BLOCK_EVENT.search(padded, pos)) is not None:
        start = m.start()
        pos = m.end()
        fence = m.group("fence")
        if fence is not None:
            if m.group("lead") or in_html(start):
                return None
            after = m.end() - 1
            eol = body.find("\n", after)
            eol = len(body) if eol == -1 else eol
            if fence[0] == "`" and "`" in body[after:eol]:
                return None  # not a fence: a code span (or text) at a line start
            close = None
            if eol < len(body):
                closing = rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*\r?$"
                close = re.compile(closing, re.MULTILINE).search(body, eol + 1)
            end = len(body) if close is None else min(close.end() + 1, len(body))
            spans.append((start, end))
            pos = block_end = end
        elif m.group("indent") is not None:
            if start == 0 or start == block_end:
                return None
            prev = body[body.rfind("\n", 0, start - 1) + 1 : start - 1].rstrip("\r")
            if _BLOCK_END.match(prev):
                return None
        elif m.group("deep") is not None:
            return None
        elif m.group("html") is not None:
            html_from = start
            html_sticky = html_sticky or bool(_HTML_UNTIL_MARKER.match(body, m.start("html") - 1))
        else:  # "<!--": a comment block, or inline HTML the comment pattern masks anyway
            start -= 1
            line_start = body.rfind("\n", 0, start) + 1
            prefix = body[line_start:start]
            if not prefix:
                if in_html(line_start):
                    return None
                while True:
                    run = _COMMENT_LINES.match(body, line_start)
                    if run is not None:  # one or more comment blocks of one line each
                        end = run.end()
                    else:
                        close_at = body.find("-->", line_start)
                        nl = -1 if close_at == -1 else body.find("\n", close_at)
                        end = len(body) if nl == -1 else nl + 1
                    spans.append((line_start, end))
                    # Empty lines then "<!--": the next event would be that
                    # comment block, at a line start, still outside any HTML
                    # block (no event in between); taken here without a search
                    # (templates hold runs of them: ~11 a note in obsidian-hub).
                    nxt = end
                    while body.startswith("\n", nxt):
                        nxt += 1
                    if nxt == end or not body.startswith("<!--", nxt):
                        break
                    line_start = nxt
                pos = block_end = end
            elif not prefix.strip() or _CONTAINER_PREFIX.fullmatch(prefix):
                return None  # indented: maybe inside a list item, which may end before the comment does
    return spans


def _mask(body: str, parse_blocks: bool, spans: list[tuple[int, int]] | None = None) -> str:
    """:func:`mask_non_links`, with markdown-it's block parse only when
    ``parse_blocks``, else blanking the block ``spans`` found by a scan."""
    if parse_blocks:
        line_starts = [0] + [m.end() for m in re.finditer("\n", body)]
        spans = []
        for tok in _md.parse(body):
            if tok.map is None or tok.type not in ("fence", "code_block", "html_block"):
                continue
            if tok.type == "html_block" and not tok.content.lstrip().startswith("<!--"):
                continue
            a, b = tok.map
            start = line_starts[a] if a < len(line_starts) else len(body)
            end = line_starts[b] if b < len(line_starts) else len(body)
            spans.append((start, end))
    text = _blank_spans(body, spans) if spans else body
    # Code spans bind tighter than comments: `%%` inside backticks is text.
    if "`" in text:
        text = _INLINE_CODE.sub(_blank_match, text)
    if "<!--" in text:
        text = _HTML_COMMENT.sub(_blank_match, text)
    if "%%" in text:
        text = _OBSIDIAN_COMMENT.sub(_blank_match, text)
    return text


def _blank_match(m: re.Match) -> str:
    text = m.group()
    if "\n" not in text and "\r" not in text:  # most matches: no call to _blanked (46,650 in obsidian-hub)
        return " " * len(text)
    return _blanked(text)


def comment_spans(body: str) -> list[tuple[int, int]]:
    """The ``%%comments%%`` of ``body`` as (start, end) offsets, each from
    its opening ``%%`` to past its closing one (or to the end of the text
    when it is never closed), the way Obsidian's reading view hides them:
    inline or over several lines, but not inside code or an HTML comment.

    Found with the same masks as links: every ``%%`` is swapped for two NULs
    (same length) before masking, so the masks blank only the ``%%`` that
    sit in code or HTML comments; the ``%%`` still standing pair up in order.
    """
    if "%%" not in body:
        return []
    masked = mask_non_links(body.replace("%%", "\0\0"))
    marks = [m.start() for m in re.finditer("\0\0", masked)]
    spans = []
    for i in range(0, len(marks), 2):
        start = marks[i]
        end = marks[i + 1] + 2 if i + 1 < len(marks) else len(body)
        spans.append((start, end))
    return spans


def split_inner(inner: str) -> tuple[str, str | None, str | None]:
    """Split a wikilink's inside into ``(target, heading, label)``.

    ``"Note#Part|shown"`` -> ``("Note", "Part", "shown")``; a heading that is
    a block reference keeps its caret (``"^abc"``). ``\\|`` (the escape used in
    tables) separates the label like ``|``. Target, heading and label are
    trimmed, as Obsidian reads them (``[[Alpha | first]]`` has the label
    ``first``).
    """
    label = None
    if "|" in inner:
        inner, label = inner.split("|", 1)
        if inner.endswith("\\"):
            inner = inner[:-1]
    heading = None
    if "#" in inner:
        inner, heading = inner.split("#", 1)
        heading = heading.strip()
    if label is not None:
        label = label.strip()
    return inner.strip(), heading, label


def body_links(text: str, body_start: int, body_line: int, masked: str | None = None) -> list[Link]:
    """Links written in the body ``text[body_start:]``; offsets are in ``text``.

    Every body link is a ``related`` edge. Self-links (``[[#Heading]]``,
    ``[x](#anchor)``), external URLs and empty targets are skipped.
    ``masked`` is ``mask_non_links(body)`` when the caller has it already
    (the parser masks each body once, for links and the title heading).
    """
    body = text[body_start:]
    if "[" not in body:
        return []
    if masked is None:
        masked = mask_non_links(body)
    found: list[tuple[int, Link]] = []
    wiki_spans: list[tuple[int, int]] = []
    # Line numbers by counting line breaks from the previous link (each
    # scan below finds links in order), not from an index of every line
    # break in the body: most bodies hold a few links and many lines.
    # Written out in both loops (a helper call per link cost ~0.05 s CPU
    # over obsidian-hub's 22,556 links).
    pos, line = 0, body_line  # a body offset and its file line

    # Scanned from "[[" (a literal is searched in C) and widened over a "!"
    # before it: the same matches as WIKILINK, several times faster.
    for m in _WIKILINK_SCAN.finditer(masked):
        start, end = m.span()
        embed = start > 0 and masked[start - 1] == "!"
        if embed:
            start -= 1
        wiki_spans.append((start, end))
        # Found in the masked text, read from the original: a label or heading
        # may hold inline code (``[[Functions#hasTag|`hasTag`]]``).
        target, heading, label = split_inner(body[m.start(1) : m.end(1)])
        if not target:
            continue
        line += body.count("\n", pos, start)
        pos = start
        found.append((start, Link(target=target, edge=BODY_EDGE, line=line, where="body", label=label,
                                  heading=heading, embed=embed, raw=body[start:end], start=body_start + start,
                                  end=body_start + end, style="wikilink")))
    if "](" in masked and _MDLINK_LOCAL.search(masked):
        for m in _MDLINK_SCAN.finditer(masked):
            # The destination first: most candidates are web links, skipped
            # whatever else holds (every test here only skips).
            dest = body[m.start(2) : m.end(2)]
            if dest.startswith("<") and dest.endswith(">"):
                dest = dest[1:-1]
            if not dest or dest.startswith("#") or dest.startswith("//") or _SCHEME.match(dest):
                continue
            start, end = m.span()
            embed = start > 0 and masked[start - 1] == "!"
            if embed:
                start -= 1
            if wiki_spans:
                k = bisect_right(wiki_spans, (start, len(masked) + 1)) - 1  # the last one starting at or before
                if k >= 0 and start < wiki_spans[k][1]:
                    continue
            heading = None
            if "#" in dest:
                dest, heading = dest.split("#", 1)
                heading = unquote(heading)
            target = unquote(dest).strip()
            if not target:
                continue
            if start < pos:
                pos, line = 0, body_line
            line += body.count("\n", pos, start)
            pos = start
            found.append((start, Link(target=target, edge=BODY_EDGE, line=line, where="body",
                                      label=body[m.start(1) : m.end(1)], heading=heading, embed=embed,
                                      raw=body[start:end], start=body_start + start, end=body_start + end,
                                      style="markdown")))
        found.sort(key=lambda item: item[0])
    return [link for _, link in found]


def frontmatter_links(text: str, yaml_start: int, yaml_end: int) -> list[Link]:
    """Wikilinks written in the frontmatter ``text[yaml_start:yaml_end]``.

    The edge type comes from the top-level key the link is written under:
    an edge key (``used``) or its inverse (``used_by``, reversed); any other
    key gives a ``related`` edge. Lines that are YAML comments are skipped.
    """
    block = text[yaml_start:yaml_end]
    if "[[" not in block:
        return []
    links: list[Link] = []
    first_line = text.count("\n", 0, yaml_start) + 1
    key: str | None = None
    offset = yaml_start
    for i, line in enumerate(block.split("\n")):
        km = _TOP_KEY.match(line)
        if km:
            key = km.group(1).strip("'\"").strip()
        if "[[" in line and not line.lstrip().startswith("#"):
            edge, reverse = EDGE_KEYS.get((key or "").lower(), (BODY_EDGE, False))
            for m in WIKILINK.finditer(line):
                target, heading, label = split_inner(m.group(2))
                if not target:
                    continue
                links.append(
                    Link(
                        target=target,
                        edge=edge,
                        line=first_line + i,
                        where="frontmatter",
                        reverse=reverse,
                        label=label,
                        heading=heading,
                        embed=bool(m.group(1)),
                        raw=m.group(0),
                        start=offset + m.start(),
                        end=offset + m.end(),
                        style="wikilink",
                    )
                )
        offset += len(line) + 1
    return links
