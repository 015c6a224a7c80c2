"""Split a page's text into YAML frontmatter and Markdown body.

Handles what real files contain: a UTF-8 byte-order mark, CRLF line endings,
an empty block (``---`` directly followed by ``---``), and a leading ``---``
with no closing fence (then there is no frontmatter; :attr:`Split.unclosed`
says whether the lines after it read as frontmatter keys). YAML is
loaded with PyYAML's base loader (the C one where available), so every scalar
stays text: a title such as ``1984``, ``yes`` or ``2026-07-29`` is not turned
into a number, boolean or date.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from brainwork.thresholds import MAX_YAML_VALUES

try:  # the C loader is ~7x faster (CONVENTIONS.md)
    from yaml import CBaseLoader as _Loader
except ImportError:  # pragma: no cover - libyaml missing
    from yaml import BaseLoader as _Loader  # type: ignore[assignment]

_OPEN = re.compile(r"---[ \t]*\r?\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.MULTILINE)


@dataclass(frozen=True)
class Split:
    """Result of :func:`split_frontmatter`.

    ``yaml_text`` is ``None`` when the file has no frontmatter block;
    ``yaml_start``/``yaml_end`` are character offsets of the YAML text and
    ``body_start`` of the body in the given text; ``body_line`` the 1-based
    line the body starts on. ``unclosed`` is True when the file opens with a
    ``---`` line that no closing fence follows and its first non-blank line
    after it is a ``key:`` line: frontmatter meant and left open (then
    ``yaml_text`` is ``None`` and the whole file is body).
    """

    yaml_text: str | None
    yaml_start: int
    yaml_end: int
    body_start: int
    body_line: int
    unclosed: bool = False


class FrontmatterError(ValueError):
    """Broken YAML; ``line`` is the 1-based line in the file."""

    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line
        self.message = message


class NotAMapping(FrontmatterError):
    """Well-formed YAML that is not a mapping; ``got`` names what it is:
    ``"text"`` (a plain scalar) or ``"a list"``."""

    def __init__(self, line: int, message: str, got: str):
        super().__init__(line, message)
        self.got = got


#: A line that reads as a YAML mapping key (``title:``, ``"my key": x``):
#: text up to its first colon (not opening with ``#``, ``-`` or a quote), or
#: a quoted key, then a colon followed by a space or the line's end, as YAML
#: reads a key (``Note: see below`` is one too; ``https://x`` and ``12:30``
#: are not).
_KEY_LINE = re.compile(r"[ \t]*(?:[^\s#:'\"\-][^:\n]*?|'[^'\n]*'|\"[^\"\n]*\")[ \t]*:(?:[ \t]|\r?$)")
_BLANK_LINES = re.compile(r"(?:[ \t]*\r?\n)*")


def split_frontmatter(text: str) -> Split:
    """Locate the frontmatter block in ``text`` (BOM already removed).

    A leading ``---`` with no closing fence is no frontmatter: the whole file
    is body, as Obsidian and Markdown read it (a horizontal rule), so no
    word or link of the file is lost. When the first non-blank line after it
    is a ``key:`` line the author meant frontmatter and forgot to close it:
    ``unclosed`` says so, for the parser to report (a rule followed by prose
    is not reported).
    """
    m = _OPEN.match(text)
    if not m:
        return Split(None, 0, 0, 0, 1)
    close = _CLOSE.search(text, m.end())
    if close is None:
        first = _BLANK_LINES.match(text, m.end()).end()
        return Split(None, 0, 0, 0, 1, unclosed=bool(_KEY_LINE.match(text, first)))
    yaml_text = text[m.end() : close.start()]
    body_start = close.end()
    body_line = text.count("\n", 0, body_start) + 1
    return Split(yaml_text, m.end(), close.start(), body_start, body_line)


#: PyYAML contexts naming a construct that was opened and never closed; the
#: problem mark then points past it (often at the end of the block), so the
#: line where the construct starts is the one to fix.
_UNCLOSED = (
    "while scanning a quoted scalar",
    "while parsing a flow sequence",
    "while parsing a flow mapping",
    "while scanning a block scalar",
)


def _locate(exc: yaml.MarkedYAMLError, yaml_text: str, first_line: int) -> tuple[int, str]:
    """``(file line, message)`` for a PyYAML error.

    The line is where the problem was noticed, except for an unclosed quote,
    bracket or brace, where it is the line that opened it; a problem noticed
    at the end of the block is put on its last non-blank line (checked in
    tests/vault/test_frontmatter.py against hand-counted lines).
    """
    problem = exc.problem or str(exc)
    last = max(len(yaml_text.rstrip().split("\n")) - 1, 0)  # 0-based last non-blank line
    pm, cm = exc.problem_mark, exc.context_mark
    if cm is not None and exc.context and exc.context.startswith(_UNCLOSED):
        line = first_line + min(cm.line, last)
        where = f"; noticed on line {first_line + min(pm.line, last)}" if pm is not None else ""
        return line, f"broken YAML frontmatter: {problem} ({exc.context} that starts on this line{where})"
    mark = pm or cm
    return first_line + min(mark.line if mark else 0, last), f"broken YAML frontmatter: {problem}"


def _reader_problem(exc: yaml.reader.ReaderError, yaml_text: str, first_line: int) -> tuple[int, str]:
    """``(file line, message)`` for a character YAML does not accept (a
    control character): PyYAML names it by its offset in the block, on a
    second line of its message; the person needs the line and column."""
    pos = max(0, min(exc.position, len(yaml_text)))
    line = yaml_text.count("\n", 0, pos)
    column = pos - (yaml_text.rfind("\n", 0, pos) + 1) + 1
    char = exc.character if isinstance(exc.character, int) else ord(exc.character[:1] or "\0")
    what = "control character" if char < 0x20 or 0x7F <= char < 0xA0 else "character"
    return first_line + line, (f"broken YAML frontmatter: {what} U+{char:04X} at column {column} "
                               "(YAML does not allow it; write it as an escape in double quotes, e.g. \\x"
                               f"{char:02x})")


#: The plain scalars YAML 1.1 reads as null (https://yaml.org/type/null.html).
#: :func:`parse_yaml` keeps scalars as text, so ``type: null`` arrives as the
#: text ``"null"``; a field that names something treats these as absent.
YAML_NULLS = frozenset({"~", "null", "Null", "NULL"})


def is_null(value) -> bool:
    """True for a missing value, an empty one, or YAML's null spellings."""
    return value is None or (isinstance(value, str) and (not value.strip() or value.strip() in YAML_NULLS))


