"""The write path's public face: apply, undo, redo, history, recovery.

The write path lives in one module per concern, from the bottom up:

- :mod:`brainwork.ops.journal` — :class:`FileChange`, the change-set format,
  the journal file, pages created without the store;
- :mod:`brainwork.ops.operation` — :class:`Operation` as the undo log keeps it;
- :mod:`brainwork.ops.store_actions` — the table of store-only actions;
- :mod:`brainwork.ops.files` — path checks and the writes;
- :mod:`brainwork.ops.record` — store actions, undo-log row, graph update;
- :mod:`brainwork.ops.recovery` — finishing an interrupted operation;
- :mod:`brainwork.ops.unit_of_work` — :func:`apply`;
- :mod:`brainwork.ops.undo` — undo, redo and the history.

This module only hands their names on, so ``changeset.apply`` and the other
names stay one import for callers. docs/operations.md walks through a crash.
"""

from __future__ import annotations

from brainwork.ops.files import CRASH_ENV, WRITERS, file_hash, read_current
from brainwork.ops.journal import JOURNAL, FileChange, pending_journal
from brainwork.ops.operation import PASSED, Operation, decode_changes, encode_changes
from brainwork.ops.recovery import CREATED_GRACE_SECONDS, adopt_created, recover
from brainwork.ops.store_actions import STORE_ACTIONS, register_store_action
from brainwork.ops.undo import can_redo, can_undo, get_operation, history, redo, undo
from brainwork.ops.unit_of_work import CRASH_BEFORE_SYNC_ENV, apply

__all__ = [
    "CRASH_BEFORE_SYNC_ENV", "CRASH_ENV", "CREATED_GRACE_SECONDS", "JOURNAL", "PASSED", "STORE_ACTIONS",
    "WRITERS", "FileChange", "Operation", "adopt_created", "apply", "can_redo", "can_undo", "decode_changes",
    "encode_changes", "file_hash", "get_operation", "history", "pending_journal", "read_current", "recover",
    "redo", "register_store_action", "undo",
]
