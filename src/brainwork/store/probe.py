"""The child process of :mod:`brainwork.store.integrity`.

``python -m brainwork.store.probe STORE`` opens the store and reads every
table in full; it prints one JSON line ``{"ok": true, "rows": {...}}``, or
``{"ok": false, "busy": true}`` when another process holds the store. A
damaged store makes it fail or crash, which is the point: the parent is safe.

``python -m brainwork.store.probe --export OUT STORE TABLE...`` writes each
table to ``OUT/TABLE.arrow`` (Arrow IPC, written to a temp name and renamed),
printing ``{"start": T}`` before and ``{"done": T, "rows": n}`` after each
(``{"lost": T, "reason": ...}`` for a table Kùzu reports unreadable), so the
parent knows which table a crash hit.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

#: Test hook: ``--export`` kills itself with SIGSEGV when it starts this table
#: (as Kùzu does reading a damaged one), so the tests can show a crash loses
#: only that table.
CRASH_TABLE_ENV = "BRAINWORK_PROBE_CRASH_TABLE"


def _say(**msg) -> None:
    print(json.dumps(msg), flush=True)


def _reason(exc: Exception) -> str:
    return " ".join(str(getattr(exc, "reason", None) or exc).split())


def _open(folder: Path):
    from brainwork.errors import StoreBusy
    from brainwork.store.db import Store

    # Read-only unless a WAL waits to be replayed (a crash): then it is
    # opened as any command would open it, which replays and checkpoints it.
    read_only = not (folder / "graph.kuzu.wal").exists()
    try:
        return Store(folder, read_only=read_only, verify=False)
    except StoreBusy:
        return "busy"


def read_all(store) -> dict[str, int]:
    """Read every node and relationship table of ``store`` in full (every
    column, as Arrow); rows per table. Raises what Kùzu raises."""
    rows: dict[str, int] = {}
    for name, kind in store.execute("CALL show_tables() RETURN name, type"):
        # Column by column: a whole node as one Arrow struct came back with
        # invalid list offsets from a sound 3-page store (Kùzu 0.11.3).
        cols = [c for (c,) in store.execute(f"CALL table_info('{name}') RETURN name")]
        if kind == "NODE":
            pattern, var = f"(n:{name})", "n"
        elif kind == "REL":
            pattern, var = f"()-[n:{name}]->()", "n"
        else:
            continue
        if not cols:
            store.execute(f"MATCH {pattern} RETURN count(*)")
            rows[name] = 0
            continue
        table = store.arrow(f"MATCH {pattern} RETURN " + ", ".join(f"{var}.{c} AS c{i}" for i, c in enumerate(cols)))
        # Kùzu hands garbage bytes out as they are: full validation finds
        # text that is not UTF-8 and string offsets that point nowhere. List
        # columns are left out: Kùzu 0.11.3 exports a list column of empty
        # lists with a garbage slice offset after an in-place SET on the row
        # (their values read back sound).
        import pyarrow as pa

        scalar = [i for i, f in enumerate(table.schema)
                  if not (pa.types.is_list(f.type) or pa.types.is_large_list(f.type)
                          or pa.types.is_fixed_size_list(f.type))]
        table.select(scalar).validate(full=True)
        rows[name] = table.num_rows
    return rows


def export_table(store, table: str, out: Path) -> int:
    """Write one node table's rows to ``out / f"{table}.arrow"``; its row count."""
    import pyarrow as pa

    from brainwork.store import schema

    cols = schema.history_columns(table)
    query = f"MATCH (n:{table}) RETURN " + ", ".join(f"n.{c} AS {c}" for c in cols)
    if table in schema.VECTOR_TABLES:
        data = store.arrow(query)  # FLOAT[384]: Arrow is the fast way (no string lists here)
    else:
        # Through Python values, not Kùzu's Arrow: a STRING[] column whose
        # lists are all empty comes out with a garbage child offset (measured:
        # the undo log's ``paths`` after a SET of ``state``).
        types = dict(schema.KEPT_TABLES[table])
        arrow_type = {"STRING": pa.string(), "INT64": pa.int64(), "BOOLEAN": pa.bool_(),
                      "STRING[]": pa.list_(pa.string())}
        # Positional names: Store.execute turns '' into None in columns
        # named like the page's absent text columns (``created``, ``type``...).
        rows = store.execute(f"MATCH (n:{table}) RETURN " + ", ".join(f"n.{c} AS v{i}" for i, c in enumerate(cols)))
        data = pa.table({c: pa.array([r[i] for r in rows], arrow_type[types[c]]) for i, c in enumerate(cols)})
    target = out / f"{table}.arrow"
    tmp = out / f".{table}.arrow.tmp"
    with pa.OSFile(str(tmp), "wb") as sink, pa.ipc.new_file(sink, data.schema) as writer:
        writer.write_table(data)
    tmp.replace(target)
    return data.num_rows


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--export":
        out, folder, tables = Path(argv[1]), Path(argv[2]), argv[3:]
        try:
            store = _open(folder)
        except Exception as exc:  # the store cannot be opened: every table is lost
            _say(unopenable=_reason(exc))
            return 0
        if store == "busy":
            _say(unopenable="another process holds the store")
            return 0
        present = {name for (name,) in store.execute("CALL show_tables() RETURN name")}
        crash_at = os.environ.get(CRASH_TABLE_ENV)
        for table in tables:
            _say(start=table)
            if table == crash_at:  # test hook: a table whose reading crashes the reader
                os.kill(os.getpid(), signal.SIGSEGV)
            if table not in present:
                _say(done=table, rows=0)
                continue
            try:
                n = export_table(store, table, out)
            except Exception as exc:
                _say(lost=table, reason=_reason(exc))
                continue
            _say(done=table, rows=n)
        store.close()
        return 0
    folder = Path(argv[0])
    try:
        store = _open(folder)
        if store == "busy":
            _say(ok=False, busy=True)
            return 0
        rows = read_all(store)
        store.close()
    except Exception as exc:
        _say(ok=False, reason=_reason(exc))
        return 0
    _say(ok=True, rows=rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
