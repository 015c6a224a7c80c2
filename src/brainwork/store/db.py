"""Connection handling for the embedded Kùzu database — the only module that
imports ``kuzu``.

Kùzu 0.11.3 facts this module designs around (../shared/KUZU-NOTES.md):

- one ``Database`` per process; another process holding it fails at once
  with ``Could not set lock on file`` -> :class:`~brainwork.errors.StoreBusy`;
- one connection per thread (kept thread-local here), one writer at a time
  (a lock serialises :meth:`Store.write`);
- an unbound ``$param`` is NULL and matches every row, so :meth:`Store.execute`
  refuses a query whose ``$names`` differ from the given parameter keys;
- any error inside an explicit transaction rolls it back.
"""

from __future__ import annotations

import importlib.util  # noqa: F401  kuzu's Arrow scan needs importlib.util loaded
import os
import re
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import kuzu

from brainwork.errors import StoreBusy, UserError
from brainwork.store import integrity, schema

_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_STRING_LIT = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


def _buffer_pool_bytes() -> int:
    """Kùzu's buffer pool cap: 80% of physical memory (Kùzu's own default),
    at most 4 GiB.

    Kùzu keeps per-frame bookkeeping for the whole pool from the moment the
    database opens: ~42 MB of resident memory for its default on a 24 GB
    machine, ~12 MB at 4 GiB (measured, benchmarks/ and docs/performance.md).
    A full index of 10,000 pages needs 64-128 MB of pool, so 4 GiB leaves room
    for ~100,000-page vaults with embeddings."""
    cap = 4 << 30
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return cap
    return min(cap, int(physical * 0.8))


def _refuse_read_only_parent(folder: Path) -> None:
    """Refuse to create a store folder inside a folder without write
    permission bits, even for root (who may write anyway): such a folder is a
    read-only vault (CI lays ``../shared/corpora`` out so) and the store
    belongs elsewhere (``--store``).

    Raises:
        UserError: ``folder`` does not exist and its nearest existing
            ancestor has no write bit for anyone.
    """
    if folder.exists():
        return
    parent = folder.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    try:
        mode = parent.stat().st_mode
    except OSError:
        return  # mkdir reports it
    if not mode & 0o222:
        raise UserError(
            f"cannot create store folder {folder}: {parent} is read-only; "
            "keep the store elsewhere with --store PATH"
        )


def query_params(query: str) -> set[str]:
    """The ``$names`` a Cypher query uses (outside string literals)."""
    return set(_PARAM.findall(_STRING_LIT.sub("''", query)))


def _absent_as_none(cols: list[str], rows: list[list[Any]]) -> list[list[Any]]:
    """Turn the ``''`` stored for an absent page column (``type``,
    ``status``, ``created``, ``updated``; see
    :data:`brainwork.store.schema.ABSENT_TEXT_COLUMNS`) back into None, for
    result columns named so (``p.type``, ``type``, ``b.type``...)."""
    idx = [i for i, c in enumerate(cols) if c.rsplit(".", 1)[-1] in schema.ABSENT_TEXT_COLUMNS]
    if not idx:
        return rows
    for row in rows:
        for i in idx:
            if row[i] == "":
                row[i] = None
    return rows


