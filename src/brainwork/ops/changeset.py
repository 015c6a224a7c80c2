"""Apply a set of file changes safely; the undo log; crash recovery.

Every operation that changes the vault ends here (:func:`apply`). The steps:

1. Any interrupted operation from an earlier run is recovered first.
2. Each path is checked to be a safe vault-relative path
   (:func:`brainwork.vault.write.safe_rel_path`, no symlink out of the vault,
   not inside the store folder) and each file's current bytes must equal the
   change's ``before`` (else :class:`~brainwork.errors.UserError` naming the
   file, and nothing is written).
3. A journal holding every file's before and after bytes is written to
   ``config.store / "journal.bin"`` (:func:`pack` format) and fsynced.
4. The files are written one by one, each atomically
   (:func:`brainwork.vault.write.atomic_write`: temp file, rename), then
   made durable together (one ``sync()``; per-file fsyncs cost ~8 ms each
   here, the journal covers the window).
5. Store-only actions (e.g. dismissing a finding) run, and a reversible
   operation is recorded in the undo log (``UndoOp`` rows,
   :mod:`brainwork.store.history`).
6. The journal is deleted and the graph re-indexed
   (:func:`brainwork.index.sync.sync`).

If the process dies between 3 and 6 (``kill -9`` between two files),
:func:`recover` at the next start finds the journal and rolls the operation
forward (writes the remaining files, records it); if some file was changed by
someone else meanwhile, it rolls back instead and names that file. Undo and
redo go through the same journal.

Undo refuses (UserError) when any file of the operation no longer has the
bytes the operation left (someone changed it since): their work is never
overwritten. Irreversible operations (merge) are applied with the same
journal and recorded without their bytes (``reversible`` false): an undo that
reaches one does nothing but say that it cannot be undone and what the next
undo would revert, and marks it stepped past (:data:`PASSED`); the next undo
then reverts the older operation, refusing as above if the merge changed its
files.

Test hook: with ``BRAINWORK_CRASH_AFTER_FILES=N`` in the environment the
process SIGKILLs itself right after writing its N-th file (crash tests).
"""

from __future__ import annotations

import base64
import dataclasses
import difflib
import hashlib
import json
import os
import signal
import threading
import uuid
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable

from brainwork.config import Config
from brainwork.errors import UnsafePath, UserError
from brainwork.store import Store
from brainwork.store import history as undo_log
from brainwork.ops.journal import CAPTURE_TEMP_PREFIX, FileChange, fsync_dir as _fsync_dir, pack, unpack
from brainwork.vault.write import atomic_write, safe_rel_path

JOURNAL = "journal.bin"
CRASH_ENV = "BRAINWORK_CRASH_AFTER_FILES"
#: Test hook: SIGKILL after every file of an operation is written and recorded,
#: before the graph update commits.
CRASH_BEFORE_SYNC_ENV = "BRAINWORK_CRASH_BEFORE_SYNC"

_lock = threading.RLock()


