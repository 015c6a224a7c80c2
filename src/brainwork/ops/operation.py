"""An operation and its changes: the record every vault change becomes.

:class:`FileChange` (one file's before and after bytes) is defined in
:mod:`brainwork.ops.journal`, which a capture imports without the store;
:class:`Operation` is one recorded operation as the undo log keeps it.
The undo log stores the changes as text (:func:`encode_changes`): Kùzu
0.11.3 takes no bytes parameters.
"""

from __future__ import annotations

import base64
import difflib
import json
import zlib
from dataclasses import dataclass, field

from brainwork.ops.journal import FileChange, pack, unpack
from brainwork.store.history import UndoRow

__all__ = ["PASSED", "FileChange", "Operation", "decode_changes", "encode_changes"]

#: Undo-log state of an irreversible operation that an undo has stepped past.
PASSED = "passed"


@dataclass
class Operation:
    """One applied operation, as kept in the undo log.

    ``id`` counts from 1 (irreversible operations are numbered too);
    ``kind`` e.g. ``"rename"``; ``summary`` one line for people;
    ``created`` ISO 8601 UTC; ``state`` ``'done'``, ``'undone'`` or, for an
    irreversible one an undo stepped past, :data:`PASSED`;
    ``store_actions`` reversible store-only actions (``{"do": name, ...}``,
    see :mod:`brainwork.ops.store_actions`); ``paths`` the files touched
    (always filled); ``changes`` the before/after bytes (empty when listed
    without them); ``details`` what the operation reported (e.g.
    ``{"links_rewritten": 12}``).
    """

    id: int
    kind: str
    summary: str
    changes: list[FileChange]
    created: str
    reversible: bool
    state: str
    store_actions: list[dict] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    details: dict = field(default_factory=dict)

    @classmethod
    def from_row(cls, row: UndoRow, changes: list[FileChange] | None) -> "Operation":
        """The operation an undo-log row records; ``changes`` None when only
        its metadata was read."""
        return cls(
            id=int(row.id),
            kind=row.kind,
            summary=row.summary,
            changes=changes or [],
            created=row.created,
            reversible=bool(row.reversible),
            state=row.state,
            store_actions=json.loads(row.store_actions) if row.store_actions else [],
            paths=list(row.paths or []),
            details=json.loads(row.details) if row.details else {},
        )

    @property
    def description(self) -> str:
        """``summary`` without its leading ``kind``, for a list that shows
        the kind in a column of its own: most summaries start with it
        ("capture task tasks/x", "consolidate: 2 candidate rules")."""
        head, _, rest = self.summary.partition(" ")
        return rest if head in (self.kind, self.kind + ":") and rest else self.summary

    def diff(self, context: int = 2) -> list[tuple[str, str]]:
        """``[(path, unified diff text)]`` from before to after, for the undo
        log pane and ``brainwork log --diff``. Needs ``changes`` loaded;
        non-UTF-8 files show one line saying so."""
        out = []
        for c in self.changes:
            try:
                a = (c.before or b"").decode("utf-8").splitlines(keepends=True)
                b = (c.after or b"").decode("utf-8").splitlines(keepends=True)
            except UnicodeDecodeError:
                out.append((c.path, "(binary file changed)\n"))
                continue
            name_a = c.path if c.before is not None else "/dev/null"
            name_b = c.path if c.after is not None else "/dev/null"
            out.append((c.path, "".join(difflib.unified_diff(a, b, name_a, name_b, n=context))))
        return out


def encode_changes(changes: list[FileChange]) -> str:
    """The undo log's payload (text, for a STRING column): ``z1:`` + base64
    of the zlib-compressed (level 1) :func:`brainwork.ops.journal.pack`."""
    return "z1:" + base64.b64encode(zlib.compress(pack({}, changes), 1)).decode("ascii")


def decode_changes(payload: str) -> list[FileChange]:
    """Inverse of :func:`encode_changes` (also reads the first format:
    base64 of zlib JSON with base64 bytes)."""
    if payload.startswith("z1:"):
        return unpack(zlib.decompress(base64.b64decode(payload[3:])))[1]
    items = json.loads(zlib.decompress(base64.b64decode(payload)))
    unb64 = lambda t: None if t is None else base64.b64decode(t)  # noqa: E731
    return [FileChange(i["path"], unb64(i["before"]), unb64(i["after"])) for i in items]
