"""The journal: an operation's file changes, durable before any vault file
changes, so that a crash mid-operation can be rolled forward or back.

Holds the change-set format (:func:`pack`), the journal entry
(:class:`JournalEntry`), the store's journal file (``STORE/journal.bin``)
and the records of pages created without the store (``STORE/created/``).
Kept free of the store (no ``kuzu`` import) so that a capture, which writes
one page and a record of it without opening the store, stays cheap to start.
"""

from __future__ import annotations

import dataclasses
import json
import os
import stat
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from brainwork.config import Config
from brainwork.errors import UserError


@dataclass(frozen=True)
class FileChange:
    """One file's change.

    ``path`` is vault-relative POSIX; ``before`` the bytes the file must have
    now (``None``: it must not exist); ``after`` the bytes it gets (``None``:
    it is deleted). ``before_mode`` the permission bits (``0o7777`` part of
    ``st_mode``) the file has now, ``after_mode`` those it gets; None where
    the side is missing or the bits are not known (a change set recorded
    before modes were kept). A file created at a path takes ``after_mode``
    (a renamed page keeps its source's bits); a file rewritten in place
    keeps the bits it has at that moment.
    """

    path: str
    before: bytes | None
    after: bytes | None
    before_mode: int | None = None
    after_mode: int | None = None

    def reverse(self) -> "FileChange":
        return FileChange(self.path, self.after, self.before, self.after_mode, self.before_mode)


@dataclass(frozen=True)
class JournalEntry:
    """What the journal (or a created-page record) says about its changes.

    ``token`` a uuid telling whether the undo log already holds it;
    ``action`` ``"apply"``, ``"undo"`` or ``"redo"``; ``op_id`` the recorded
    operation an undo or redo steps (None for apply); ``created`` ISO 8601
    UTC (seconds); ``created_ns`` orders created-page records (0 in the
    store's journal). The other fields become the undo-log row.
    """

    token: str
    action: str
    kind: str
    summary: str
    created: str
    reversible: bool
    store_actions: list[dict]
    details: dict
    op_id: int | None
    created_ns: int = 0

    @classmethod
    def new(cls, action: str, kind: str, summary: str, *, reversible: bool = True,
            store_actions: list[dict] | None = None, details: dict | None = None,
            op_id: int | None = None, created_ns: int = 0) -> "JournalEntry":
        """An entry with a fresh token, created now."""
        return cls(
            token=uuid.uuid4().hex, action=action, kind=kind, summary=summary,
            created=datetime.now(timezone.utc).isoformat(timespec="seconds"), reversible=bool(reversible),
            store_actions=list(store_actions or []), details=dict(details or {}), op_id=op_id,
            created_ns=created_ns,
        )

    def to_meta(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_meta(cls, meta: dict) -> "JournalEntry":
        """Inverse of :meth:`to_meta`.

        Raises:
            KeyError: a field without a default is missing (names them).
        """
        required = {f.name for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING
                    and f.default_factory is dataclasses.MISSING}
        lacking = required - set(meta)
        if lacking:
            raise KeyError(", ".join(sorted(lacking)))
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in meta.items() if k in names})


_MAGIC = b"BWC1"