@dataclass
class Operation:
    """One applied operation, as kept in the undo log.

    ``id`` counts from 1 (irreversible operations are numbered too);
    ``kind`` e.g. ``"rename"``; ``summary`` one line for people;
    ``created`` ISO 8601 UTC; ``state`` ``'done'``, ``'undone'`` or, for an
    irreversible one an undo stepped past, :data:`PASSED`;
    ``store_actions`` reversible store-only actions (``{"do": name, ...}``,
    see :func:`register_store_action`); ``paths`` the files touched (always
    filled); ``changes`` the before/after bytes (empty when listed by
    :func:`history` without ``with_changes``); ``details`` what the operation
    reported (e.g. ``{"links_rewritten": 12}``).
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


# -- store-only actions -------------------------------------------------------
#: name -> (do(store, action), undo(store, action))
_STORE_ACTIONS: dict[str, tuple[Callable[[Store, dict], None], Callable[[Store, dict], None]]] = {}


def register_store_action(name: str, do: Callable[[Store, dict], None], undo: Callable[[Store, dict], None]) -> None:
    """Make ``{"do": name, ...}`` usable in ``store_actions``. Both callables
    get the store and the action dict and must be idempotent (recovery may
    run them twice)."""
    _STORE_ACTIONS[name] = (do, undo)


def _dismissals():
    try:
        from brainwork.store import dismissals
    except ImportError as exc:  # pragma: no cover - the quality bar's module is missing
        raise UserError(f"dismissing findings is not available: {exc}") from None
    return dismissals


register_store_action(
    "dismiss",
    lambda store, a: _dismissals().dismiss(store, a["key"], a.get("reason") or ""),
    lambda store, a: _dismissals().undismiss(store, a["key"]),
)
register_store_action(
    "undismiss",
    lambda store, a: _dismissals().undismiss(store, a["key"]),
    lambda store, a: _dismissals().dismiss(store, a["key"], a.get("reason") or ""),
)


def _run_actions(store: Store, actions: Iterable[dict], undo: bool) -> None:
    actions = list(actions)
    for action in reversed(actions) if undo else actions:
        name = action.get("do")
        if name not in _STORE_ACTIONS:
            raise UserError(f"unknown store action {name!r}")
        do_fn, undo_fn = _STORE_ACTIONS[name]
        (undo_fn if undo else do_fn)(store, action)


# -- encoding -----------------------------------------------------------------
def encode_changes(changes: list[FileChange]) -> str:
    """The undo log's payload (text, for a STRING column: Kùzu 0.11.3 takes
    no bytes parameters): ``z1:`` + base64 of the zlib-compressed (level 1)
    :func:`pack`."""
    return "z1:" + base64.b64encode(zlib.compress(pack({}, changes), 1)).decode("ascii")


def decode_changes(payload: str) -> list[FileChange]:
    """Inverse of :func:`encode_changes` (also reads the first format:
    base64 of zlib JSON with base64 bytes)."""
    if payload.startswith("z1:"):
        return unpack(zlib.decompress(base64.b64decode(payload[3:])))[1]
    items = json.loads(zlib.decompress(base64.b64decode(payload)))
    unb64 = lambda t: None if t is None else base64.b64decode(t)  # noqa: E731
    return [FileChange(i["path"], unb64(i["before"]), unb64(i["after"])) for i in items]


# -- files ---------------------------------------------------------------------
#: Undo-log state of an irreversible operation that an undo has stepped past.
PASSED = "passed"


def _now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


class _Paths:
    """Path checks for one operation: :func:`brainwork.vault.write.safe_rel_path`
    semantics plus "no symbolic link leads out of the vault" and "not in the
    store folder", resolving each folder once (``Path.resolve`` per file
    costs ~0.1-0.3 ms; a 1,000-file rename touches a few folders)."""

    def __init__(self, config: Config):
        self.root = config.vault.resolve()
        self.store = config.store.resolve()
        self._dirs: dict[str, Path] = {}

    def _inside(self, resolved: Path, rel: str) -> None:
        if resolved != self.root and self.root not in resolved.parents:
            raise UnsafePath(f"path leads outside the vault: {rel!r}")
        if resolved == self.store or self.store in resolved.parents:
            raise UnsafePath(f"path lies in the store folder, not the vault: {rel!r}")

    def full(self, rel: str) -> Path:
        # Containment rules only: an operation may rewrite, delete or restore
        # a file whose existing name holds a control character; new names
        # are checked strictly where the operation makes them up.
        rel = safe_rel_path(rel, strict=False)
        full = self.root / rel
        key = str(full.parent)
        if key not in self._dirs:
            resolved = full.parent.resolve()
            self._inside(resolved, rel)
            self._dirs[key] = resolved
        if full.is_symlink():
            self._inside(full.resolve(), rel)
        return full


def _full(config: Config, rel: str) -> Path:
    return _Paths(config).full(rel)


def _read(full: Path) -> bytes | None:
    try:
        return full.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise UserError(f"{full} is a folder, not a file") from None


class _CrashHook:
    """Counts written files; SIGKILLs the process after N when
    ``BRAINWORK_CRASH_AFTER_FILES=N`` (crash tests only)."""

    def __init__(self) -> None:
        value = os.environ.get(CRASH_ENV)
        self.limit = int(value) if value and value.isdigit() else None
        self.count = 0

    def wrote(self) -> None:
        self.count += 1
        if self.limit is not None and self.count >= self.limit:
            os.kill(os.getpid(), signal.SIGKILL)


#: Threads writing an operation's files. Replacing an existing file makes
#: ext4 flush its data (auto_da_alloc, ~2 ms here); four writers overlap
#: those waits: 1,000 files in ~0.35 s instead of ~2.5 s.
WRITERS = 4


def _write_all(config: Config, changes: list[FileChange], hook: "_CrashHook") -> None:
    """Write every change; serially under the crash-test hook (so "after N
    files" is exact), else with :data:`WRITERS` threads."""
    # Deletions first, in order: on a case-insensitive file system a rename
    # that only changes case deletes and creates "the same" file.
    deletions = [c for c in changes if c.after is None]
    writes = [c for c in changes if c.after is not None]
    if hook.limit is not None or len(writes) < 8:
        for c in deletions + writes:
            _write_file(config, c)
            hook.wrote()
        return
    for c in deletions:
        _write_file(config, c)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(WRITERS) as pool:
        list(pool.map(lambda c: _write_file(config, c), writes))


def _write_file(config: Config, change: FileChange) -> None:
    """Write or delete one file, atomically for readers but without fsync:
    :func:`_durable` makes all of an operation's files durable at once
    (one fsync per file costs ~8 ms here, 8 s for a 1,000-file rename),
    while the fsynced journal covers a crash in between."""
    if change.after is None:
        full = _full(config, change.path)
        try:
            os.unlink(full)
        except FileNotFoundError:
            pass
    else:
        atomic_write(config.vault, change.path, change.after, fsync=False, strict=False)


def _durable() -> None:
    """Flush written files to disk before the journal is removed."""
    os.sync()


def _normalise(paths: _Paths, changes: Iterable[FileChange]) -> list[FileChange]:
    out: list[FileChange] = []
    seen: set[str] = set()
    for c in changes:
        # A file the operation creates gets the strict checks; one it rewrites
        # or deletes keeps its existing name (undo/redo replay recorded,
        # already checked changes and do not come through here).
        rel = safe_rel_path(c.path, strict=c.before is None)
        if rel in seen:
            raise UserError(f"the operation changes {rel!r} twice")
        seen.add(rel)
        paths.full(rel)
        if c.before == c.after:
            continue
        out.append(FileChange(rel, c.before, c.after))
    return out


def _first_mismatch(paths: _Paths, changes: list[FileChange]) -> str | None:
    """``"<path> was changed"`` for the first file whose bytes are not its
    ``before``, else None."""
    for c in changes:
        have = _read(paths.full(c.path))
        if have != c.before:
            if c.before is None:
                return f"{c.path} now exists"
            return f"{c.path} {'was deleted' if have is None else 'was changed'}"
    return None


# -- journal -------------------------------------------------------------------
def _journal_path(config: Config) -> Path:
    return config.store / JOURNAL


def _write_journal(config: Config, meta: dict, changes: list[FileChange]) -> None:
    config.store.mkdir(parents=True, exist_ok=True)
    path = _journal_path(config)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as fh:
        fh.write(pack(meta, changes))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    _fsync_dir(config.store)


def _clear_journal(config: Config) -> None:
    try:
        os.unlink(_journal_path(config))
    except FileNotFoundError:
        return
    _fsync_dir(config.store)


def _sync(config: Config, store: Store, paths: list[str]) -> None:
    """Step 6: the graph follows the files. Only the written files are
    re-read (:func:`brainwork.index.incremental.sync_paths`; the operation
    re-indexed the whole vault before planning)."""
    from brainwork.index.incremental import sync_paths

    sync_paths(config, store, paths, counts=False)


def _finish(config: Config, store: Store, journal: dict, changes: list[FileChange]) -> Operation | None:
    """Step 5 for a journal whose files are all written: store actions and
    the undo-log record (idempotent: recovery may call it again)."""
    action = journal["action"]
    kind = journal["kind"]
    if action == "apply":
        recorded = undo_log.by_token(store, journal["token"])
        if recorded is not None:
            return _op_from_row(recorded, changes)
        _run_actions(store, journal["store_actions"], undo=False)
        reversible = bool(journal["reversible"])
        # An irreversible operation (merge) is recorded too, without its
        # bytes: undo stops at it and says so instead of silently reverting
        # an older, unrelated operation (see _step).
        with store.write():
            undo_log.drop_undone(store)
            op_id = undo_log.next_id(store)
            row = undo_log.UndoRow(
                id=op_id, token=journal["token"], kind=kind, summary=journal["summary"],
                created=journal["created"], reversible=reversible, state="done",
                paths=[c.path for c in changes],
                store_actions=json.dumps(journal["store_actions"], ensure_ascii=False),
                details=json.dumps(journal["details"], ensure_ascii=False),
                payload=encode_changes(changes if reversible else []),
            )
            undo_log.insert(store, row)
        return _op_from_row(row, changes)
    # undo / redo of a recorded operation
    op_id = journal["op_id"]
    row = undo_log.get(store, op_id)
    target_state = "undone" if action == "undo" else "done"
    if row is None:
        return None
    if row.state != target_state:
        _run_actions(store, json.loads(row.store_actions or "[]"), undo=action == "undo")
        undo_log.set_state(store, op_id, target_state)
        row = dataclasses.replace(row, state=target_state)
    return _op_from_row(row, decode_changes(row.payload))


def _op_from_row(row: undo_log.UndoRow, changes: list[FileChange] | None) -> Operation:
    return Operation(
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


def _run(config: Config, store: Store, journal: dict, changes: list[FileChange]) -> Operation | None:
    _write_journal(config, journal, changes)
    try:
        _write_all(config, changes, _CrashHook())
    except OSError as exc:
        _undo_partial(config, changes)
        raise UserError(f"could not write the vault ({exc}); the operation was rolled back") from None
    _durable()
    op = _finish(config, store, journal, changes)
    # The journal outlives the graph update: a kill before the sync commits
    # leaves it for recover(), which syncs these files again.
    if os.environ.get(CRASH_BEFORE_SYNC_ENV):
        os.kill(os.getpid(), signal.SIGKILL)
    _sync(config, store, [c.path for c in changes])
    _clear_journal(config)
    return op


def _undo_partial(config: Config, changes: list[FileChange]) -> None:
    """After a failed write: put back the files already written, then drop
    the journal. If that fails too, the journal stays for :func:`recover`."""
    paths = _Paths(config)
    try:
        for c in changes:
            if _read(paths.full(c.path)) == c.after:
                _write_file(config, c.reverse())
        _durable()
    except OSError:
        return
    _clear_journal(config)


# -- public API ----------------------------------------------------------------
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
            same file appears twice, or there is nothing to change.
    """
    actions = [dict(a) for a in store_actions]
    with _lock:
        recover(config, store)
        paths = _Paths(config)
        changes = _normalise(paths, changes)
        if not changes and not actions:
            raise UserError(f"{kind}: nothing to change")
        problem = _first_mismatch(paths, changes)
        if problem:
            raise UserError(f"{kind}: {problem} since the operation was planned; nothing was written (run it again)")
        for a in actions:
            if a.get("do") not in _STORE_ACTIONS:
                raise UserError(f"unknown store action {a.get('do')!r}")
        journal = {
            "token": uuid.uuid4().hex, "action": "apply", "kind": kind, "summary": summary,
            "created": _now(), "reversible": bool(reversible), "store_actions": actions,
            "details": details or {}, "op_id": None,
        }
        op = _run(config, store, journal, changes)
        assert op is not None
        return op


def undo(config: Config, store: Store) -> Operation:
    """Undo the newest done operation: its files get their ``before`` bytes
    back and its store actions are reversed. Returns it (state 'undone').

    Raises:
        UserError: nothing to undo, or a file was changed since the operation
            (message names the file; nothing is written).
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
    with _lock:
        recover(config, store)
        row = undo_log.latest(store, "done" if action == "undo" else "undone")
        if row is None:
            raise UserError(f"nothing to {action}")
        if action == "undo" and not row.reversible:
            # Step past it (state PASSED: neither undone nor redoable), so
            # that the next undo reverts the operation before it, and say so.
            undo_log.set_state(store, row.id, PASSED)
            older = undo_log.latest(store, "done")
            after = (
                f"the next undo would revert {older.kind} #{older.id} ({older.summary})"
                if older is not None else "there is nothing older to undo"
            )
            raise UserError(f"{row.kind} #{row.id} ({row.summary}) cannot be undone; {after}")
        full = undo_log.get(store, row.id)
        changes = decode_changes(full.payload)
        if action == "undo":
            changes = [c.reverse() for c in reversed(changes)]
        label = f"{row.kind} #{row.id} ({row.summary})"
        problem = _first_mismatch(_Paths(config), changes)
        if problem:
            since = "it was applied" if action == "undo" else "it was undone"
            raise UserError(
                f"cannot {action} {label}: {problem} since {since}; refusing to overwrite that change"
            )
        journal = {
            "token": uuid.uuid4().hex, "action": action, "kind": row.kind, "summary": row.summary,
            "created": _now(), "reversible": True, "store_actions": [], "details": {}, "op_id": row.id,
        }
        op = _run(config, store, journal, changes)
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
        out.append(_op_from_row(row, changes))
    return out


def get_operation(store: Store, op_id: int) -> Operation | None:
    """One recorded operation with its changes, or None."""
    row = undo_log.get(store, op_id)
    return None if row is None else _op_from_row(row, decode_changes(row.payload))


def can_undo(store: Store) -> Operation | None:
    """The operation :func:`undo` would undo (without changes), or None."""
    row = undo_log.latest(store, "done")
    return None if row is None else _op_from_row(row, None)


def can_redo(store: Store) -> Operation | None:
    """The operation :func:`redo` would redo (without changes), or None."""
    row = undo_log.latest(store, "undone")
    return None if row is None else _op_from_row(row, None)


def pending_journal(config: Config) -> bool:
    """True when an interrupted operation waits for :func:`recover`."""
    return _journal_path(config).exists()


def recover(config: Config, store: Store) -> str | None:
    """Finish or roll back an operation interrupted by a crash, then record
    the pages created without the store since (:func:`adopt_created`).

    Call when a command opens the store or the workbench starts (cheap: two
    ``stat`` calls when there is nothing to do). Returns a one-line
    description of what was recovered, or None when there was nothing.
    """
    message = _recover_journal(config, store)
    adopt_created(config, store)
    return message


#: A record younger than this whose file does not exist yet may belong to a
#: capture still running (record first, file second); seconds.
CREATED_GRACE_SECONDS = 60.0


def adopt_created(config: Config, store: Store) -> list[Operation]:
    """Record in the undo log each page created without the store
    (:func:`brainwork.ops.journal.create_new_file`, i.e. captures), oldest
    first, and index it. Idempotent (keyed by the record's token); a record
    whose file is gone (the capture was killed before the file was placed)
    is dropped; a file changed since keeps no undo entry (undo would refuse
    anyway). Returns the operations recorded."""
    import time

    from brainwork.ops.journal import CREATED_DIR

    folder = config.store / CREATED_DIR
    try:
        entries = [e for e in os.scandir(folder) if e.name.endswith(".bin") and not e.name.startswith(".")]
    except FileNotFoundError:
        return []
    done: list[Operation] = []
    with _lock:
        items = []
        for entry in entries:
            try:
                meta, changes = unpack(Path(entry.path).read_bytes())
                items.append((meta.get("created_ns", 0), entry, meta, changes))
            except (OSError, ValueError, UnicodeDecodeError):
                Path(entry.path).unlink(missing_ok=True)
        paths = _Paths(config)
        # A capture killed before it placed its file leaves a record; the same
        # capture run again leaves a second one for the same file: adopt one.
        latest: dict[tuple, str] = {}
        for _, entry, meta, changes in sorted(items, key=lambda t: (t[0], t[1].name)):
            latest[tuple((c.path, file_hash(c.after)) for c in changes)] = entry.name
        for _, entry, meta, changes in sorted(items, key=lambda t: (t[0], t[1].name)):
            if latest[tuple((c.path, file_hash(c.after)) for c in changes)] != entry.name:
                Path(entry.path).unlink(missing_ok=True)
                continue
            try:
                have = [_read(paths.full(c.path)) for c in changes]
            except UnsafePath:
                Path(entry.path).unlink(missing_ok=True)
                continue
            if all(h == c.after for h, c in zip(have, changes)):
                op = _finish(config, store, meta, changes)
                if op is not None:
                    done.append(op)
                _sync(config, store, [c.path for c in changes])
            elif any(h is None for h in have):
                try:
                    young = time.time() - entry.stat().st_mtime < CREATED_GRACE_SECONDS
                except FileNotFoundError:
                    continue
                if young:
                    continue
            Path(entry.path).unlink(missing_ok=True)
    return done


def _recover_journal(config: Config, store: Store) -> str | None:
    """The journal part of :func:`recover`.

    Rolls forward when every file has either its before or its after bytes;
    if some file has neither (changed by someone else meanwhile), rolls the
    others back to their before bytes, leaves that file alone and says so.
    """
    path = _journal_path(config)
    if not path.exists():
        return None
    with _lock:
        try:
            journal, changes = unpack(path.read_bytes())
            lacking = {"token", "action", "kind", "summary", "created", "reversible", "store_actions", "details", "op_id"} - set(journal)
            if lacking:
                raise KeyError(", ".join(sorted(lacking)))
        except (OSError, ValueError, KeyError, UnicodeDecodeError) as exc:
            # The journal is written to a temp file and renamed, so a torn
            # journal means the crash came before any vault file changed.
            _clear_journal(config)
            return f"discarded an unreadable operation journal ({exc}); no file had been changed"
        state = []
        paths = _Paths(config)
        for c in changes:
            have = _read(paths.full(c.path))
            state.append("after" if have == c.after else "before" if have == c.before else "foreign")
        what = f"{journal['action']} of {journal['kind']} ({journal['summary']})"
        foreign = [c.path for c, s in zip(changes, state) if s == "foreign"]
        if not foreign:
            for c, s in zip(changes, state):
                if s == "before":
                    _write_file(config, c)
            _durable()
            _finish(config, store, journal, changes)
            _sync(config, store, [c.path for c in changes])
            _clear_journal(config)
            _sweep_temp_files(config, changes)
            return f"completed an interrupted {what}: {len(changes)} file(s)"
        for c, s in zip(changes, state):
            if s == "after":
                _write_file(config, c.reverse())
        _durable()
        _sync(config, store, [c.path for c in changes])
        _clear_journal(config)
        _sweep_temp_files(config, changes)
        return (
            f"rolled back an interrupted {what}: {', '.join(foreign)} changed meanwhile and "
            "was left as it is"
        )


#: A capture's temp file older than this is a leftover of a killed capture,
#: not one a running capture is about to link into place; seconds.
STALE_TEMP_SECONDS = 600.0


def _sweep_temp_files(config: Config, changes: list[FileChange]) -> None:
    """Remove the temp files a killed write left in the folders of an
    interrupted operation (:func:`brainwork.vault.write.atomic_write` names
    them ``.bw-*.tmp``; they are hidden, so never indexed, but they are the
    user's disk)."""
    import time

    now = time.time()
    folders = {(config.vault / c.path).parent for c in changes}
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for e in entries:
            if not (e.name.startswith(".bw-") and e.name.endswith(".tmp")):
                continue
            try:
                if not e.is_file(follow_symlinks=False):
                    continue
                # Only the store's holder (this process) writes operation temp
                # files; a capture's may belong to one running right now.
                young = now - e.stat(follow_symlinks=False).st_mtime < STALE_TEMP_SECONDS
                if e.name.startswith(CAPTURE_TEMP_PREFIX) and young:
                    continue
                os.unlink(e.path)
            except OSError:
                pass


def file_hash(data: bytes | None) -> str | None:
    """SHA-256 hex of ``data`` (None for a missing file)."""
    return None if data is None else hashlib.sha256(data).hexdigest()


def read_current(config: Config, rel: str) -> bytes | None:
    """The current bytes of vault file ``rel`` (None if missing), after the
    path checks every operation makes.

    Raises:
        UnsafePath: ``rel`` is not a safe vault path.
    """
    return _read(_full(config, safe_rel_path(rel, strict=False)))

