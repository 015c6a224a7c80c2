"""Write a *partial* sync: a known set of changed files (what an operation
wrote), instead of :func:`brainwork.store.graph.apply_sync`'s rewrite of
every edge. Used by :mod:`brainwork.index.incremental`.

Changed pages keep their node (columns ``SET``; when the body or links
changed, the ``PageBody`` row is deleted and created again), so edges other files hold
to them survive; only the edges written in the affected files are deleted
and re-created; dead-link targets (``Missing``) are added as needed and
dropped when nothing points at them any more. Everything happens in one
transaction.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from brainwork.store.db import Store
from brainwork.store.graph import BY_ROW_ID, _schemas, _table, copy_pages, delete_bodies, page_table, set_mtimes
from brainwork.store.schema import (
    COLD_INDEX_KEY, DERIVED_NODE_TABLES, EDGE_TABLES, PAGE_BODY_COLUMNS, PAGE_COLUMNS, PAGE_NODE_COLUMNS, TEXT_COLUMNS, ddl,
)

ALL_COLUMNS = tuple(name for name, _ in PAGE_COLUMNS if name != "id")

#: Columns compared before an update (the body is not read back: it is set
#: whenever the file's hash changed).
COMPARED = (
    "path", "kind", "title", "type", "status", "created", "updated", "aliases", "tags", "fields",
    "body_line", "hash", "size", "mtime_ns", "links",
)


#: Edge properties read back and compared (``from``/``to`` are the endpoints).
EDGE_PROPS = ("file", "line", "place", "target", "label", "heading", "embed", "ambiguous")


def file_edges(store: Store, files: list[str]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The stored edges written in ``files`` (edge property ``file``):
    ``{(table, "Page"|"Missing"): [row]}``, rows keyed ``from``, ``to`` and
    :data:`EDGE_PROPS`. Labelled endpoints on purpose (see apply_delta).

    One scan of each table, joined to ``UNWIND $files`` on ``r.file`` (a
    hash join: for 1,000 files at 50,000 pages the largest table is read in
    0.10 s CPU, where ``r.file IN $files`` took 0.30 s). Not primary-key
    lookups through each file's node (``a.id = $f AND r.file = $f``): that
    keyed read once crashed Kùzu 0.11.3 (SIGSEGV) after many partial syncs
    on one store."""
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    if not files:
        return out
    unique = sorted(set(files))  # one row per edge: the join repeats a file's rows per mention
    props = ", ".join(f"r.{c} AS {c}" for c in EDGE_PROPS)
    for table in EDGE_TABLES:
        for node in ("Page", "Missing"):
            rows = store.rows(
                f"UNWIND $files AS f MATCH (a:Page)-[r:{table}]->(b:{node}) WHERE r.file = f "
                f"RETURN a.id AS `from`, b.id AS `to`, {props}",
                {"files": unique},
            )
            if rows:
                out[(table, node)] = rows
    return out


#: Up to this many pages, :func:`stored_columns` and :func:`stored_files`
#: look rows up by primary key, one query each.
FEW_FILES = 16


class StoredFile(NamedTuple):
    """What change detection needs of one stored page or attachment (a
    named tuple: one is made per page on every sync)."""

    path: str
    kind: str
    hash: str
    size: int
    mtime_ns: int


def file_signatures(store: Store) -> dict[tuple[str, int, int], str]:
    """``{(path, size, mtime_ns): id}`` of every stored page and attachment:
    all a sync reads of every row to find the unchanged files (a scanned
    :class:`~brainwork.index.scan.VaultFile` equals its key). The rest of a
    row is read only for the files that changed (:func:`stored_files`):
    fewer objects made and freed, ~0.1 s CPU less at 50,000 pages."""
    return {(p, s, m): i for i, p, s, m in store.execute("MATCH (p:Page) RETURN p.id, p.path, p.size, p.mtime_ns")}


def stored_files(store: Store, ids: list[str]) -> dict[str, StoredFile]:
    """:class:`StoredFile` of the stored ids among ``ids`` (by primary key
    for a few; :func:`light_state` for more)."""
    if len(ids) > FEW_FILES:
        every = light_state(store)
        return {i: every[i] for i in ids if i in every}
    out = {}
    for i in ids:
        for r in store.execute(
            "MATCH (p:Page {id: $id}) RETURN p.path, p.kind, p.hash, p.size, p.mtime_ns", {"id": i},
        ):
            out[i] = StoredFile(*r)
    return out


