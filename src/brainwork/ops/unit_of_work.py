"""The unit of work: every operation that changes the vault ends in :func:`apply`.

The steps, each of which the next relies on:

1. An operation interrupted by an earlier run is recovered first
   (:mod:`brainwork.ops.recovery`).
2. Every path is checked (:class:`brainwork.ops.files.VaultPaths`) and every
   file's current bytes must equal the change's ``before``; otherwise
   nothing is written and the error names the file.
3. The journal, holding every file's before and after bytes, is written and
   fsynced (:mod:`brainwork.ops.journal`).
4. The files are written, each atomically, then made durable together.
5. The store actions run and the operation is recorded in the undo log
   (:mod:`brainwork.ops.record`).
6. The graph follows the written files; then the journal is removed.

A crash between 3 and 6 leaves the journal, and the next :func:`apply`,
undo or command start finishes or rolls back the operation. Undo and redo
(:mod:`brainwork.ops.undo`) run steps 3-6 through :func:`run` as well.
"""

from __future__ import annotations

import os
import signal
from typing import Iterable

from brainwork.config import Config
from brainwork.errors import UserError
from brainwork.ops import files
from brainwork.ops import gitcommit
from brainwork.ops.journal import LOCK, FileChange, JournalEntry, clear_journal, write_journal
from brainwork.ops.operation import Operation
from brainwork.ops.record import record, sync_graph
from brainwork.ops.recovery import recover
from brainwork.ops.store_actions import check_known
from brainwork.store import Store

#: Test hook: SIGKILL after every file of an operation is written and recorded,
#: before the graph update commits.
CRASH_BEFORE_SYNC_ENV = "BRAINWORK_CRASH_BEFORE_SYNC"


def apply(
    config: Config,
    store: Store,
    kind: str,
    summary: str,
    changes: list[FileChange],
    *,
    reversible: bool = True,
    store_actions: Iterable[dict] = (),
    details: dict | None = None,
) -> Operation:
    """Apply ``changes`` (and ``store_actions``) as one operation; see the
    module doc for the steps. Returns the :class:`Operation` (recorded in
    the undo log; when not ``reversible`` without its bytes, as a stop for
    undo).

    Raises:
        UnsafePath: a path is not a safe vault path.
        UserError: a file's bytes differ from ``before`` (names the file), the
            same file appears twice, a store action is unknown, or there is
            nothing to change.
    """
    actions = [dict(a) for a in store_actions]
    with LOCK:
        recover(config, store)
        paths = files.VaultPaths(config)
        changes = files.normalise(paths, changes)
        if not changes and not actions:
            raise UserError(f"{kind}: nothing to change")
        problem = files.first_mismatch(paths, changes)
        if problem:
            raise UserError(f"{kind}: {problem} since the operation was planned; nothing was written (run it again)")
        problem = files.first_read_only(paths, changes, kind)
        if problem:
            raise UserError(f"{problem}; nothing was written")
        check_known(actions)
        entry = JournalEntry.new("apply", kind, summary, reversible=reversible, store_actions=actions, details=details)
        op = run(config, store, entry, changes)
        assert op is not None
        return op


def run(config: Config, store: Store, entry: JournalEntry, changes: list[FileChange]) -> Operation | None:
    """Steps 3-6 for changes already checked against the files (caller holds
    :data:`brainwork.ops.journal.LOCK`). Returns the recorded operation.

    Raises:
        UserError: a file could not be written; the files already written
            were put back.
    """
    write_journal(config, entry, changes)
    try:
        files.write_all(config, changes, files.CrashHook())
    except OSError as exc:
        _undo_partial(config, changes)
        raise UserError(f"could not write the vault ({exc}); the operation was rolled back") from None
    files.durable()
    op = record(store, entry, changes)
    # The journal outlives the graph update: a kill before the sync commits
    # leaves it for recovery, which syncs these files again.
    if os.environ.get(CRASH_BEFORE_SYNC_ENV):
        os.kill(os.getpid(), signal.SIGKILL)
    sync_graph(config, store, [c.path for c in changes])
    clear_journal(config)
    gitcommit.commit_operation(config, entry, changes)  # opt-in ([git] commit); never raises
    return op


def _undo_partial(config: Config, changes: list[FileChange]) -> None:
    """After a failed write: put back the files already written, then drop
    the journal. If that fails too, the journal stays for recovery."""
    paths = files.VaultPaths(config)
    try:
        for c in changes:
            if files.read_file(paths.full(c.path)) == c.after:
                files.write_file(config, c.reverse())
        files.durable()
    except OSError:
        return
    clear_journal(config)