def parse_yaml(yaml_text: str, first_line: int = 2) -> dict:
    """Load a frontmatter block into a dict with text scalars.

    ``first_line`` is the file line the YAML text starts on (2, after the
    opening fence). An empty block gives ``{}``.

    Raises:
        FrontmatterError: the YAML is malformed; its ``line`` is the file
            line of the problem.
        NotAMapping: (a FrontmatterError) the YAML is valid but not a mapping.
    """
    if not yaml_text.strip():
        return {}
    try:
        data = _load(yaml_text)
    except yaml.MarkedYAMLError as exc:
        raise FrontmatterError(*_locate(exc, yaml_text, first_line)) from None
    except yaml.reader.ReaderError as exc:
        raise FrontmatterError(*_reader_problem(exc, yaml_text, first_line)) from None
    except yaml.YAMLError as exc:
        # One line: PyYAML's text spans several ("in <unicode string> ...").
        raise FrontmatterError(first_line, f"broken YAML frontmatter: {' '.join(str(exc).split())}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        got = "a list" if isinstance(data, list) else "text"
        raise NotAMapping(first_line + _first_content_line(yaml_text),
                          f"frontmatter must be a mapping, got {got} (write 'key: value' lines between the --- fences)",
                          got)
    if "*" in yaml_text:  # aliases share objects: count the values they expand to
        n = _expanded_size(data)
        if n > MAX_YAML_VALUES:
            raise FrontmatterError(
                first_line,
                f"YAML aliases in the frontmatter expand to {n:,} values (more than {MAX_YAML_VALUES:,}); not parsed",
            )
    return data


def _first_content_line(yaml_text: str) -> int:
    """0-based line of the first line of ``yaml_text`` that is neither blank
    nor a YAML comment: where a value that is not a mapping starts."""
    for i, line in enumerate(yaml_text.split("\n")):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return i
    return 0


class _TreeLoader(_Loader):
    """The loader :func:`_load` composes a node tree with for :func:`_plain`,
    which reads nodes by kind and never their tags: the tag resolution the
    composer calls back into Python for at every node (~65,000 calls over
    obsidian-hub) is skipped. Parsing, composing and their errors are
    ``_Loader``'s."""

    def resolve(self, kind, value, implicit):
        return ""

    def descend_resolver(self, current_node, current_index):
        pass

    def ascend_resolver(self):
        pass


class _NotPlain(Exception):
    """A node :func:`_plain` leaves to PyYAML's own constructor."""


def _plain(node):
    """The Python value of a node tree without aliases, as PyYAML's
    ``BaseConstructor`` builds it (scalars as text, sequences as lists,
    mappings as dicts, a repeated key's last value winning), in one tight
    recursion instead of its per-node bookkeeping.

    Raises:
        _NotPlain: a mapping key that is not a scalar (PyYAML raises
            "found unhashable key" for a list or mapping key, with marks).
    """
    cls = node.__class__
    if cls is ScalarNode:
        return node.value
    if cls is SequenceNode:
        return [_plain(child) for child in node.value]
    if cls is not MappingNode:
        raise _NotPlain
    out = {}
    for key, value in node.value:
        if key.__class__ is not ScalarNode:
            raise _NotPlain
        out[key.value] = _plain(value)
    return out


def _load(yaml_text: str):
    """``yaml.load(yaml_text, Loader=_Loader)``, the same value and errors.

    PyYAML's C loader parses and composes the node tree in C, then builds
    the Python value in Python with bookkeeping for aliases, tags and deep
    construction that frontmatter rarely needs: ~40% of the load (0.7 s CPU
    of 2.0 s for 50,000 synthetic pages). Without aliases (no ``*``) and
    with no constructor registered on the loader (so every tag is read as
    the base loader reads it: by node kind), :func:`_plain` builds the same
    value from the composed tree; anything else goes through ``yaml.load``."""
    if "*" in yaml_text or _Loader.yaml_constructors or _Loader.yaml_multi_constructors:
        return yaml.load(yaml_text, Loader=_Loader)
    loader = _TreeLoader(yaml_text)
    try:
        node = loader.get_single_node()
    finally:
        loader.dispose()
    if node is None:
        return None
    try:
        return _plain(node)
    except (_NotPlain, RecursionError):
        return yaml.load(yaml_text, Loader=_Loader)


def _expanded_size(data) -> int:
    """How many values ``data`` holds once every alias is written out, in
    time proportional to its distinct objects (sizes of shared ones are
    remembered by identity)."""
    memo: dict[int, int] = {}

    def size(obj) -> int:
        if isinstance(obj, (list, dict)):
            key = id(obj)
            if key not in memo:
                parts = (x for kv in obj.items() for x in kv) if isinstance(obj, dict) else obj
                memo[key] = 1 + sum(size(x) for x in parts)
            return memo[key]
        return 1

    return size(data)