def light_state(store: Store) -> dict[str, StoredFile]:
    """Per page id, what change detection needs (:class:`StoredFile`);
    titles, aliases and links are read only when needed, by
    :func:`page_names` and :func:`page_links`. Read as rows, not Arrow: at
    50,000 pages both cost ~0.1 s CPU, but a sync that writes only a few rows
    then never imports pyarrow (~0.1 s)."""
    return {
        r[0]: StoredFile(*r[1:])
        for r in store.execute("MATCH (p:Page) RETURN p.id, p.path, p.kind, p.hash, p.size, p.mtime_ns")
    }


def page_names(store: Store) -> dict[str, list[str]]:
    """``{page id: [title, *aliases]}`` of every Markdown page (the names a
    :class:`~brainwork.vault.resolve.Resolver` matches in its last rule)."""
    t = store.arrow(
        "MATCH (p:Page) WHERE p.kind = 'page' RETURN p.id AS id, p.title AS title, p.aliases AS aliases"
    ).to_pydict()
    return {i: [ti, *(a or [])] for i, ti, a in zip(t["id"], t["title"], t["aliases"])}


def page_links(store: Store, ids: list[str] | None = None) -> dict[str, str]:
    """``{page id: raw links JSON}`` of the pages ``ids`` (when None: of
    every page, and of every attachment, whose links are ``'[]'``; read
    from ``PageBody`` alone, no join to ``Page``)."""
    if ids is None:
        t = store.arrow("MATCH (b:PageBody) RETURN b.id AS id, b.links AS links").to_pydict()
    elif not ids:
        return {}
    else:
        t = store.arrow(
            "UNWIND $ids AS i MATCH (b:PageBody {id: i}) RETURN b.id AS id, b.links AS links", {"ids": sorted(set(ids))},
        ).to_pydict()
    return dict(zip(t["id"], t["links"]))


#: Below this many rows new nodes are CREATEd rather than COPied: a COPY
#: inside a transaction adds ~0.25 s to the COMMIT even for one row (kuzu
#: 0.11.3, measured here), a CREATE ~0.5 ms a node. (Edges are always
#: COPied, see apply_delta.)
NODE_COPY_MIN = 500


def _insert_pages(store: Store, rows: list[dict[str, Any]]) -> None:
    if len(rows) >= NODE_COPY_MIN:
        copy_pages(store, page_table(rows))
        return
    props = ", ".join(f"{c}: r.{c}" for c, _ in PAGE_NODE_COLUMNS)
    store.execute(
        f"UNWIND $rows AS r CREATE (:Page {{{props}}})",
        {"rows": [{c: r.get(c) for c, _ in PAGE_NODE_COLUMNS} for r in rows]},
    )
    _insert_bodies(store, rows)


def _insert_bodies(store: Store, rows: list[dict[str, Any]]) -> None:
    """CREATE the ``PageBody`` rows of page rows ``rows`` (their old rows
    already deleted): these columns are replaced, never SET (schema.TEXT_COLUMNS)."""
    if rows:
        props = ", ".join(f"{c}: r.{c}" for c, _ in PAGE_BODY_COLUMNS)
        store.execute(
            f"UNWIND $rows AS r CREATE (:PageBody {{{props}}})",
            {"rows": [{c: r.get(c) for c, _ in PAGE_BODY_COLUMNS} for r in rows]},
        )


def missing_ids(store: Store) -> set[str]:
    """Every dead-link target currently stored."""
    return {r[0] for r in store.execute("MATCH (m:Missing) RETURN m.id")}


def stored_columns(store: Store, ids: list[str]) -> dict[str, dict[str, Any]]:
    """``{id: {column: value}}`` of the :data:`COMPARED` columns of pages ``ids``
    (links from ``PageBody``, by primary key too)."""
    if not ids:
        return {}
    cols = ", ".join(f"{'b' if c in TEXT_COLUMNS else 'p'}.{c} AS {c}" for c in COMPARED)
    if len(ids) <= FEW_FILES:
        # By primary key, one query each: ``p.id IN $ids`` reads these
        # columns of every page (~0.07 s at 50,000 pages).
        out = {}
        for i in ids:
            for r in store.rows(
                f"MATCH (p:Page {{id: $id}}) OPTIONAL MATCH (b:PageBody {{id: $id}}) RETURN p.id AS id, {cols}", {"id": i},
            ):
                out[r["id"]] = r
        return out
    # More: still by primary key, through UNWIND (an index lookup per id).
    # ``p.id IN $ids`` scans these columns of every page, the long links
    # JSON included: 1,000 ids at 50,000 pages 0.16-0.20 s CPU against
    # 0.06-0.08 s.
    return {
        r["id"]: r
        for r in store.rows(
            f"UNWIND $ids AS i MATCH (p:Page {{id: i}}) OPTIONAL MATCH (b:PageBody {{id: i}}) RETURN p.id AS id, {cols}",
            {"ids": sorted(set(ids))},
        )
    }


