"""Span edits on a page's text that never re-serialise the YAML.

Every function takes the decoded text of one file (a leading byte-order mark
allowed) and returns new text in which only the lines or spans it had to
change differ; every other byte, the line-ending style (LF or CRLF) and the
BOM stay as they were. Rule source: BRIEF.md, "never lose a user's byte:
edits change only the spans they must (never re-dump YAML)".

- :func:`set_field` sets, replaces or removes one top-level frontmatter key
  (only that key's lines change; a frontmatter block is created if needed).
- :func:`add_to_list_field` / :func:`remove_from_list_field` add or remove
  one item of a list-valued key (``aliases``, ``promoted_from`` ...).
- :func:`replace_spans` replaces character spans, e.g. the ``start``/``end``
  of :class:`brainwork.model.Link`.
- :func:`field_block` returns a key's raw lines, :func:`frontmatter_fields`
  the parsed mapping.

Errors: :class:`EditError` (a ``ValueError``) for overlapping spans, bad
keys or a frontmatter block too broken to edit safely.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import yaml

from brainwork.vault.frontmatter import FrontmatterError, parse_yaml, split_frontmatter

try:  # C loader: ~7x faster (CONVENTIONS.md)
    from yaml import CSafeLoader as _SafeLoader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _SafeLoader  # type: ignore[assignment]

BOM = "\ufeff"
_KEY_OK = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")
_TOP_KEY = re.compile(r"^([^\s#\-:'\"?][^:]*?|'[^']*'|\"[^\"]*\")[ \t]*:(?:[ \t]|$)")
_ITEM = re.compile(r"^([ \t]*)-(?:[ \t]|$)")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")

Value = str | list[str] | None


class EditError(ValueError):
    """An edit that cannot be made safely; the message says why."""


def newline_of(text: str) -> str:
    """The file's line ending: ``"\\r\\n"`` if any CRLF occurs, else ``"\\n"``."""
    return "\r\n" if "\r\n" in text else "\n"


# -- rendering one value -------------------------------------------------------
def _round_trips(line: str, value) -> bool:
    try:
        return yaml.load(line, Loader=_SafeLoader) == {"k": value}
    except yaml.YAMLError:
        return False


_NEEDS_ESCAPE = re.compile("[^\x09\x0a\x0d\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")


def _double_quoted(value: str) -> str:
    # JSON strings are YAML double-quoted scalars; YAML further forbids raw
    # non-printable characters and reads U+0085/U+2028/U+2029 as line breaks.
    out = json.dumps(value, ensure_ascii=False)
    return _NEEDS_ESCAPE.sub(lambda m: "\\u%04x" % ord(m.group()) if ord(m.group()) <= 0xFFFF else "\\U%08x" % ord(m.group()), out)


def render_scalar(value: str, quote: str | None = None) -> str:
    """One YAML scalar for ``value``.

    Plain text where that reads back as the same *string* under YAML's core
    schema (so ``1984``, ``yes``, ``2026-07-29`` and ``[[link]]`` get quoted),
    else double-quoted (JSON string syntax, which YAML reads alike).
    ``quote`` (``'"'`` or ``"'"``) keeps the quoting style of the value being
    replaced when it is valid for ``value``."""
    value = str(value)
    if quote == '"' or (quote is None and (_CONTROL.search(value) or "\n" in value)):
        return _double_quoted(value)
    if quote is None and value and value == value.strip() and "\t" not in value and _round_trips(f"k: {value}", value):
        return value
    if quote == "'" and "\n" not in value and not _CONTROL.search(value):
        single = "'" + value.replace("'", "''") + "'"
        if _round_trips(f"k: {single}", value):
            return single
    return _double_quoted(value)


def _render_flow_item(value: str) -> str:
    if re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_ .\-/]*", value) and value == value.strip() and _round_trips(f"k: [{value}]", [value]):
        return value
    return _double_quoted(str(value))


def _render(key: str, value: str | list[str], nl: str, *, style: str = "block", indent: str = "  ", quote: str | None = None) -> str:
    if isinstance(value, (list, tuple)):
        if not value:
            return f"{key}: []{nl}"
        if style == "flow":
            return f"{key}: [{', '.join(_render_flow_item(v) for v in value)}]{nl}"
        return f"{key}:{nl}" + "".join(f"{indent}- {render_scalar(v)}{nl}" for v in value)
    return f"{key}: {render_scalar(value, quote)}{nl}"