def pack(meta: dict, changes: list[FileChange]) -> bytes:
    """A change set as bytes: ``BWC1``, the length of a JSON header (8 bytes,
    big-endian), the header (``meta`` plus ``files``: ``[path, before
    length, after length, before mode, after mode]``, -1 for a missing side
    or an unknown mode), then the raw bytes of every file in order. Raw
    bytes compress ~4x better than base64 text. Rows of three (written
    before modes were kept) still unpack, with unknown modes."""
    table = []
    blobs = []
    for c in changes:
        table.append([c.path, -1 if c.before is None else len(c.before), -1 if c.after is None else len(c.after),
                      -1 if c.before_mode is None else c.before_mode, -1 if c.after_mode is None else c.after_mode])
        if c.before is not None:
            blobs.append(c.before)
        if c.after is not None:
            blobs.append(c.after)
    head = json.dumps({**meta, "files": table}, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return _MAGIC + len(head).to_bytes(8, "big") + head + b"".join(blobs)


def unpack(data: bytes) -> tuple[dict, list[FileChange]]:
    """Inverse of :func:`pack`.

    Raises:
        ValueError: not a packed change set, or truncated.
    """
    if not data.startswith(_MAGIC) or len(data) < 12:
        raise ValueError("not a packed change set")
    n = int.from_bytes(data[4:12], "big")
    meta = json.loads(data[12 : 12 + n].decode("utf-8"))
    pos = 12 + n
    changes = []
    for path, nb, na, *modes in meta.pop("files"):
        before = None if nb < 0 else data[pos : pos + nb]
        pos += max(nb, 0)
        after = None if na < 0 else data[pos : pos + na]
        pos += max(na, 0)
        mb, ma = (modes + [-1, -1])[:2]
        changes.append(FileChange(path, before, after, None if mb < 0 else mb, None if ma < 0 else ma))
    if pos != len(data):
        raise ValueError(f"change set truncated or overlong ({len(data)} bytes, expected {pos})")
    return meta, changes


# -- the store's journal file ----------------------------------------------------
#: The journal's file name in the store folder; it exists only while an
#: operation is under way or was interrupted.
JOURNAL = "journal.bin"

#: One operation at a time per process: the store has one journal file.
LOCK = threading.RLock()


def journal_path(config: Config) -> Path:
    return config.store / JOURNAL


def pending_journal(config: Config) -> bool:
    """True when an interrupted operation waits for recovery."""
    return journal_path(config).exists()


def write_journal(config: Config, entry: JournalEntry, changes: list[FileChange]) -> None:
    """Write the journal durably (temp file, fsync, rename, fsync folder)."""
    config.store.mkdir(parents=True, exist_ok=True)
    path = journal_path(config)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as fh:
        fh.write(pack(entry.to_meta(), changes))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fsync_dir(config.store)


def read_journal(config: Config) -> tuple[JournalEntry, list[FileChange]] | None:
    """The pending journal, None when there is none.

    Raises:
        ValueError, KeyError, UnicodeDecodeError: the journal is unreadable.
    """
    try:
        data = journal_path(config).read_bytes()
    except FileNotFoundError:
        return None
    meta, changes = unpack(data)
    return JournalEntry.from_meta(meta), changes


def clear_journal(config: Config) -> None:
    try:
        os.unlink(journal_path(config))
    except FileNotFoundError:
        return
    fsync_dir(config.store)


# -- pages created without the store ---------------------------------------------
#: Folder of the store holding one record per page created without the store
#: (a capture): the undo log learns of it when the store's holder next
#: recovers (:func:`brainwork.ops.recovery.adopt_created`).
CREATED_DIR = "created"
#: Prefix of a capture's hidden temp file (``.bw-*.tmp`` like every atomic
#: write, told apart so that recovery leaves a running capture's alone).
CAPTURE_TEMP_PREFIX = ".bw-capture-"


def fsync_dir(folder: Path) -> None:
    """Make a rename or a new name in ``folder`` durable (best effort: some
    file systems refuse to fsync a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_record(folder: Path, name: str, data: bytes) -> Path:
    """Write a record atomically but without fsync: a record lost in a power
    cut costs the page its undo entry, never the page."""
    from brainwork.vault.write import atomic_write

    return atomic_write(folder, name, data, fsync=False)


def create_new_file(config: Config, folder: str, stem: str, data: bytes, *, kind: str,
                    describe: Callable[[str], tuple[str, dict]], ext: str = ".md") -> tuple[str, bool]:
    """Create ``folder/stem.md`` (or ``stem-2.md``, ``stem-3.md``... the first
    free name) holding ``data``, without the store, safely against other
    processes creating pages at the same moment and against a SIGKILL at
    any point.

    Steps: a record of the new file (:func:`pack` of a journal entry) goes
    into ``STORE/created/``; the bytes go to a hidden temp file beside the
    target, fsynced; ``os.link`` puts it in place only if the name is still
    free (atomic, never replaces: a clash moves on to the next name); the
    temp name is removed. A reader sees no file or the whole file. A killed
    process leaves at most a hidden temp file (never indexed) and a record
    whose file does not exist (dropped when adopted).

    ``describe`` gives the undo log's ``(summary, details)`` for a
    vault-relative path; it is asked for the name actually taken, so the
    log names ``stem-2.md`` when ``stem.md`` was taken.

    Idempotent: when a file of that name already holds exactly ``data`` (the
    same record sent twice, e.g. a hook that ran again after a crash), that
    file is the answer and nothing is written.

    Returns:
        ``(vault-relative path, created)``; ``created`` False for the
        idempotent case.

    Raises:
        UnsafePath: the folder or name is not a safe vault path.
        UserError: the vault folder cannot be written, or the folder the
            file would go in (or the nearest existing one above it) has no
            owner write bit.
    """
    from brainwork.vault.write import NEW_FILE_MODE, read_only_folder, read_only_message, safe_rel_path, vault_file

    records = config.store / CREATED_DIR
    base = f"{folder.strip('/')}/{stem}" if folder.strip("/") else stem
    for n in range(1, 10_000):
        rel = safe_rel_path(f"{base}{ext}" if n == 1 else f"{base}-{n}{ext}")
        full = vault_file(config.vault, rel)
        parent = full.parent
        if parent.is_dir():
            taken = {p.name.casefold(): p for p in parent.iterdir()}
            other = taken.get(full.name.casefold())
            if other is not None:
                try:
                    if other.is_file() and not other.is_symlink() and other.read_bytes() == data:
                        return rel, False
                except OSError:
                    pass
                continue
        folder_problem = read_only_folder(config.vault.resolve(), parent)
        if folder_problem is not None:
            raise UserError(read_only_message(folder_problem, f"create {rel} there") + "; nothing was written")
        summary, details = describe(rel)
        entry = JournalEntry.new("apply", kind, summary, details=details, created_ns=time.time_ns())
        try:
            record = _write_record(records, f"{entry.token}.bin", pack(entry.to_meta(), [FileChange(rel, None, data)]))
            parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=CAPTURE_TEMP_PREFIX, suffix=".tmp", dir=parent)
        except OSError as exc:
            raise UserError(f"cannot write {rel}: {exc.strerror}") from None
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, NEW_FILE_MODE)
            try:
                os.link(tmp, full)
            except FileExistsError:
                record.unlink(missing_ok=True)
                continue  # another process took the name meanwhile
        finally:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        fsync_dir(parent)
        return rel, True
    raise UserError(f"no free file name for {base}{ext}")


def replace_file(config: Config, rel: str, before: bytes, after: bytes, *, kind: str, summary: str,
                 details: dict) -> bool:
    """Replace vault file ``rel`` holding exactly ``before`` with ``after``,
    without the store, the way :func:`create_new_file` creates one: a record
    of the change (``before`` and ``after`` bytes) goes into
    ``STORE/created/`` first, so the store's holder records it in the undo
    log (:func:`brainwork.ops.recovery.adopt_created`: ``brainwork undo``
    puts ``before`` back); the new bytes go to a hidden temp file beside the
    target, fsynced, and are renamed over it only if the file still holds
    ``before`` at that moment. A reader sees the old file or the new one.

    The file keeps its permission bits; one without its owner write bit is
    refused, as every vault write refuses it (the bit is the owner's "do not
    change this", checked on the bits since root may write anything).

    Returns:
        True when replaced; False when the file no longer holds ``before``
        (someone changed or removed it: their bytes are left as they are,
        nothing is written).

    Raises:
        UnsafePath: ``rel`` is not a safe vault path.
        UserError: the file is read-only (nothing is written, no record is
            left), or the vault folder cannot be written.
    """
    from brainwork.vault.write import read_only_message, safe_rel_path, vault_file

    rel = safe_rel_path(rel)
    full = vault_file(config.vault, rel)

    def holds_before() -> bool:
        try:
            return not full.is_symlink() and full.read_bytes() == before
        except OSError:
            return False

    if before == after:
        return holds_before()
    if not holds_before():
        return False
    try:
        mode = stat.S_IMODE(full.stat().st_mode)
    except FileNotFoundError:
        return False
    if not mode & stat.S_IWUSR:
        raise UserError(read_only_message(rel, "update it"))
    entry = JournalEntry.new("apply", kind, summary, details=details, created_ns=time.time_ns())
    try:
        record = _write_record(config.store / CREATED_DIR, f"{entry.token}.bin",
                               pack(entry.to_meta(), [FileChange(rel, before, after)]))
        fd, tmp = tempfile.mkstemp(prefix=CAPTURE_TEMP_PREFIX, suffix=".tmp", dir=full.parent)
    except OSError as exc:
        raise UserError(f"cannot write {rel}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(after)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        if not holds_before():  # changed while the new bytes were written
            record.unlink(missing_ok=True)
            return False
        os.replace(tmp, full)
    except OSError as exc:
        record.unlink(missing_ok=True)
        raise UserError(f"cannot write {rel}: {exc.strerror}") from None
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
    fsync_dir(full.parent)
    return True
