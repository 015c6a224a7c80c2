"""Small helpers the learning step uses to plan page edits.

Each edit reads a page's current bytes, applies span edits from
:mod:`brainwork.vault.edit` (never re-dumping YAML) and returns a
:class:`brainwork.ops.journal.FileChange`; the caller hands the changes to
:func:`brainwork.ops.unit_of_work.apply` so the whole operation is journalled
and undoable.
"""

from __future__ import annotations

from typing import Callable

from brainwork.config import Config
from brainwork.errors import UserError
from brainwork.ops.files import read_current
from brainwork.ops.journal import FileChange
from brainwork.vault.edit import EditError
from brainwork.vault.links import WIKILINK_VALUE



def link(page_id: str) -> str:
    """The wikilink text for a page id: ``"[[corrections/x]]"``."""
    return f"[[{page_id}]]"


def link_target(text: str) -> str | None:
    """The target of a lone wikilink ``"[[a/b|label]]"`` -> ``"a/b"``, else None."""
    m = WIKILINK_VALUE.match(str(text or ""))
    return m.group(1).strip() if m else None


def read_text(config: Config, rel: str) -> tuple[bytes, str]:
    """Current bytes and decoded text of vault file ``rel``.

    Raises:
        UserError: the file is missing or not UTF-8 (names the file).
    """
    data = read_current(config, rel)
    if data is None:
        raise UserError(f"{rel}: file not found (re-index with `brainwork index`)")
    try:
        return data, data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{rel}: not UTF-8 text (byte {exc.start}); cannot edit it") from None


class Edits:
    """Collects text edits per file and turns them into FileChanges.

    Several edits to one file are composed in order; the file is read once.
    """

    def __init__(self, config: Config):
        self.config = config
        self._before: dict[str, bytes | None] = {}
        self._text: dict[str, str] = {}
        self._order: list[str] = []

    def edit(self, rel: str, fn: Callable[[str], str]) -> None:
        """Apply ``fn(text) -> text`` to ``rel``.

        Raises:
            UserError: the file cannot be read, or the edit is unsafe
                (broken frontmatter; the message names the file).
        """
        if rel not in self._text:
            before, text = read_text(self.config, rel)
            self._before[rel] = before
            self._text[rel] = text
            self._order.append(rel)
        try:
            self._text[rel] = fn(self._text[rel])
        except EditError as exc:
            raise UserError(f"{rel}: {exc}") from None

    def create(self, rel: str, text: str) -> None:
        """Create a new file ``rel`` holding ``text`` (it must not exist)."""
        self._before[rel] = None
        self._text[rel] = text
        self._order.append(rel)

    def changes(self) -> list[FileChange]:
        """The FileChanges, in the order files were first touched; files
        whose bytes did not change are left out."""
        out = []
        for rel in self._order:
            after = self._text[rel].encode("utf-8")
            if after != self._before[rel]:
                out.append(FileChange(rel, self._before[rel], after))
        return out


def add_items(text: str, key: str, items: list[str]) -> str:
    """Add ``items`` to the list under ``key`` (those not already there,
    compared like :func:`brainwork.vault.edit.add_to_list_field`).

    One new item is appended as one line (every other byte kept); several
    are written in one :func:`~brainwork.vault.edit.set_field` of the key
    (only that key's lines change), so a long list is not re-parsed once per
    item.
    """
    from brainwork.vault.edit import add_to_list_field, frontmatter_fields, set_field
    from brainwork.vault.resolve import norm

    current = frontmatter_fields(text).get(key)
    existing = [str(v) for v in current] if isinstance(current, list) else ([str(current)] if current else [])
    seen = {norm(i.strip()) for i in existing}
    new = []
    for item in items:
        k = norm(item.strip())
        if k not in seen:
            seen.add(k)
            new.append(item)
    if not new:
        return text
    if len(new) == 1:
        return add_to_list_field(text, key, new[0])
    return set_field(text, key, existing + new)
