"""What follows an operation's written files: its store actions, its row in
the undo log, and the graph update.

:func:`record` is idempotent (keyed by the journal entry's token, or by the
recorded operation's state for an undo or redo), because recovery may call
it again for an operation that was recorded just before a crash.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Iterable

from brainwork.config import Config
from brainwork.index.incremental import sync_paths
from brainwork.ops.journal import FileChange, JournalEntry
from brainwork.ops.operation import Operation, decode_changes, encode_changes
from brainwork.ops.store_actions import run_actions
from brainwork.store import Store
from brainwork.store import history as undo_log


def record(store: Store, entry: JournalEntry, changes: list[FileChange]) -> Operation | None:
    """Run the store actions and record the operation whose files are all
    written. Returns it; None for an undo or redo of an operation no longer
    in the log."""
    if entry.action == "apply":
        recorded = undo_log.by_token(store, entry.token)
        if recorded is not None:
            return Operation.from_row(recorded, changes)
        run_actions(store, entry.store_actions, undo=False)
        # An irreversible operation (merge) is recorded too, without its
        # bytes: undo stops at it and says so instead of silently reverting
        # an older, unrelated operation.
        with store.write():
            undo_log.drop_undone(store)
            row = undo_log.UndoRow(
                id=undo_log.next_id(store), token=entry.token, kind=entry.kind, summary=entry.summary,
                created=entry.created, reversible=entry.reversible, state="done",
                paths=[c.path for c in changes],
                store_actions=json.dumps(entry.store_actions, ensure_ascii=False),
                details=json.dumps(entry.details, ensure_ascii=False),
                payload=encode_changes(changes if entry.reversible else []),
            )
            undo_log.insert(store, row)
        return Operation.from_row(row, changes)
    row = undo_log.get(store, entry.op_id)
    if row is None:
        return None
    target_state = "undone" if entry.action == "undo" else "done"
    if row.state != target_state:
        run_actions(store, json.loads(row.store_actions or "[]"), undo=entry.action == "undo")
        undo_log.set_state(store, row.id, target_state)
        row = dataclasses.replace(row, state=target_state)
    return Operation.from_row(row, decode_changes(row.payload))


def sync_graph(config: Config, store: Store, paths: Iterable[str]) -> None:
    """The graph follows the files: only the written files are re-read
    (:func:`brainwork.index.incremental.sync_paths`; the operation
    re-indexed the whole vault before planning)."""
    sync_paths(config, store, list(paths), counts=False)