# -- locating a key ------------------------------------------------------------
@dataclass(frozen=True)
class FieldSpan:
    """Where one top-level key's lines are: ``start``/``end`` are character
    offsets in the text *without* the BOM (``end`` after the last line's line
    break); ``style`` is ``"block"`` (a ``- item`` list), ``"flow"``
    (``[a, b]``) or ``"scalar"``; ``indent`` the block items' indentation;
    ``quote`` the quote character of a quoted scalar value, else None."""

    start: int
    end: int
    style: str
    indent: str
    quote: str | None


def _key_of(line: str) -> str | None:
    m = _TOP_KEY.match(line)
    if not m:
        return None
    return m.group(1).strip().strip("'\"").strip()


def _lines(text: str, start: int, end: int) -> list[tuple[int, str]]:
    out = []
    pos = start
    for line in text[start:end].splitlines(keepends=True):
        out.append((pos, line))
        pos += len(line)
    return out


def _find_field(text: str, yaml_start: int, yaml_end: int, key: str) -> FieldSpan | None:
    lines = _lines(text, yaml_start, yaml_end)
    found = None
    i = 0
    while i < len(lines):
        pos, line = lines[i]
        k = _key_of(line.rstrip("\r\n"))
        if k is None:
            i += 1
            continue
        j = i + 1
        while j < len(lines):
            nxt = lines[j][1].rstrip("\r\n")
            if nxt.strip() == "" or nxt[0] in " \t" or _ITEM.match(nxt):
                j += 1
                continue
            break
        last = j
        while last > i + 1 and lines[last - 1][1].strip() == "":
            last -= 1  # trailing blank lines belong to no key
        if k == key:  # the last occurrence is what YAML loaders keep
            end = lines[last - 1][0] + len(lines[last - 1][1])
            stripped = line.rstrip("\r\n")
            first_value = stripped[_TOP_KEY.match(stripped).end() :].strip()
            style, indent, quote = "scalar", "  ", None
            if first_value.startswith("["):
                style = "flow"
            elif first_value == "" or first_value.startswith("#"):
                items = [lines[x][1] for x in range(i + 1, last) if _ITEM.match(lines[x][1])]
                if items:
                    style = "block"
                    indent = _ITEM.match(items[0]).group(1)
            elif first_value[:1] in ("'", '"'):
                quote = first_value[0]
            found = FieldSpan(pos, end, style, indent, quote)
        i = j
    return found


def _strip_bom(text: str) -> tuple[str, str]:
    return (BOM, text[1:]) if text.startswith(BOM) else ("", text)


def _check_key(key: str) -> None:
    if not _KEY_OK.match(key or ""):
        raise EditError(f"not a plain frontmatter key: {key!r}")


# -- public API ----------------------------------------------------------------
def frontmatter_fields(text: str) -> dict:
    """The frontmatter mapping of ``text`` (scalars as text), ``{}`` if none.

    Raises:
        EditError: the YAML is broken or not a mapping, or its block is never
            closed (message names the line): an edit would otherwise put a
            second block above the open one and leave its fields as body text.
    """
    _, body = _strip_bom(text)
    split = split_frontmatter(body)
    if split.unclosed:
        raise EditError("line 1: frontmatter opened on line 1 is never closed; add a '---' line after its last field")
    if split.yaml_text is None:
        return {}
    try:
        return parse_yaml(split.yaml_text, first_line=body.count("\n", 0, split.yaml_start) + 1)
    except FrontmatterError as exc:
        raise EditError(f"line {exc.line}: {exc.message}") from None


def field_block(text: str, key: str) -> str | None:
    """The raw lines of top-level ``key`` (with their line breaks), or None."""
    _, body = _strip_bom(text)
    split = split_frontmatter(body)
    if split.yaml_text is None:
        return None
    span = _find_field(body, split.yaml_start, split.yaml_end, key)
    return None if span is None else body[span.start : span.end]


def set_field(text: str, key: str, value: Value) -> str:
    """Set, replace or remove (``value=None``) the top-level key ``key``.

    ``value`` is a string (rendered as a YAML scalar, quoted only when needed,
    keeping the old value's quote style) or a list of strings (rendered in the
    old value's style, block ``- item`` lines by default). Only the key's own
    lines change; a new key goes at the end of the block; with no
    frontmatter, a block is created at the top of the file.

    Raises:
        EditError: ``key`` is not a plain key.
    """
    _check_key(key)
    bom, body = _strip_bom(text)
    nl = newline_of(body)
    split = split_frontmatter(body)
    if split.yaml_text is None:
        if value is None:
            return text
        return bom + f"---{nl}" + _render(key, value, nl) + f"---{nl}" + body
    span = _find_field(body, split.yaml_start, split.yaml_end, key)
    if span is None:
        if value is None:
            return text
        at = split.yaml_end
        return bom + body[:at] + _render(key, value, nl) + body[at:]
    if value is None:
        new = ""
    else:
        style = span.style if span.style in ("flow", "block") else "block"
        new = _render(key, value, nl, style=style, indent=span.indent, quote=span.quote if isinstance(value, str) else None)
    return bom + body[: span.start] + new + body[span.end :]


