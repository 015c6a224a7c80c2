"""Noticing a damaged store before it crashes a command or gives wrong figures.

Kùzu 0.11.3 keeps no checksums, and damage can crash the reading process
(SIGSEGV), which that process cannot catch. So every clean close writes a
*seal* (``graph.kuzu.seal``: the file's size and modification time); an open
whose file no longer matches it first has a child process read every table
in full (:func:`probe`, ``python -m brainwork.store.probe``), and a child
that crashes or fails means :class:`StoreDamaged`. A matching seal costs two
``stat`` calls. The same child exports the history tables one by one
(:func:`export_history`), so one unreadable table loses only itself. No
``kuzu`` import here. Walkthrough: docs/operations.md, "A damaged store".
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from brainwork.errors import UserError

SEAL_SUFFIX = ".seal"
#: Seconds a probe child may take to read a whole store (a 50,000-page store
#: reads in a few seconds; a hang on garbage must end somewhere).
PROBE_TIMEOUT = 600.0
#: The one line every command prints for a damaged store.
DAMAGED_HINT = "the store looks damaged: run `brainwork doctor`"


class StoreDamaged(UserError):
    """The store cannot be read (exit 2, one line naming ``brainwork doctor``)."""

    def __init__(self, db_path: Path, reason: str):
        self.db_path = Path(db_path)
        self.reason = _one_line(reason)
        super().__init__(f"{DAMAGED_HINT} ({self.db_path}: {self.reason})")


def _one_line(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- the seal ---------------------------------------------------------------------
def seal_path(db_path: Path) -> Path:
    return Path(str(db_path) + SEAL_SUFFIX)


def _wal_path(db_path: Path) -> Path:
    return Path(str(db_path) + ".wal")


def _stamp(db_path: Path) -> dict | None:
    try:
        st = os.stat(db_path)
    except FileNotFoundError:
        return None
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def write_seal(db_path: Path) -> None:
    """Record the closed database file's size and mtime (atomically; a seal
    that cannot be written only costs the next open a probe)."""
    stamp = _stamp(db_path)
    target = seal_path(db_path)
    if stamp is None or _wal_path(db_path).exists():
        try:
            target.unlink()
        except OSError:
            pass
        return
    tmp = target.with_name(target.name + ".tmp")
    try:
        tmp.write_text(json.dumps(stamp))
        os.replace(tmp, target)
    except OSError:
        pass


def read_seal(db_path: Path) -> dict | None:
    try:
        data = json.loads(seal_path(db_path).read_text())
        return {"size": int(data["size"]), "mtime_ns": int(data["mtime_ns"])}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def seal_state(db_path: Path) -> str:
    """``"none"`` (no database file yet), ``"unsealed"`` (no seal: a store
    from before seals, or never closed cleanly), ``"sealed"`` (file as
    closed), ``"changed"`` (written since its last clean close) or
    ``"truncated"`` (sealed with content, now an empty file: Kùzu would
    silently start a new database and lose the history)."""
    stamp = _stamp(db_path)
    seal = read_seal(db_path)
    if stamp is None:
        return "none"  # deleted (deliberately, with its WAL, to start over): a new store is made
    if seal is None:
        return "truncated" if stamp["size"] == 0 and _wal_path(db_path).exists() else ("none" if stamp["size"] == 0 else "unsealed")
    if stamp["size"] == 0 and seal["size"] > 0:
        return "truncated"
    if stamp == seal and not _wal_path(db_path).exists():
        return "sealed"
    return "changed"


def take_lock(db_path: Path, *, exclusive: bool) -> int | None:
    """Take the POSIX record lock Kùzu takes on the database file, without
    waiting: a descriptor holding it (close it to release), or None when
    another process holds a lock that conflicts. Closing any descriptor of
    the file drops this process's locks on it, Kùzu's own included.

    Raises:
        OSError: the file cannot be opened (FileNotFoundError when absent).
    """
    fd = os.open(db_path, os.O_RDWR if exclusive else os.O_RDONLY)
    try:
        fcntl.lockf(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def held_elsewhere(db_path: Path) -> bool:
    """True when another process holds Kùzu's lock on the database file
    (a POSIX record lock). Call only while this process has not opened the
    database: closing a descriptor drops this process's own locks on it."""
    try:
        fd = take_lock(db_path, exclusive=False)
    except OSError:
        return False
    if fd is None:
        return True
    os.close(fd)
    return False


# -- children -----------------------------------------------------------------------
@dataclass
class ProbeResult:
    """What a probe child found: ``ok`` (every table read), ``busy`` (another
    process holds the store), ``reason`` (why not ok), ``rows`` per table."""

    ok: bool
    busy: bool = False
    reason: str = ""
    rows: dict[str, int] = field(default_factory=dict)


