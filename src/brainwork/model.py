"""Plain data shared by every layer: parsed pages, links, parse errors.

No behaviour beyond small derived properties; nothing here imports Textual or
the store.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple


class Link(NamedTuple):
    """One link occurrence as written in a file.

    - ``target``: the link target as written, without heading, block or label
      (``"Some Note"``, ``"folder/x.md"``, ``"Figure 1.png"``); URL-decoded for
      Markdown links.
    - ``edge``: edge type name from :data:`brainwork.vocabulary.EDGE_NAMES`.
    - ``reverse``: ``True`` when written with an inverse key (``corrects:``),
      so the edge runs from the target to the page that wrote it.
    - ``line``: 1-based line in the file; ``where``: ``"body"`` or
      ``"frontmatter"``.
    - ``start``/``end``: character offsets of ``raw`` in the decoded file text
      (after the byte-order mark), so an edit can replace exactly this span.
    - ``style``: ``"wikilink"`` or ``"markdown"``.

    A named tuple rather than a frozen dataclass: a full index builds and
    holds every link of the vault at once (22,556 in obsidian-hub, ~10
    times that in a 50,000-page vault), and a frozen dataclass sets each
    of its twelve fields through ``object.__setattr__``: ~3x the time to
    build one. Immutable and hashable alike; fields by name only (never
    by position or unpacking), so adding one breaks no caller.
    """

    target: str
    edge: str
    line: int
    where: str = "body"
    reverse: bool = False
    label: str | None = None
    heading: str | None = None
    embed: bool = False
    raw: str = ""
    start: int = -1
    end: int = -1
    style: str = "wikilink"


@dataclass(frozen=True)
class ParseError:
    """A file that could not be read or parsed completely.

    ``path`` is vault-relative (POSIX separators), ``line`` 1-based; a problem
    that concerns the whole file (its name, its bytes, its size, reading it)
    is put on line 1, where ``check`` and an editor's ``file:line`` point.
    """

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass
class ParsedPage:
    """A Markdown page as read from the vault.

    ``id`` is the vault-relative path without ``.md``; ``fields`` the
    frontmatter mapping with every scalar kept as text (so a title that looks
    like a date, a number or a boolean stays text); ``body`` the Markdown after
    the frontmatter, and ``body_line`` the 1-based file line it starts on.
    ``hash`` is the SHA-256 hex digest of the file's bytes; ``mtime_ns`` and
    ``size`` (bytes) come from the file system.
    """

    id: str
    path: str
    title: str
    type: str | None
    fields: dict
    aliases: list[str]
    tags: list[str]
    body: str
    body_line: int
    hash: str
    size: int
    mtime_ns: int
    links: list[Link] = field(default_factory=list)
    errors: list[ParseError] = field(default_factory=list)
    has_frontmatter: bool = False

    def field_text(self, name: str) -> str | None:
        """A frontmatter field as one string (lists joined by ", "), or None."""
        value = self.fields.get(name)
        if value is None or value == "":
            return None
        if isinstance(value, list):
            return ", ".join(str(v) for v in value)
        return str(value)