class Store:
    """An open Kùzu database for one vault.

    Args:
        path: the store folder; the database file is ``path / "graph.kuzu"``.
        read_only: open without taking the write lock's side effects.
        verify: when the database file changed since its last clean close,
            have a child process read it in full first
            (:func:`brainwork.store.integrity.check_before_open`); False only
            for that child itself and for ``doctor``/``index --rebuild``,
            which probe on their own.

    Raises:
        StoreBusy: another process has the database open.
        StoreDamaged: the store cannot be read (a UserError: one line
            naming ``brainwork doctor``).
        UserError: the folder cannot be created.
    """

    def __init__(self, path: Path, read_only: bool = False, verify: bool = True):
        self.folder = Path(path)
        self.read_only = read_only
        _refuse_read_only_parent(self.folder)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"cannot create store folder {self.folder}: {exc.strerror}") from None
        self.db_path = self.folder / "graph.kuzu"
        if verify:
            integrity.check_before_open(self.db_path)
        try:
            self._db = kuzu.Database(str(self.db_path), read_only=read_only, buffer_pool_size=_buffer_pool_bytes())
        except RuntimeError as exc:
            msg = str(exc)
            # ``graph.kuzu.shadow: No such file or directory`` or ``Error
            # removing ... graph.kuzu.wal``: another process was closing the
            # database (its checkpoint removes the shadow and WAL files) while
            # this one opened it. As passing as the lock itself: retry.
            if "lock" in msg.lower() or ".shadow" in msg or (".wal" in msg and "removing" in msg):
                raise StoreBusy(
                    f"the store {self.db_path} is in use by another brainwork process; close it and try again"
                ) from None
            if self.db_path.exists() and integrity.looks_damaged(msg):
                raise integrity.StoreDamaged(self.db_path, msg) from None
            raise UserError(f"cannot open store {self.db_path}: {msg}") from None
        integrity.opened(self.db_path)
        self._local = threading.local()
        self._write_lock = threading.RLock()
        self._closed = False
        if not read_only:
            self._ensure_schema()

    # -- connections -------------------------------------------------------
    def _conn(self) -> kuzu.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = kuzu.Connection(self._db)
            self._local.conn = conn
        return conn

    def close(self) -> None:
        """Close the database (idempotent)."""
        if not self._closed:
            self._closed = True
            self._db.close()
            integrity.closed(self.db_path)
            integrity.write_seal(self.db_path)

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- queries -----------------------------------------------------------
    def _run(self, query: str, params: dict[str, Any] | None):
        """The Kùzu result of ``query`` (of its last statement when there are
        several); the caller closes it.

        Raises:
            ValueError: the parameter keys differ from the ``$names`` in the
                query (an unbound parameter would match every row).
        """
        params = params or {}
        names = query_params(query)
        if names != set(params):
            raise ValueError(
                f"query parameters {sorted(names)} do not match the given keys {sorted(params)}"
            )
        result = self._conn().execute(query, params)
        return result[-1] if isinstance(result, list) else result

    def execute(self, query: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        """Run one Cypher statement and return its rows as lists.

        Raises:
            ValueError: the parameter keys differ from the ``$names`` in the
                query (an unbound parameter would match every row).
        """
        result = self._run(query, params)
        rows = _absent_as_none(result.get_column_names(), result.get_all())
        result.close()
        return rows

    def rows(self, query: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Like :meth:`execute` but each row is a dict keyed by column name."""
        result = self._run(query, params)
        cols = result.get_column_names()
        out = [dict(zip(cols, row)) for row in _absent_as_none(cols, result.get_all())]
        result.close()
        return out

    def arrow(self, query: str, params: dict[str, Any] | None = None):
        """Like :meth:`execute` but the result is one ``pyarrow.Table`` (fast
        for many rows or FLOAT[384] columns, e.g. every embedding at once)."""
        result = self._run(query, params)
        # One chunk of exactly the result's rows. Kùzu's default is "adaptive":
        # 10 million elements / columns rows per chunk, allocated up front, so
        # two columns (id, FLOAT[384]) made every read cost ~1 s even for 100
        # rows (measured: 1.28 s -> 8 ms for 129 vectors).
        table = result.get_as_arrow(max(result.get_num_tuples(), 1))
        result.close()
        return table

    def scalar(self, query: str, params: dict[str, Any] | None = None) -> Any:
        rows = self.execute(query, params)
        return rows[0][0] if rows else None

    @contextmanager
    def write(self) -> Iterator["Store"]:
        """One write transaction, serialised with every other writer.

        Everything done on this thread inside the block commits together or
        not at all (an exception rolls back and propagates).
        """
        with self._write_lock:
            conn = self._conn()
            conn.execute("BEGIN TRANSACTION")
            try:
                yield self
            except BaseException:
                try:
                    conn.execute("ROLLBACK")
                except RuntimeError:
                    pass  # Kùzu already rolled back after the error
                raise
            else:
                conn.execute("COMMIT")

    @contextmanager
    def exclusive(self) -> Iterator["Store"]:
        """Hold the writer lock without opening a transaction, for statements
        Kùzu runs only in auto-transaction mode (``CREATE_VECTOR_INDEX``,
        ``DROP TABLE``); each statement inside commits on its own."""
        with self._write_lock:
            yield self

    @contextmanager
    def one_thread(self) -> Iterator["Store"]:
        """Run this thread's statements on one Kùzu worker thread inside the
        block (then back to one per CPU, Kùzu's default).

        For work measured in CPU seconds: a full index of obsidian-hub
        (6,571 pages, its COPYs and COMMIT) costs ~0.05 s CPU less on one
        thread than on two, in no more wall time on a 2-core machine
        (benchmarks/bench_peer.py, 3 runs each)."""
        conn = self._conn()
        conn.set_max_threads_for_exec(1)
        try:
            yield self
        finally:
            conn.set_max_threads_for_exec(os.cpu_count() or 1)

    def copy(self, table: str, data, pair: tuple[str, str] | None = None) -> None:
        """Bulk-load a ``pyarrow.Table`` into ``table`` (``COPY FROM``).

        ``pair`` names the (from, to) node tables for a multi-pair REL table.
        One duplicate primary key aborts the whole copy (ValueError-like
        RuntimeError from Kùzu).
        """
        if data.num_rows == 0:
            return
        # Kùzu 0.11.3 stops reading an Arrow table at its first empty record
        # batch and drops every row after it without an error (measured: a
        # table concatenated from per-slice parts, chunks [12, 3, 1, 0, 1, ...],
        # stored 16 of 68 rows). Tables made by concatenating slices have such
        # batches, so they are left out here.
        batches = data.to_batches()
        if any(b.num_rows == 0 for b in batches):
            import pyarrow as pa

            data = pa.Table.from_batches([b for b in batches if b.num_rows], schema=data.schema)
        opts = f" (from='{pair[0]}', to='{pair[1]}')" if pair else ""
        self._conn().execute(f"COPY {table} FROM $data{opts}", {"data": data})

    # -- schema and meta ---------------------------------------------------
    def _ensure_schema(self) -> None:
        """Create missing tables; a store written by another schema version
        loses its derived tables (pages, edges, parse errors), which the next
        sync rebuilds from the vault. History tables are kept."""
        with self.write():
            for stmt in schema.ddl():
                self._conn().execute(stmt)
        version = self.meta("schema_version")
        if version is not None and version != schema.SCHEMA_VERSION:
            with self.write():
                for table in schema.EDGE_TABLES:
                    self._conn().execute(f"DROP TABLE IF EXISTS {table}")
                for table in schema.DERIVED_NODE_TABLES:
                    self._conn().execute(f"DROP TABLE IF EXISTS {table}")
                for stmt in schema.ddl():
                    self._conn().execute(stmt)
        if version != schema.SCHEMA_VERSION:
            self.set_meta("schema_version", schema.SCHEMA_VERSION)

    def meta(self, key: str) -> str | None:
        """A value from the store's key-value table, or None."""
        return self.scalar("MATCH (m:Meta {key: $k}) RETURN m.value", {"k": key})

    def set_meta(self, key: str, value: str) -> None:
        self.execute("MERGE (m:Meta {key: $k}) SET m.value = $v", {"k": key, "v": value})