def _child(args: list[str], timeout: float) -> subprocess.CompletedProcess | str:
    env = dict(os.environ)
    env.pop("PYTHONFAULTHANDLER", None)  # a crash's traceback would only be noise here
    try:
        return subprocess.run(
            [sys.executable, "-m", "brainwork.store.probe", *args],
            capture_output=True, text=True, timeout=timeout, env=env,
        )
    except subprocess.TimeoutExpired:
        return f"reading it took more than {timeout:.0f} s"


def _crash_reason(proc: subprocess.CompletedProcess) -> str:
    if proc.returncode < 0:
        import signal

        try:
            name = signal.Signals(-proc.returncode).name
        except ValueError:
            name = f"signal {-proc.returncode}"
        return f"reading it crashed the reader ({name})"
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    return lines[-1] if lines else f"the reader exited with {proc.returncode}"


def probe(folder: Path, timeout: float = PROBE_TIMEOUT) -> ProbeResult:
    """Open the store at ``folder`` in a child process and read every table
    in full. Never raises for a damaged store."""
    proc = _child([str(folder)], timeout)
    if isinstance(proc, str):
        return ProbeResult(False, reason=proc)
    if proc.returncode == 0:
        try:
            data = json.loads(proc.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return ProbeResult(False, reason="the reader's answer was unreadable")
        return ProbeResult(bool(data.get("ok")), busy=bool(data.get("busy")), reason=data.get("reason", ""),
                           rows=data.get("rows", {}))
    return ProbeResult(False, reason=_crash_reason(proc))


#: Database files this process has open (:class:`~brainwork.store.db.Store`
#: adds and removes them). For one of these the check is skipped: a probe
#: child would open the file beside this process, and the lock test's
#: ``close`` would drop this process's own lock on it.
OPEN_HERE: set[str] = set()


def _key(db_path: Path) -> str:
    return os.path.realpath(db_path)


def opened(db_path: Path) -> None:
    OPEN_HERE.add(_key(db_path))


def closed(db_path: Path) -> None:
    OPEN_HERE.discard(_key(db_path))


def check_before_open(db_path: Path) -> None:
    """Called by :class:`~brainwork.store.db.Store` before it opens the
    database: nothing when the file is as last closed (or new); otherwise a
    probe child reads it first.

    Raises:
        StoreDamaged: the store cannot be read.
    """
    if _key(db_path) in OPEN_HERE:
        return
    state = seal_state(db_path)
    if state in ("none", "sealed", "unsealed"):
        return
    if state == "truncated":
        raise StoreDamaged(db_path, "the database file is empty but held a store when it was last closed")
    if held_elsewhere(db_path):
        return  # its holder is writing it; opening reports StoreBusy
    result = probe(db_path.parent)
    if result.busy:
        return
    if not result.ok:
        raise StoreDamaged(db_path, result.reason)
    # Read in full and found sound (e.g. recovered from its WAL): the next
    # clean close seals it again.


def looks_damaged(message: str) -> bool:
    """Whether a Kùzu error opening an existing database means its files
    are damaged (rather than busy, missing or forbidden)."""
    low = message.lower()
    not_damage = ("lock", "permission denied", "no such file", "read-only file system", "no space left",
                  "out of memory", "buffer manager")
    return not any(m in low for m in not_damage)


# -- exporting the history ------------------------------------------------------------
@dataclass
class HistoryExport:
    """Tables a child wrote to ``folder`` (Arrow IPC files ``TABLE.arrow``),
    with their rows, and the tables that could not be read (and why)."""

    folder: Path
    rows: dict[str, int] = field(default_factory=dict)
    lost: dict[str, str] = field(default_factory=dict)


def export_history(store_folder: Path, out: Path, tables: list[str], timeout: float = PROBE_TIMEOUT) -> HistoryExport:
    """Write each of ``tables`` of the store at ``store_folder`` into ``out``,
    in a child process, table by table: a table whose reading crashes the
    child is lost alone (the child starts again on the rest). A store that
    cannot be opened loses every table."""
    out.mkdir(parents=True, exist_ok=True)
    result = HistoryExport(out)
    left = list(tables)
    while left:
        proc = _child(["--export", str(out), str(store_folder), *left], timeout)
        started: str | None = None
        lines = proc.stdout.splitlines() if not isinstance(proc, str) else []
        for line in lines:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if "start" in msg:
                started = msg["start"]
            elif "done" in msg:
                result.rows[msg["done"]] = int(msg["rows"])
                left.remove(msg["done"])
                started = None
            elif "lost" in msg:
                result.lost[msg["lost"]] = msg["reason"]
                left.remove(msg["lost"])
                started = None
            elif "unopenable" in msg:
                for t in left:
                    result.lost[t] = msg["unopenable"]
                return result
        if isinstance(proc, str) or proc.returncode != 0:
            reason = proc if isinstance(proc, str) else _crash_reason(proc)
            if started is None:  # died before any table (e.g. at open)
                for t in left:
                    result.lost[t] = reason
                return result
            result.lost[started] = reason
            left.remove(started)
        elif left:  # a clean exit that skipped tables: should not happen
            for t in left:
                result.lost[t] = "not exported"
            return result
    return result
