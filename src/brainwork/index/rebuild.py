"""``brainwork index --rebuild``: a new store from the vault that keeps the
old store's history (the tables only the store holds,
:data:`brainwork.store.schema.KEPT_TABLES`).

Invariants: nothing is deleted before the swap, and the old database files
are moved aside, never deleted; a rebuild killed before the swap leaves the
old store where it was; the kept tables are read in a child process one
table at a time (a damaged store may crash its reader, and an unreadable
table loses only itself); a store that cannot be opened at all loses its
history, and the rebuild says so (:attr:`RebuildReport.lost`). Steps,
leftovers and figures: docs/operations.md, ``brainwork index --rebuild``.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from brainwork.config import Config
from brainwork.errors import StoreBusy, UserError
from brainwork.index.sync import Progress, SyncReport, sync
from brainwork.store import Store, schema
from brainwork.store.integrity import export_history, held_elsewhere, seal_path, seal_state, take_lock

DB_NAME = "graph.kuzu"
ASIDE_INFIX = ".before-rebuild-"
EXPORT_PREFIX = "rebuild-export-"
NEW_PREFIX = "rebuild-new-"


@dataclass
class RebuildReport:
    """What a rebuild kept and where the old store went.

    ``kept`` rows per table carried over (tables with rows only); ``lost``
    table -> why it could not be read; ``moved_aside`` the old database
    files' new paths; ``sync`` the full index of the new store;
    ``leftovers_removed`` side folders of earlier killed rebuilds deleted;
    ``aside_copies``/``aside_bytes`` how many ``before-rebuild`` database
    files the store folder now holds and their total size in bytes."""

    kept: dict[str, int] = field(default_factory=dict)
    lost: dict[str, str] = field(default_factory=dict)
    moved_aside: list[Path] = field(default_factory=list)
    sync: SyncReport | None = None
    seconds: float = 0.0
    leftovers_removed: list[Path] = field(default_factory=list)
    aside_copies: int = 0
    aside_bytes: int = 0

    def lost_line(self) -> str | None:
        """One line naming the history that could not be kept, or None."""
        if not self.lost:
            return None
        reasons = sorted(set(self.lost.values()))
        if set(self.lost) >= set(schema.KEPT_TABLES) and len(reasons) == 1:
            return f"history lost: the old store could not be read at all ({reasons[0]})"
        return (f"history lost (unreadable in the old store): {', '.join(sorted(self.lost))}"
                f" — {'; '.join(reasons)}")

    def to_json(self) -> dict:
        return {
            "kept": self.kept, "lost": self.lost, "moved_aside": [str(p) for p in self.moved_aside],
            "index": self.sync.to_json() if self.sync else None, "seconds": round(self.seconds, 3),
            "leftovers_removed": [str(p) for p in self.leftovers_removed],
            "aside_copies": self.aside_copies, "aside_bytes": self.aside_bytes,
        }


def _stamp() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def move_aside(folder: Path, stamp: str) -> list[Path]:
    """Rename the database file and its companions (``.wal``, ``.shadow``
    ...) to ``graph.kuzu.before-rebuild-STAMP[.suffix]``; drop the seal."""
    moved = []
    db = folder / DB_NAME
    try:
        seal_path(db).unlink()
    except FileNotFoundError:
        pass
    # Two rebuilds within one second would share the name (and a rename
    # would replace the first copy): the later one gets a -N suffix.
    base, n = stamp, 1
    while any(folder.glob(f"{DB_NAME}{ASIDE_INFIX}{stamp}*")):
        stamp, n = f"{base}-{n}", n + 1
    for path in sorted(folder.glob(DB_NAME + "*")):
        rest = path.name[len(DB_NAME):]
        if ASIDE_INFIX in rest or not (rest == "" or rest.startswith(".")):
            continue  # an older aside copy, or another file
        target = folder / f"{DB_NAME}{ASIDE_INFIX}{stamp}{rest}"
        path.rename(target)
        moved.append(target)
    return moved


def _hold(db: Path) -> int | None:
    """Take the POSIX record lock Kùzu takes on ``db`` (a descriptor to
    close to release it), or None when there is no file.

    Raises:
        StoreBusy: another process took it first.
    """
    try:
        fd = take_lock(db, exclusive=True)
    except FileNotFoundError:
        return None
    if fd is None:
        raise StoreBusy(f"the store {db} was opened by another brainwork process during the rebuild; "
                        "close it and try again")
    return fd


def _load(store: Store, table: str, path: Path, old_vector_table: str) -> int:
    """Load one exported table into the new store; rows loaded."""
    import pyarrow as pa

    with pa.memory_map(str(path)) as source:
        data = pa.ipc.open_file(source).read_all()
    if data.num_rows == 0:
        return 0
    if table == "Meta":
        n = 0
        with store.write():
            for key, value in zip(data.column("key").to_pylist(), data.column("value").to_pylist()):
                if key in schema.META_NOT_KEPT or key is None:
                    continue
                store.set_meta(key, value)
                n += 1
        return n
    if table in schema.VECTOR_TABLES:
        if table != old_vector_table:
            return 0  # the old store's spare table (left over from a switch)
        from brainwork.store.vectors import VEC_SCHEMA

        data = data.cast(VEC_SCHEMA)
        table = schema.VECTOR_TABLES[0]  # the new store's live table
    with store.write():
        store.copy(table, data)
    return data.num_rows


def rebuild(config: Config, progress: Progress | None = None) -> RebuildReport:
    """Recreate ``config.store`` from the vault, keeping its history (see
    the module doc).

    Raises:
        StoreBusy: another process holds the store.
        UserError: the new store could not take the exported history (the
            old store is kept aside and the export folder is named).
    """
    t0 = time.perf_counter()
    folder = config.store
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / DB_NAME
    report = RebuildReport()
    if held_elsewhere(db):
        raise StoreBusy(f"the store {db} is in use by another brainwork process; close it and try again")
    stamp = _stamp()
    had_db = db.exists()
    export = folder / f"{EXPORT_PREFIX}{stamp}"
    tables = list(schema.KEPT_TABLES)
    exported = None
    if db.exists() and db.stat().st_size > 0:
        if progress:
            progress(0, 0, "saving the store's history")
        exported = export_history(folder, export, tables)
        report.lost = dict(exported.lost)
    elif seal_state(db) == "truncated":
        # Emptied after a clean close (or with its WAL left): there was a
        # history, and nothing of it can be read.
        report.lost = {t: "the database file is empty but held a store when it was last closed" for t in tables}
    # Kùzu's own lock on the old file, held from here to the swap: a
    # command started meanwhile waits or says the store is busy instead of
    # writing history the new store would not have.
    guard = _hold(db)
    try:
        _build_and_swap(config, report, exported, export, folder / f"{NEW_PREFIX}{stamp}", stamp, progress)
    finally:
        if guard is not None:
            os.close(guard)
    shutil.rmtree(export, ignore_errors=True)
    if had_db:
        report.leftovers_removed = _remove_leftovers(folder, stamp)
    asides = [p for p in folder.glob(DB_NAME + ASIDE_INFIX + "*") if p.is_file()]
    report.aside_copies = sum(1 for p in asides if not p.name[len(DB_NAME + ASIDE_INFIX):].count("."))
    report.aside_bytes = sum(p.stat().st_size for p in asides)
    report.seconds = time.perf_counter() - t0
    return report


def _remove_leftovers(folder: Path, stamp: str) -> list[Path]:
    """Delete the export and new-store folders of earlier rebuilds (named
    with a time before ``stamp``); the paths removed."""
    gone = []
    for side in sorted([*folder.glob(EXPORT_PREFIX + "*"), *folder.glob(NEW_PREFIX + "*")]):
        when = side.name.split("-")[-1]
        if side.is_dir() and when < stamp:
            shutil.rmtree(side, ignore_errors=True)
            if not side.exists():
                gone.append(side)
    return gone


def _build_and_swap(config: Config, report: RebuildReport, exported, export: Path, new: Path, stamp: str,
                    progress: Progress | None) -> None:
    """Steps 2 and 3 of the module doc (the caller holds the old file's lock)."""
    folder = config.store
    db = folder / DB_NAME
    tables = list(schema.KEPT_TABLES)
    with Store(new, verify=False) as store:
        if exported is not None:
            old_vec = schema.VECTOR_TABLES[0]
            meta = export / "Meta.arrow"
            if meta.exists():
                import pyarrow as pa

                with pa.memory_map(str(meta)) as source:
                    m = pa.ipc.open_file(source).read_all().to_pydict()
                old_vec = dict(zip(m["key"], m["value"])).get("vector_table") or old_vec
            for table in tables:
                path = export / f"{table}.arrow"
                if table not in exported.rows or not path.exists():
                    continue
                try:
                    n = _load(store, table, path, old_vec)
                except Exception as exc:  # noqa: BLE001 - named with the kept files below
                    raise UserError(
                        f"the new store could not take the old {table} rows ({' '.join(str(exc).split())}); "
                        f"the old store is left as it was ({db}) and its history is in {export}"
                    ) from None
                if n:
                    report.kept[table if table not in schema.VECTOR_TABLES else schema.VECTOR_TABLES[0]] = n
        report.sync = sync(config, store, progress, force=True)
    # The swap: after the first rename the vault has no store until the
    # second (a crash between them leaves the new one in ``new``).
    report.moved_aside = move_aside(folder, stamp)
    for path in sorted(new.glob(DB_NAME + "*")):
        path.rename(folder / path.name)
    shutil.rmtree(new, ignore_errors=True)
