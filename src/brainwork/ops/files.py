"""An operation's files: path checks, reads, and the writes themselves.

Every path is vault-relative and checked once per operation
(:class:`VaultPaths`: :func:`brainwork.vault.write.safe_rel_path`, no
symbolic link out of the vault, not in the store folder). Files are written
atomically for readers but without a per-file fsync; :func:`durable` makes
all of them durable at once, and the fsynced journal covers the window in
between.
"""

from __future__ import annotations

import hashlib
import os
import signal
import stat
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterable

from brainwork.config import Config
from brainwork.errors import UnsafePath, UserError
from brainwork.ops.journal import CAPTURE_TEMP_PREFIX, FileChange
from brainwork.vault.write import NEW_FILE_MODE, atomic_write, read_only_folder, read_only_message, safe_rel_path

#: Test hook: with ``BRAINWORK_CRASH_AFTER_FILES=N`` in the environment the
#: process SIGKILLs itself right after writing its N-th file (crash tests).
CRASH_ENV = "BRAINWORK_CRASH_AFTER_FILES"

#: Threads writing an operation's files. Replacing an existing file makes
#: ext4 flush its data (auto_da_alloc, ~2 ms here); four writers overlap
#: those waits: 1,000 files in ~0.35 s instead of ~2.5 s.
WRITERS = 4

#: A capture's temp file older than this is a leftover of a killed capture,
#: not one a running capture is about to link into place; seconds.
STALE_TEMP_SECONDS = 600.0


class VaultPaths:
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
        """The absolute path of ``rel``.

        Raises:
            UnsafePath: ``rel`` leads outside the vault or into the store.
        """
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


def read_file(full: Path) -> bytes | None:
    """The bytes of ``full``, None when it does not exist.

    Raises:
        UserError: ``full`` is a folder.
    """
    try:
        return full.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise UserError(f"{full} is a folder, not a file") from None


def read_current(config: Config, rel: str) -> bytes | None:
    """The current bytes of vault file ``rel`` (None if missing), after the
    path checks every operation makes.

    Raises:
        UnsafePath: ``rel`` is not a safe vault path.
    """
    return read_file(VaultPaths(config).full(safe_rel_path(rel, strict=False)))


def file_hash(data: bytes | None) -> str | None:
    """SHA-256 hex of ``data`` (None for a missing file)."""
    return None if data is None else hashlib.sha256(data).hexdigest()


def file_mode(full: Path) -> int | None:
    """The permission bits of ``full`` (None when it does not exist)."""
    try:
        return stat.S_IMODE(os.stat(full).st_mode)
    except FileNotFoundError:
        return None


def normalise(paths: VaultPaths, changes: Iterable[FileChange]) -> list[FileChange]:
    """``changes`` with checked, normalised paths and the files' modes (the
    bits each existing file has now; a rewritten file keeps them, a created
    one takes the change's ``after_mode`` or :data:`NEW_FILE_MODE`), the
    no-op ones left out.

    Raises:
        UnsafePath: a path is not a safe vault path.
        UserError: the same file appears twice.
    """
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
        full = paths.full(rel)
        if c.before == c.after:
            continue
        before_mode = file_mode(full) if c.before is not None else None
        if c.after is None:
            after_mode = None
        elif c.before is None:
            after_mode = NEW_FILE_MODE if c.after_mode is None else c.after_mode
        else:
            after_mode = before_mode
        out.append(FileChange(rel, c.before, c.after, before_mode, after_mode))
    return out


def first_read_only(paths: VaultPaths, changes: list[FileChange], doing: str) -> str | None:
    """The message for the first file the changes rewrite or delete that has
    no owner write bit, or the first folder without one that the changes
    would add a file to or remove one from, else None.

    Checked on the bits, not ``os.access``: as root every file and folder
    is writable, but the owner write bit is the owner's "do not change
    this". A folder's bit guards its list of names (POSIX: creating or
    unlinking a name needs it), so a new file is checked on the nearest
    existing folder above it (the one :func:`atomic_write` would add a name
    or a missing subfolder to) and a deleted one on its own folder.
    """
    folders: dict[Path, str | None] = {}
    for c in changes:
        full = paths.full(c.path)
        if c.before is not None:
            mode = file_mode(full)
            if mode is not None and not mode & stat.S_IWUSR:
                return read_only_message(c.path, doing)
        if c.before is None or c.after is None:
            problem = _read_only_folder(paths, full.parent, folders)
            if problem is not None:
                return read_only_message(problem, doing)
    return None


def _read_only_folder(paths: VaultPaths, folder: Path, seen: dict[Path, str | None]) -> str | None:
    """:func:`brainwork.vault.write.read_only_folder` for ``folder``, cached
    per folder in ``seen`` (a 1,000-file operation touches a few)."""
    if folder not in seen:
        seen[folder] = read_only_folder(paths.root, folder)
    return seen[folder]


def first_mismatch(paths: VaultPaths, changes: list[FileChange]) -> str | None:
    """``"<path> was changed"`` for the first file whose bytes are not its
    ``before``, else None."""
    for c in changes:
        have = read_file(paths.full(c.path))
        if have != c.before:
            if c.before is None:
                return f"{c.path} now exists"
            return f"{c.path} {'was deleted' if have is None else 'was changed'}"
    return None


class CrashHook:
    """Counts written files; SIGKILLs the process after N when
    :data:`CRASH_ENV` is ``N`` (crash tests only)."""

    def __init__(self) -> None:
        value = os.environ.get(CRASH_ENV)
        self.limit = int(value) if value and value.isdigit() else None
        self.count = 0

    def wrote(self) -> None:
        self.count += 1
        if self.limit is not None and self.count >= self.limit:
            os.kill(os.getpid(), signal.SIGKILL)


def write_all(config: Config, changes: list[FileChange], hook: CrashHook) -> None:
    """Write every change; serially under the crash-test hook (so "after N
    files" is exact), else with :data:`WRITERS` threads."""
    # Deletions first, in order: on a case-insensitive file system a rename
    # that only changes case deletes and creates "the same" file.
    deletions = [c for c in changes if c.after is None]
    writes = [c for c in changes if c.after is not None]
    if hook.limit is not None or len(writes) < 8:
        for c in deletions + writes:
            write_file(config, c)
            hook.wrote()
        return
    for c in deletions:
        write_file(config, c)
    with ThreadPoolExecutor(WRITERS) as pool:
        list(pool.map(lambda c: write_file(config, c), writes))


def write_file(config: Config, change: FileChange) -> None:
    """Write or delete one file, atomically for readers but without fsync:
    :func:`durable` makes all of an operation's files durable at once
    (one fsync per file costs ~8 ms here, 8 s for a 1,000-file rename),
    while the fsynced journal covers a crash in between."""
    if change.after is None:
        full = VaultPaths(config).full(change.path)
        try:
            os.unlink(full)
        except FileNotFoundError:
            pass
    else:
        # A created file takes its recorded bits (a renamed page its source's,
        # an undone deletion the deleted file's); a rewritten one keeps its own.
        mode = change.after_mode if change.before is None else None
        atomic_write(config.vault, change.path, change.after, fsync=False, strict=False, mode=mode)


def durable() -> None:
    """Flush written files to disk before the journal is removed."""
    os.sync()


def sweep_temp_files(config: Config, changes: list[FileChange]) -> None:
    """Remove the temp files a killed write left in the folders of an
    interrupted operation (:func:`brainwork.vault.write.atomic_write` names
    them ``.bw-*.tmp``; they are hidden, so never indexed, but they are the
    user's disk)."""
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
