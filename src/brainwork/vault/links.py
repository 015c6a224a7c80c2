"""Find the links a page writes, the way Obsidian reads them.

Link forms (see docs/vault-format.md): ``[[target]]``, ``[[target|label]]``,
``[[target#Heading]]``, ``[[target#^block]]``, ``![[embed]]``, table-escaped
``[[target\\|label]]``, and Markdown links to local files
(``[x](Some%20Note.md)``). ``[[#Heading]]`` is a link within the page and
makes no edge. Nothing inside fenced or indented code, inline code, HTML
comments or ``%%comments%%`` is a link.

Block structure (code blocks, HTML comment blocks) comes from markdown-it-py;
it is only invoked when the body could contain such blocks, which keeps plain
notes cheap (markdown-it tokenises ~2.7 MB/s on one core here).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from urllib.parse import unquote

from markdown_it import MarkdownIt

from brainwork.model import Link
from brainwork.vocabulary import BODY_EDGE, EDGE_KEYS

WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]*?)\]\]")
MDLINK = re.compile(
    r"(!?)\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]"
    r"\(\s*(<[^>\n]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)"
    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)"
)
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
#: A reference-style link's use, ``][ref]``.
MDLINK_REF_USE = re.compile(r"\]\[[^\]\n]*\]")
#: A link reference definition, ``[ref]: dest``, anywhere on a line (inside
#: list items and quotes a definition follows the markers).
MDLINK_REF_DEF = re.compile(r"\[[^\]\n]+\]:.*$", re.MULTILINE)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_INLINE_CODE = re.compile(r"(?<!`)(`+)(?!`)((?:[^\n]|\n(?![ \t]*\n))+?)(?<!`)\1(?!`)")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_OBSIDIAN_COMMENT = re.compile(r"%%.*?(?:%%|\Z)", re.DOTALL)
_NEEDS_BLOCKS = re.compile(r"```|~~~|^(?: {4}|\t)|<!--", re.MULTILINE)
_FENCE_OR_COMMENT = re.compile(r"```|~~~|<!--")
_FENCE = re.compile(r"```|~~~")
_INDENTED = re.compile(r"^(?: {4}|\t)", re.MULTILINE)
# A line after which an indented line may open an indented code block: blank,
# an ATX heading, a thematic break or setext underline, a bare list marker,
# or a line starting with '<' (an HTML block may end there). After any other
# line the indented line continues a paragraph or list item (CommonMark: an
# indented code block cannot interrupt a paragraph).
_BLOCK_END = re.compile(r"[ \t]*(?:#|<|(?:[-*_=][ \t]*)+$|(?:[-*+]|\d{1,9}[.)])[ \t]*$|$)")
_TOP_KEY = re.compile(r"^([^\s#\-:'\"][^:]*?|'[^']*'|\"[^\"]*\")[ \t]*:(?:[ \t]|$)")

_md = MarkdownIt("commonmark", {"html": True}).disable(["inline", "text_join"], ignoreInvalid=True)


def _blank(text: str, start: int, end: int, out: list[str]) -> None:
    for i in range(start, end):
        if out[i] not in "\r\n":
            out[i] = " "


def mask_non_links(body: str) -> str:
    """Return ``body`` with code, comments and inline code blanked to spaces.

    The result has the same length and the same line breaks, so offsets and
    line numbers found in it hold for ``body``.
    """
    if _needs_blocks(body, comments=False):
        return _mask(body, True)
    if "<!--" in body:
        spans = _comment_blocks(body)
        return _mask(body, True) if spans is None else _mask(body, False, spans)
    return _mask(body, False)


_CONTAINER_PREFIX = re.compile(r"[ \t]*(?:(?:>|[-*+]|\d{1,9}[.)])[ \t]*)+")


def _comment_blocks(body: str) -> list[tuple[int, int]] | None:
    """The HTML comment blocks markdown-it would find in ``body`` (which has
    no fence and no indented code block), as (start, end) offsets of whole
    lines; None when one may sit in a list item or quote (then only the
    block parse knows).

    CommonMark: a line starting with ``<!--`` after at most three spaces
    opens an HTML block that ends with the first line containing ``-->``
    (or the end of the text); ``<!--`` elsewhere is inline HTML, which the
    comment pattern masks anyway."""
    out: list[tuple[int, int]] = []
    pos = 0
    for m in re.finditer("<!--", body):
        if m.start() < pos:
            continue
        line_start = body.rfind("\n", 0, m.start()) + 1
        prefix = body[line_start : m.start()]
        if prefix == " " * len(prefix) and len(prefix) <= 3:
            close = body.find("-->", line_start)
            if close == -1:
                end = len(body)
            else:
                nl = body.find("\n", close)
                end = len(body) if nl == -1 else nl + 1
            out.append((line_start, end))
            pos = end
        elif not prefix.strip() or _CONTAINER_PREFIX.fullmatch(prefix):
            return None
    return out


def _needs_blocks(body: str, comments: bool = True) -> bool:
    """Whether markdown-it's block parse can find a fence, an indented code
    block or an HTML comment block in ``body``.

    A scan decides most notes: no fence marker, no ``<!--`` and no indented
    line that could open a code block (real notes indent nested list items,
    which continue the line above) means there is nothing to find; only
    the rest are parsed (markdown-it is ~80% of indexing a real vault)."""
    if (_FENCE_OR_COMMENT if comments else _FENCE).search(body):
        return True
    for m in _INDENTED.finditer(body):
        start = m.start()
        if start == 0:
            return True
        prev = body[body.rfind("\n", 0, start - 1) + 1 : start - 1].rstrip("\r")
        if _BLOCK_END.match(prev):
            return True
    return False


def _mask(body: str, parse_blocks: bool, spans: list[tuple[int, int]] | None = None) -> str:
    """:func:`mask_non_links`, with markdown-it's block parse only when
    ``parse_blocks``, else blanking the comment block ``spans`` found by a
    scan."""
    chars: list[str] | None = None
    if spans:
        chars = list(body)
        for start, end in spans:
            _blank(body, start, end, chars)
    if parse_blocks:
        chars = list(body)
        line_starts = [0] + [m.end() for m in re.finditer("\n", body)]
        for tok in _md.parse(body):
            if tok.map is None or tok.type not in ("fence", "code_block", "html_block"):
                continue
            if tok.type == "html_block" and not tok.content.lstrip().startswith("<!--"):
                continue
            a, b = tok.map
            start = line_starts[a] if a < len(line_starts) else len(body)
            end = line_starts[b] if b < len(line_starts) else len(body)
            _blank(body, start, end, chars)
    text = "".join(chars) if chars is not None else body
    # Code spans bind tighter than comments: `%%` inside backticks is text.
    for pattern in (_INLINE_CODE, _HTML_COMMENT, _OBSIDIAN_COMMENT):
        if pattern is _INLINE_CODE and "`" not in text:
            continue
        if pattern is _HTML_COMMENT and "<!--" not in text:
            continue
        if pattern is _OBSIDIAN_COMMENT and "%%" not in text:
            continue
        matches = list(pattern.finditer(text))
        if matches:
            chars = list(text)
            for m in matches:
                _blank(text, m.start(), m.end(), chars)
            text = "".join(chars)
    return text


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


def _line_index(text: str) -> list[int]:
    return [m.end() for m in re.finditer("\n", text)]


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
    newlines = _line_index(body)
    found: list[tuple[int, Link]] = []
    for m in WIKILINK.finditer(masked):
        # Found in the masked text, read from the original: a label or heading
        # may hold inline code (``[[Functions#hasTag|`hasTag`]]``).
        target, heading, label = split_inner(body[m.start(2) : m.end(2)])
        if not target:
            continue
        start = m.start()
        found.append(
            (
                start,
                Link(
                    target=target,
                    edge=BODY_EDGE,
                    line=body_line + bisect_right(newlines, start),
                    where="body",
                    label=label,
                    heading=heading,
                    embed=bool(m.group(1)),
                    raw=body[m.start() : m.end()],
                    start=body_start + m.start(),
                    end=body_start + m.end(),
                    style="wikilink",
                ),
            )
        )
    if "](" in masked:
        wiki_spans = [(m.start(), m.end()) for m in WIKILINK.finditer(masked)]
        for m in MDLINK.finditer(masked):
            if any(a <= m.start() < b for a, b in wiki_spans):
                continue
            dest = body[m.start(3) : m.end(3)]
            if dest.startswith("<") and dest.endswith(">"):
                dest = dest[1:-1]
            if not dest or dest.startswith("#") or dest.startswith("//") or _SCHEME.match(dest):
                continue
            heading = None
            if "#" in dest:
                dest, heading = dest.split("#", 1)
                heading = unquote(heading)
            target = unquote(dest).strip()
            if not target:
                continue
            found.append(
                (
                    m.start(),
                    Link(
                        target=target,
                        edge=BODY_EDGE,
                        line=body_line + bisect_right(newlines, m.start()),
                        where="body",
                        label=body[m.start(2) : m.end(2)],
                        heading=heading,
                        embed=bool(m.group(1)),
                        raw=body[m.start() : m.end()],
                        start=body_start + m.start(),
                        end=body_start + m.end(),
                        style="markdown",
                    ),
                )
            )
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
