"""The undo log's queries (table ``UndoOp`` in :mod:`brainwork.store.schema`).

One row per reversible operation, newest has the highest ``id``. Columns:
``id`` (1, 2, ...), ``token`` (the journal's uuid, so crash recovery can tell
whether an operation was already recorded), ``kind``, ``summary``,
``created`` (ISO 8601 UTC), ``reversible``, ``state`` (``'done'`` |
``'undone'``), ``paths`` (vault-relative files touched), ``store_actions``
and ``details`` (JSON text) and ``payload`` (the encoded before/after bytes;
encoding owned by :mod:`brainwork.ops.operation`).

Rows are read and written as :class:`UndoRow` records.

This is store history, not derived data: a rebuild of the graph keeps it.
"""

from __future__ import annotations

from dataclasses import dataclass

from brainwork.store.db import Store


@dataclass(frozen=True, slots=True)
class UndoRow:
    """One row of the undo log, as stored (see the module doc for the
    columns). ``store_actions`` and ``details`` stay JSON text (decoded by
    :class:`brainwork.ops.operation.Operation`); ``payload`` is None when only the
    metadata was read (:func:`listing`, :func:`latest`, :func:`by_token`)."""

    id: int
    token: str
    kind: str
    summary: str
    created: str
    reversible: bool
    state: str
    paths: list[str]
    store_actions: str | None
    details: str | None
    payload: str | None = None

_META = (
    "o.id AS id, o.token AS token, o.kind AS kind, o.summary AS summary, o.created AS created, "
    "o.reversible AS reversible, o.state AS state, o.paths AS paths, o.store_actions AS store_actions, "
    "o.details AS details"
)


#: ``Meta`` key holding the highest operation id ever given out. A new
#: operation deletes the undone ones (:func:`drop_undone`), so the highest id
#: still in the table can be lower than one already shown to the person (and
#: written into a git commit message); ids are never handed out twice.
LAST_ID_KEY = "undo_last_id"


def next_id(store: Store) -> int:
    """One more than the highest operation id ever given out (1 for an empty
    log). Stores written before :data:`LAST_ID_KEY` existed fall back to the
    highest id in the table."""
    in_table = int(store.scalar("MATCH (o:UndoOp) RETURN coalesce(max(o.id), 0)") or 0)
    try:
        given = int(store.meta(LAST_ID_KEY) or 0)
    except ValueError:
        given = 0
    return max(in_table, given) + 1


def insert(store: Store, row: UndoRow) -> None:
    """Insert one operation (every column, ``payload`` included) and
    remember its id as given out (:data:`LAST_ID_KEY`)."""
    store.execute(
        "CREATE (:UndoOp {id: $id, token: $token, kind: $kind, summary: $summary, created: $created, "
        "reversible: $reversible, state: $state, paths: $paths, store_actions: $store_actions, "
        "details: $details, payload: $payload})",
        {
            "id": row.id, "token": row.token, "kind": row.kind, "summary": row.summary, "created": row.created,
            "reversible": row.reversible, "state": row.state, "paths": row.paths,
            "store_actions": row.store_actions, "details": row.details, "payload": row.payload,
        },
    )
    store.set_meta(LAST_ID_KEY, str(row.id))


def set_state(store: Store, op_id: int, state: str) -> None:
    """Set one operation's state (``'done'`` or ``'undone'``)."""
    store.execute("MATCH (o:UndoOp {id: $id}) SET o.state = $state", {"id": op_id, "state": state})


def drop_undone(store: Store) -> int:
    """Delete every undone operation (a new operation clears the redo
    stack); returns how many."""
    n = store.scalar("MATCH (o:UndoOp) WHERE o.state = 'undone' RETURN count(o)") or 0
    if n:
        store.execute("MATCH (o:UndoOp) WHERE o.state = 'undone' DELETE o")
    return int(n)


def by_token(store: Store, token: str) -> UndoRow | None:
    """The operation recorded from journal ``token`` (metadata only), or None."""
    rows = store.execute(f"MATCH (o:UndoOp) WHERE o.token = $t RETURN {_META}", {"t": token})
    return UndoRow(*rows[0]) if rows else None


def latest(store: Store, state: str) -> UndoRow | None:
    """The newest operation in ``state`` 'done', or for 'undone' the oldest
    undone one (the next to redo); metadata only."""
    order = "DESC" if state == "done" else "ASC"
    rows = store.execute(
        f"MATCH (o:UndoOp) WHERE o.state = $s RETURN {_META} ORDER BY o.id {order} LIMIT 1", {"s": state}
    )
    return UndoRow(*rows[0]) if rows else None


def listing(store: Store, limit: int | None = None) -> list[UndoRow]:
    """Operations newest first (metadata only, no payload)."""
    lim = f" LIMIT {int(limit)}" if limit else ""
    return [UndoRow(*r) for r in store.execute(f"MATCH (o:UndoOp) RETURN {_META} ORDER BY o.id DESC{lim}")]


def get(store: Store, op_id: int) -> UndoRow | None:
    """One operation with its ``payload``, or None."""
    rows = store.execute(f"MATCH (o:UndoOp {{id: $id}}) RETURN {_META}, o.payload AS payload", {"id": op_id})
    return UndoRow(*rows[0]) if rows else None
