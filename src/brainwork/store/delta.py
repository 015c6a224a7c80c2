"""Write a *partial* sync: a known set of changed files (what an operation
wrote), instead of :func:`brainwork.store.graph.apply_sync`'s rewrite of
every edge. Used by :mod:`brainwork.index.incremental`.

Changed pages keep their node (columns ``SET``), so edges other files hold
to them survive; only the edges written in the affected files are deleted
and re-created; dead-link targets (``Missing``) are added as needed and
dropped when nothing points at them any more. Everything happens in one
transaction.
"""

from __future__ import annotations

from typing import Any

from brainwork.store.db import Store
from brainwork.store.graph import _schemas, _table, page_table
from brainwork.store.schema import EDGE_TABLES, PAGE_COLUMNS

ALL_COLUMNS = tuple(name for name, _ in PAGE_COLUMNS if name != "id")

#: Columns compared before an update (the body is not read back: it is set
#: whenever the file's hash changed).
COMPARED = ("type", "status", "created", "updated", "tags", "fields", "body_line")


def missing_ids(store: Store) -> set[str]:
    """Every dead-link target currently stored."""
    return {r[0] for r in store.execute("MATCH (m:Missing) RETURN m.id")}


def stored_columns(store: Store, ids: list[str]) -> dict[str, dict[str, Any]]:
    """``{id: {column: value}}`` of the :data:`COMPARED` columns of pages ``ids``."""
    if not ids:
        return {}
    cols = ", ".join(f"p.{c} AS {c}" for c in COMPARED)
    return {r["id"]: r for r in store.rows(f"MATCH (p:Page) WHERE p.id IN $ids RETURN p.id AS id, {cols}", {"ids": ids})}


def apply_delta(
    store: Store,
    *,
    removed: list[str],
    updated: dict[tuple[str, ...], list[dict[str, Any]]],
    added: list[dict[str, Any]],
    touched: list[tuple[str, int]],
    files: list[str],
    edges: dict[str, list[dict]],
    new_missing: list[str],
    clear_error_paths: list[str],
    errors: list[dict],
) -> None:
    """One partial sync, all or nothing.

    - ``removed``: page ids to delete (with their edges);
    - ``updated``: ``{columns: rows}``: page rows whose node stays, grouped
      by the columns that changed (setting 5 columns instead of all 16
      halves the cost of a 1,000-page update);
    - ``added``: full rows of new pages;
    - ``touched``: ``(id, mtime_ns)`` of pages whose bytes did not change;
    - ``files``: page ids whose written links (edge property ``file``) are
      replaced by ``edges`` (per REL table, rows as
      :func:`brainwork.store.graph.apply_sync` takes them);
    - ``new_missing``: dead-link targets to create (not yet stored);
    - parse errors of ``clear_error_paths`` are replaced by ``errors``.
    """
    import pyarrow as pa

    with store.write():
        if files:
            # Kùzu 0.11.3: on a multi-pair REL table (Page->Page, Page->Missing)
            # a filtered DELETE through unlabelled endpoints skips or picks the
            # wrong rows for bulk-loaded edges; one statement per pair is exact.
            for table in EDGE_TABLES:
                for node in ("Page", "Missing"):
                    store.execute(
                        f"MATCH (:Page)-[r:{table}]->(:{node}) WHERE r.file IN $files DELETE r", {"files": files}
                    )
        if removed:
            store.execute("UNWIND $ids AS i MATCH (p:Page {id: i}) DETACH DELETE p", {"ids": removed})
        for columns, rows in updated.items():
            if not columns or not rows:
                continue
            sets = ", ".join(f"p.{c} = r.{c}" for c in columns)
            slim = [{"id": r["id"], **{c: r[c] for c in columns}} for r in rows]
            store.execute(f"UNWIND $rows AS r MATCH (p:Page {{id: r.id}}) SET {sets}", {"rows": slim})
        if added:
            store.copy("Page", page_table(added))
        if touched:
            store.execute(
                "UNWIND $rows AS r MATCH (p:Page {id: r.id}) SET p.mtime_ns = r.m",
                {"rows": [{"id": i, "m": m} for i, m in touched]},
            )
        if clear_error_paths:
            store.execute("MATCH (e:ParseError) WHERE e.path IN $paths DELETE e", {"paths": clear_error_paths})
        if errors:
            store.execute(
                "UNWIND $rows AS r CREATE (:ParseError {path: r.path, line: r.line, message: r.message})",
                {"rows": errors},
            )
        if new_missing:
            store.copy("Missing", pa.table({"id": pa.array(sorted(new_missing), pa.string())}))
        # Inserts only by COPY, as the full sync does: mixing CREATEd edges
        # into these multi-pair REL tables left rows that later unlabelled
        # deletes missed (kuzu 0.11.3; a ROLLBACK then segfaulted).
        edge_schema = _schemas()[1]
        for table, rows in edges.items():
            store.copy(table, _table([r for r in rows if not r["dead"]], edge_schema), ("Page", "Page"))
            store.copy(table, _table([r for r in rows if r["dead"]], edge_schema), ("Page", "Missing"))
        # Dead-link targets nothing points at any more. Each table is asked
        # with labelled endpoints: an unlabelled `()-[]->(m)` pattern misses
        # rows created in the second pair of a multi-pair REL table (kuzu
        # 0.11.3), and deleting a Missing node that still has edges fails.
        keep: set[str] = set()
        for table in EDGE_TABLES:
            keep.update(r[0] for r in store.execute(f"MATCH (:Page)-[:{table}]->(m:Missing) RETURN DISTINCT m.id"))
        store.execute("MATCH (m:Missing) WHERE NOT m.id IN $keep DELETE m", {"keep": sorted(keep)})