def _as_items(value) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, list):
        return [str(v) for v in value if v is not None and not isinstance(v, (dict, list))]
    if isinstance(value, str):
        return [value]
    return []


def _same(a: str, b: str) -> bool:
    from brainwork.vault.resolve import norm

    return norm(a.strip()) == norm(b.strip())


def add_to_list_field(text: str, key: str, item: str) -> str:
    """Add ``item`` to the list under ``key`` unless an equal item
    (case-insensitive, NFC) is already there.

    A block list gets one new ``- item`` line after its last item; a flow
    list is rewritten on its own line; a scalar becomes a block list holding
    the old value and ``item``; a missing key is created.

    Raises:
        EditError: bad key, or broken YAML (the list cannot be read).
    """
    _check_key(key)
    current = frontmatter_fields(text).get(key)
    items = _as_items(current)
    if any(_same(i, item) for i in items):
        return text
    if isinstance(current, list) and items:
        bom, body = _strip_bom(text)
        split = split_frontmatter(body)
        span = _find_field(body, split.yaml_start, split.yaml_end, key)
        if span is not None and span.style == "block":
            nl = newline_of(body)
            head = body[: span.end]
            if not head.endswith("\n"):
                head += nl
            return bom + head + f"{span.indent}- {render_scalar(item)}{nl}" + body[span.end :]
    return set_field(text, key, items + [item])


def remove_from_list_field(text: str, key: str, item: str) -> str:
    """Remove every item equal to ``item`` (exact text) from ``key``'s list;
    a block list loses only those lines; an emptied key is removed.

    Raises:
        EditError: bad key or broken YAML.
    """
    _check_key(key)
    current = frontmatter_fields(text).get(key)
    items = _as_items(current)
    keep = [i for i in items if i != item]
    if len(keep) == len(items):
        return text
    if not keep:
        return set_field(text, key, None)
    if isinstance(current, list):
        bom, body = _strip_bom(text)
        split = split_frontmatter(body)
        span = _find_field(body, split.yaml_start, split.yaml_end, key)
        if span is not None and span.style == "block":
            out = []
            removed = 0
            for _, line in _lines(body, span.start, span.end):
                m = _ITEM.match(line)
                if m and removed < len(items) - len(keep):
                    try:
                        val = yaml.load("k: " + line[m.end():].strip(), Loader=yaml.BaseLoader)["k"]
                    except (yaml.YAMLError, TypeError, KeyError):
                        val = None
                    if val == item:
                        removed += 1
                        continue
                out.append(line)
            if removed == len(items) - len(keep):
                return bom + body[: span.start] + "".join(out) + body[span.end :]
    return set_field(text, key, keep)


def replace_spans(text: str, spans) -> str:
    """Replace ``(start, end, new)`` character spans of ``text``.

    Spans are offsets into ``text`` exactly as given (for
    :class:`~brainwork.model.Link` offsets, which count from after the BOM,
    pass the text without its BOM). Order does not matter.

    Raises:
        EditError: a span is out of range or two spans overlap.
    """
    ordered = sorted(spans, key=lambda s: (s[0], s[1]))
    out: list[str] = []
    pos = 0
    for start, end, new in ordered:
        if start < pos or end < start or end > len(text):
            raise EditError(f"span {start}..{end} overlaps another or lies outside the text (length {len(text)})")
        out.append(text[pos:start])
        out.append(new)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def append_field_lines(text: str, lines: str) -> str:
    """Append raw frontmatter ``lines`` (one or more whole ``key: ...``
    lines, e.g. from :func:`field_block` of another page) at the end of the
    frontmatter block, creating the block if there is none. Line endings are
    converted to the file's style. The caller makes sure the key is new."""
    if not lines:
        return text
    bom, body = _strip_bom(text)
    nl = newline_of(body)
    block = lines.replace("\r\n", "\n").replace("\n", nl)
    if not block.endswith(nl):
        block += nl
    split = split_frontmatter(body)
    if split.yaml_text is None:
        return bom + f"---{nl}" + block + f"---{nl}" + body
    return bom + body[: split.yaml_end] + block + body[split.yaml_end :]
