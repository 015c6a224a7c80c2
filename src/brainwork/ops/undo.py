"""Undo, redo and the history of operations (the undo log).

Undo refuses when any file of the operation no longer has the bytes the
operation left (someone changed it since): their work is never
overwritten. An irreversible operation (merge) is a stop: an undo that
reaches it reverts nothing, says so and what the next undo would revert,
and marks it stepped past (:data:`~brainwork.ops.operation.PASSED`).
"""

from __future__ import annotations

from brainwork.config import Config
from brainwork.errors import SteppedPast, UserError
from brainwork.ops import files
from brainwork.ops.journal import LOCK, JournalEntry
from brainwork.ops.operation import PASSED, Operation, decode_changes
from brainwork.ops.recovery import recover
from brainwork.ops.unit_of_work import run
from brainwork.store import Store
from brainwork.store import history as undo_log


def undo(config: Config, store: Store) -> Operation:
    """Undo the newest done operation: its files get their ``before`` bytes
    back and its store actions are reversed. Returns it (state 'undone').

    Raises:
        SteppedPast: the newest is irreversible (a merge): it is marked
            stepped past, so the next undo reverts the one before it.
        UserError: nothing to undo, or a file was changed since the
            operation (names the file; nothing is written).
    """
    return _step(config, store, "undo")


def redo(config: Config, store: Store) -> Operation:
    """Redo the most recently undone operation (only possible until a new
    operation is applied). Returns it (state 'done').

    Raises:
        UserError: nothing to redo, or a file was changed since the undo.
    """
    return _step(config, store, "redo")


def _step(config: Config, store: Store, action: str) -> Operation:
    with LOCK:
        recover(config, store)
        row = undo_log.latest(store, "done" if action == "undo" else "undone")
        if row is None:
            raise UserError(f"nothing to {action}")
        if action == "undo" and not row.reversible:
            # Step past it (neither undone nor redoable), so that the next
            # undo reverts the operation before it, and say so.
            undo_log.set_state(store, row.id, PASSED)
            older = undo_log.latest(store, "done")
            after = (
                f"the next undo would revert {older.kind} #{older.id} ({older.summary})"
                if older is not None else "there is nothing older to undo"
            )
            raise SteppedPast(f"{row.kind} #{row.id} ({row.summary}) cannot be undone; {after}")
        changes = decode_changes(undo_log.get(store, row.id).payload)
        if action == "undo":
            changes = [c.reverse() for c in reversed(changes)]
        problem = files.first_mismatch(files.VaultPaths(config), changes)
        if problem:
            since = "it was applied" if action == "undo" else "it was undone"
            raise UserError(
                f"cannot {action} {row.kind} #{row.id} ({row.summary}): {problem} since {since}; "
                "refusing to overwrite that change"
            )
        problem = files.first_read_only(files.VaultPaths(config), changes, action)
        if problem:
            raise UserError(f"cannot {action} {row.kind} #{row.id} ({row.summary}): {problem}; nothing was written")
        entry = JournalEntry.new(action, row.kind, row.summary, op_id=row.id)
        op = run(config, store, entry, changes)
        assert op is not None
        return op


def history(store: Store, limit: int | None = None, with_changes: bool = False) -> list[Operation]:
    """The undo log, newest first (at most ``limit``). ``changes`` is loaded
    only with ``with_changes``; ``paths`` is always filled."""
    out = []
    for row in undo_log.listing(store, limit):
        changes = None
        if with_changes:
            full = undo_log.get(store, row.id)
            changes = decode_changes(full.payload) if full else None
        out.append(Operation.from_row(row, changes))
    return out


def get_operation(store: Store, op_id: int) -> Operation | None:
    """One recorded operation with its changes, or None."""
    row = undo_log.get(store, op_id)
    return None if row is None else Operation.from_row(row, decode_changes(row.payload))


def can_undo(store: Store) -> Operation | None:
    """The operation :func:`undo` would undo (without changes), or None."""
    row = undo_log.latest(store, "done")
    return None if row is None else Operation.from_row(row, None)


def can_redo(store: Store) -> Operation | None:
    """The operation :func:`redo` would redo (without changes), or None."""
    row = undo_log.latest(store, "undone")
    return None if row is None else Operation.from_row(row, None)
