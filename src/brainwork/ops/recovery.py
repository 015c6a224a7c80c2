"""Finish what a crash interrupted, and adopt pages created without the store.

A journal left in the store means an operation stopped between writing its
journal and recording it. Recovery rolls it forward when every file has its
before or its after bytes, and otherwise rolls it back and leaves the file
someone else changed as it is: their bytes are never overwritten. A file it
would rewrite or delete that was made read-only meanwhile stops it before
anything is written; the journal stays for the next try.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from brainwork.config import Config
from brainwork.errors import UnsafePath, UserError
from brainwork.ops import files
from brainwork.ops.journal import CREATED_DIR, LOCK, JournalEntry, clear_journal, read_journal, unpack
from brainwork.ops.operation import Operation
from brainwork.ops.record import record, sync_graph
from brainwork.store import Store
from brainwork.wording import counted

#: A record younger than this whose file does not exist yet may belong to a
#: capture still running (record first, file second); seconds.
CREATED_GRACE_SECONDS = 60.0


def recover(config: Config, store: Store) -> str | None:
    """Finish or roll back an operation interrupted by a crash, then record
    the pages created without the store since (:func:`adopt_created`).

    Call when a command opens the store or the workbench starts (cheap: two
    ``stat`` calls when there is nothing to do). Returns a one-line
    description of what was recovered, or None when there was nothing.
    """
    message = recover_journal(config, store)
    adopt_created(config, store)
    return message


def recover_journal(config: Config, store: Store) -> str | None:
    """The journal part of :func:`recover`.

    Rolls forward when every file has either its before or its after bytes;
    if some file has neither (changed by someone else meanwhile), rolls the
    others back to their before bytes, leaves that file alone and says so.

    Raises:
        UserError: a file the roll forward or back would rewrite or delete
            has no owner write bit; nothing is written and the journal stays,
            so the next command finishes the work once the file is writable.
    """
    with LOCK:
        try:
            pending = read_journal(config)
        except (OSError, ValueError, KeyError, UnicodeDecodeError) as exc:
            # The journal is written to a temp file and renamed, so a torn
            # journal means the crash came before any vault file changed.
            clear_journal(config)
            return f"discarded an unreadable operation journal ({exc}); no file had been changed"
        if pending is None:
            return None
        entry, changes = pending
        paths = files.VaultPaths(config)
        state = []
        for c in changes:
            have = files.read_file(paths.full(c.path))
            state.append("after" if have == c.after else "before" if have == c.before else "foreign")
        what = f"{entry.action} of {entry.kind} ({entry.summary})"
        foreign = [c.path for c, s in zip(changes, state) if s == "foreign"]
        # Checked for the whole set first: atomic_write would refuse a
        # read-only rewrite only when it reached it (after writing others)
        # and a deletion does not look at the bits at all.
        if not foreign:
            writes, doing, to = [c for c, s in zip(changes, state) if s == "before"], "complete", "complete it"
        else:
            writes, doing, to = [c.reverse() for c, s in zip(changes, state) if s == "after"], "roll back", "roll it back"
        problem = files.first_read_only(paths, writes, to)
        if problem:
            raise UserError(f"cannot {doing} an interrupted {what}: {problem}; nothing was written")
        for c in writes:
            files.write_file(config, c)
        files.durable()
        if not foreign:
            record(store, entry, changes)
        sync_graph(config, store, [c.path for c in changes])
        clear_journal(config)
        files.sweep_temp_files(config, changes)
        if not foreign:
            return f"completed an interrupted {what}: {counted(len(changes), 'file')}"
        return (
            f"rolled back an interrupted {what}: {', '.join(foreign)} changed meanwhile and "
            "was left as it is"
        )


def adopt_created(config: Config, store: Store) -> list[Operation]:
    """Record in the undo log each page created without the store
    (:func:`brainwork.ops.journal.create_new_file`, i.e. captures), oldest
    first, and index it. Idempotent (keyed by the record's token); a record
    whose file is gone (the capture was killed before the file was placed)
    is dropped; a file changed since keeps no undo entry (undo would refuse
    anyway). Returns the operations recorded."""
    folder = config.store / CREATED_DIR
    try:
        entries = [e for e in os.scandir(folder) if e.name.endswith(".bin") and not e.name.startswith(".")]
    except FileNotFoundError:
        return []
    done: list[Operation] = []
    with LOCK:
        items = []
        for dirent in entries:
            try:
                meta, changes = unpack(Path(dirent.path).read_bytes())
                items.append((JournalEntry.from_meta(meta), dirent, changes))
            except (OSError, ValueError, KeyError, UnicodeDecodeError):
                Path(dirent.path).unlink(missing_ok=True)
        items.sort(key=lambda t: (t[0].created_ns, t[1].name))
        paths = files.VaultPaths(config)
        # A capture killed before it placed its file leaves a record; the same
        # capture run again leaves a second one for the same file: adopt one.
        latest: dict[tuple, str] = {}
        for _, dirent, changes in items:
            latest[tuple((c.path, files.file_hash(c.after)) for c in changes)] = dirent.name
        for entry, dirent, changes in items:
            if latest[tuple((c.path, files.file_hash(c.after)) for c in changes)] != dirent.name:
                Path(dirent.path).unlink(missing_ok=True)
                continue
            try:
                have = [files.read_file(paths.full(c.path)) for c in changes]
            except UnsafePath:
                Path(dirent.path).unlink(missing_ok=True)
                continue
            if all(h == c.after for h, c in zip(have, changes)):
                op = record(store, entry, changes)
                if op is not None:
                    done.append(op)
                sync_graph(config, store, [c.path for c in changes])
            elif any(h is None for h in have):
                try:
                    young = time.time() - dirent.stat().st_mtime < CREATED_GRACE_SECONDS
                except FileNotFoundError:
                    continue
                if young:
                    continue
            Path(dirent.path).unlink(missing_ok=True)
    return done