def apply_delta(
    store: Store,
    *,
    removed: list[str],
    updated: dict[tuple[str, ...], list[dict[str, Any]]],
    added: list[dict[str, Any]],
    touched: list[tuple[str, int]],
    edge_deletes: dict[tuple[str, str], list[dict[str, Any]]],
    edge_inserts: dict[tuple[str, str], list[dict[str, Any]]],
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
    - ``edge_deletes``: ``{(table, "Page"|"Missing"): [{"from", "to",
      "file", "line", "target"}]}``: every edge matching one of these is
      deleted (edges of removed pages go with them and need no entry);
    - ``edge_inserts``: ``{(table, node): [edge rows]}`` (rows as
      :func:`brainwork.store.graph.apply_sync` takes them) to add;
    - ``new_missing``: dead-link targets to create (not yet stored);
    - parse errors of ``clear_error_paths`` are replaced by ``errors``.

    Only edges that really change are touched: a rename rewrites one link in
    each of 1,000 files, and the other links of those files keep their rows.
    That matters because each COPY into a REL table inside a transaction
    adds ~0.1-0.8 s to the COMMIT (kuzu 0.11.3, measured here), whatever its
    size.
    """
    with store.write():
        # Kùzu 0.11.3: on a multi-pair REL table (Page->Page, Page->Missing)
        # a filtered DELETE through unlabelled endpoints skips or picks the
        # wrong rows; labelled endpoints, one statement per pair, are exact.
        # Endpoints bound through WITH: ``{id: k.src}`` on the struct's
        # field is no key lookup (see graph.BY_ROW_ID).
        for (table, node), keys in edge_deletes.items():
            if keys:
                store.execute(
                    f"UNWIND $keys AS k WITH k, k.src AS s, k.dst AS d MATCH (a:Page {{id: s}})-[r:{table}]->(b:{node} {{id: d}}) "
                    "WHERE r.file = k.file AND r.line = k.line AND r.target = k.target DELETE r",
                    {"keys": [{"src": k["from"], "dst": k["to"], "file": k["file"], "line": k["line"], "target": k["target"]} for k in keys]},
                )
        if removed:
            # Edges through labelled endpoints first, then the node: a bare
            # DETACH DELETE on these multi-pair REL tables left rows that
            # unlabelled patterns still saw (kuzu 0.11.3, measured here).
            for table in EDGE_TABLES:
                for pattern in ("(p:Page {id: i})-[r:%s]->(:Page)", "(p:Page {id: i})-[r:%s]->(:Missing)", "(:Page)-[r:%s]->(p:Page {id: i})"):
                    store.execute(f"UNWIND $ids AS i MATCH {pattern % table} DELETE r", {"ids": removed})
            store.execute("UNWIND $ids AS i MATCH (p:Page {id: i}) DETACH DELETE p", {"ids": removed})
            delete_bodies(store, removed)
        new_bodies: list[dict[str, Any]] = []
        for columns, rows in updated.items():
            if not columns or not rows:
                continue
            if any(c in TEXT_COLUMNS for c in columns):
                new_bodies.extend(rows)
                columns = tuple(c for c in columns if c not in TEXT_COLUMNS)
                if not columns:
                    continue
            sets = ", ".join(f"p.{c} = r.{c}" for c in columns)
            slim = [{"id": r["id"], **{c: r[c] for c in columns}} for r in rows]
            store.execute(f"{BY_ROW_ID}SET {sets}", {"rows": slim})
        if new_bodies:
            delete_bodies(store, [r["id"] for r in new_bodies])
            _insert_bodies(store, new_bodies)
        if added:
            _insert_pages(store, added)
        set_mtimes(store, touched)
        if clear_error_paths:
            store.execute("MATCH (e:ParseError) WHERE e.path IN $paths DELETE e", {"paths": clear_error_paths})
        if errors:
            store.execute(
                "UNWIND $rows AS r CREATE (:ParseError {path: r.path, line: r.line, message: r.message})",
                {"rows": errors},
            )
        if new_missing:
            if len(new_missing) >= NODE_COPY_MIN:
                import pyarrow as pa  # here only: a sync writing a few rows never imports it

                store.copy("Missing", pa.table({"id": pa.array(sorted(new_missing), pa.string())}))
            else:
                store.execute("UNWIND $ids AS i CREATE (:Missing {id: i})", {"ids": sorted(new_missing)})
        # Inserts only by COPY, as the full sync does. Mixing CREATEd
        # edges into these multi-pair REL tables left rows that labelled
        # queries missed and deletes then tripped over, and crashed a later
        # COPY's COMMIT (kuzu 0.11.3), although CREATE would save the
        # checkpoint a COPY forces at COMMIT (0.25 s CPU at 10,000 pages,
        # 2.8 s at 50,000, measured here): so an edit that leaves its links
        # as they were writes no edge at all, and one that changes them
        # pays one checkpoint.
        for (table, node), rows in edge_inserts.items():
            store.copy(table, _table(rows, _schemas()[1]), ("Page", node))
        # Dead-link targets nothing points at any more. Each table is asked
        # with labelled endpoints: an unlabelled `()-[]->(m)` pattern can miss
        # rows of the second pair of a multi-pair REL table (kuzu 0.11.3), and
        # deleting a Missing node that still has edges fails.
        # Only a deleted edge to a Missing node (or a removed page's) can
        # leave one without edges.
        if removed or any(node == "Missing" and keys for (_, node), keys in edge_deletes.items()):
            keep: set[str] = set()
            for table in EDGE_TABLES:
                keep.update(r[0] for r in store.execute(f"MATCH (:Page)-[:{table}]->(m:Missing) RETURN DISTINCT m.id"))
            store.execute("MATCH (m:Missing) WHERE NOT m.id IN $keep DELETE m", {"keep": sorted(keep)})


# -- the sliced cold index (brainwork.index.cold) ---------------------------

def cold_index_incomplete(store: Store) -> bool:
    """Whether a cold index began in this store and did not finish."""
    return store.meta(COLD_INDEX_KEY) is not None


def clear_derived(store: Store) -> None:
    """Empty the tables derived from the vault (pages, bodies, edges,
    dead-link targets, parse errors) by dropping and creating them again, as
    a schema change does: one statement per table, however many rows the
    interrupted index left (a DELETE of them would be one more transaction
    holding every row). Meta and the history tables are kept, the
    :data:`COLD_INDEX_KEY` marker with them, so a kill here leaves a store
    the next sync still clears. Outside any transaction: Kùzu runs ``DROP
    TABLE`` in auto-commit mode."""
    with store.exclusive():
        for table in (*EDGE_TABLES, *DERIVED_NODE_TABLES):
            store.execute(f"DROP TABLE IF EXISTS {table}")
        for stmt in ddl():
            store.execute(stmt)


def begin_cold_index(store: Store, clear_errors: bool) -> None:
    """Inside the cold index's first write transaction: set the
    :data:`COLD_INDEX_KEY` marker (and drop the stored parse errors when
    ``clear_errors``; the last transaction writes the new ones)."""
    store.set_meta(COLD_INDEX_KEY, "1")
    if clear_errors:
        store.execute("MATCH (e:ParseError) DELETE e")


def finish_cold_index(store: Store, errors: list[dict]) -> None:
    """Inside the cold index's last write transaction: the parse errors and
    the deletion of the :data:`COLD_INDEX_KEY` marker."""
    if errors:
        store.execute(
            "UNWIND $rows AS r CREATE (:ParseError {path: r.path, line: r.line, message: r.message})",
            {"rows": errors},
        )
    store.execute("MATCH (m:Meta {key: $k}) DELETE m", {"k": COLD_INDEX_KEY})


def copy_page_nodes(store: Store, table: "Any") -> None:
    """COPY the ``Page`` columns of full page rows (:func:`page_table`)."""
    store.copy("Page", table.select([n for n, _ in PAGE_NODE_COLUMNS]))


def copy_page_bodies(store: Store, table: "Any") -> None:
    """COPY the ``PageBody`` columns of full page rows (:func:`page_table`)."""
    store.copy("PageBody", table.select([n for n, _ in PAGE_BODY_COLUMNS]))


def copy_missing(store: Store, ids: list[str]) -> None:
    """COPY dead-link targets (not yet stored) into ``Missing``."""
    import pyarrow as pa

    store.copy("Missing", pa.table({"id": pa.array(ids, pa.string())}))


def copy_edges(store: Store, table: str, node: str, rows: "Any") -> None:
    """COPY edge rows (an Arrow table of :func:`~brainwork.store.graph.edge_tables`)
    from pages to ``node`` (``Page`` or ``Missing``) into REL table ``table``."""
    store.copy(table, rows, ("Page", node))
