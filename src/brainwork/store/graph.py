"""Queries over the page graph: what the indexer writes and what the command
line, the analyses and the workbench read.

Rows are plain dicts; nothing here knows about Textual or files.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from brainwork.store.db import Store
from brainwork.store.schema import EDGE_COLUMNS, EDGE_TABLES, PAGE_COLUMNS
from brainwork.vocabulary import EDGE_NAMES, EDGE_TYPES

if TYPE_CHECKING:
    import pyarrow as pa

# pyarrow (with numpy, ~0.2 s to import) is needed only to write: imported on
# first use, so reading the graph (the workbench's first paint, `show`,
# `stats`, an unchanged `index`) does not pay for it.


@lru_cache(maxsize=None)
def _schemas() -> tuple["pa.Schema", "pa.Schema"]:
    import pyarrow as pa

    arrow = {"STRING": pa.string(), "INT64": pa.int64(), "BOOLEAN": pa.bool_(), "STRING[]": pa.list_(pa.string())}
    page = pa.schema([(n, arrow[t]) for n, t in PAGE_COLUMNS])
    edge = pa.schema([("from", pa.string()), ("to", pa.string())] + [(n, arrow[t]) for n, t in EDGE_COLUMNS])
    return page, edge


def __getattr__(name: str) -> Any:
    """``PAGE_SCHEMA`` and ``EDGE_SCHEMA``: the Arrow schemas of Page rows and
    edge rows (built on first use)."""
    if name == "PAGE_SCHEMA":
        return _schemas()[0]
    if name == "EDGE_SCHEMA":
        return _schemas()[1]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


PAGE_FIELDS = "p.id AS id, p.path AS path, p.kind AS kind, p.title AS title, p.type AS type, p.status AS status, p.aliases AS aliases, p.tags AS tags, p.created AS created"


def _table(rows: list[dict], schema: "pa.Schema") -> "pa.Table":
    import pyarrow as pa

    return pa.table({f.name: [r.get(f.name) for r in rows] for f in schema}, schema=schema)


def page_table(rows: "list[dict] | list[pa.Table]") -> "pa.Table":
    """Page rows (dicts keyed by the names in :data:`PAGE_COLUMNS`), or
    tables this function made, as one Arrow table for :func:`apply_sync`.

    Converting in slices as pages are parsed keeps one compact copy of each
    body instead of a Python dict per page (peak memory of a full index)."""
    import pyarrow as pa

    if rows and isinstance(rows[0], pa.Table):
        return pa.concat_tables(rows)
    return _table(rows, _schemas()[0])


# -- index state ------------------------------------------------------------
def index_state(store: Store) -> dict[str, dict[str, Any]]:
    """Per page id: path, kind, hash, size, mtime_ns, title, aliases, links
    (raw links as JSON text). Used by the indexer to detect changes."""
    rows = store.rows(
        "MATCH (p:Page) RETURN p.id AS id, p.path AS path, p.kind AS kind, p.hash AS hash, "
        "p.size AS size, p.mtime_ns AS mtime_ns, p.title AS title, p.aliases AS aliases, p.links AS links"
    )
    return {r["id"]: r for r in rows}


def apply_sync(
    store: Store,
    *,
    delete_ids: list[str],
    pages: "list[dict] | pa.Table",
    touched: list[tuple[str, int]],
    edges: dict[str, list[dict]] | None,
    missing: list[str] | None,
    clear_error_paths: list[str],
    errors: list[dict],
) -> None:
    """Write one sync in a single transaction (all or nothing).

    ``pages`` are full rows for new and changed pages, as dicts or one
    :func:`page_table` (their old rows must be in ``delete_ids``);
    ``touched`` (id, mtime_ns) pairs only get a new mtime;
    ``edges`` (per REL table: row dicts, or the pair :func:`edge_tables`
    makes) and ``missing`` replace every edge and dead-link target when given
    (``None`` keeps them).
    """
    import pyarrow as pa

    page_schema, edge_schema = _schemas()
    with store.write():
        if edges is not None:
            for table in EDGE_TABLES:
                store.execute(f"MATCH ()-[r:{table}]->() DELETE r")
            store.execute("MATCH (m:Missing) DELETE m")
        if delete_ids:
            store.execute("UNWIND $ids AS i MATCH (p:Page {id: i}) DETACH DELETE p", {"ids": delete_ids})
        if clear_error_paths:
            store.execute("MATCH (e:ParseError) WHERE e.path IN $paths DELETE e", {"paths": clear_error_paths})
        store.copy("Page", pages if isinstance(pages, pa.Table) else _table(pages, page_schema))
        if touched:
            store.execute(
                "UNWIND $rows AS r MATCH (p:Page {id: r.id}) SET p.mtime_ns = r.m",
                {"rows": [{"id": i, "m": m} for i, m in touched]},
            )
        if errors:
            store.execute(
                "UNWIND $rows AS r CREATE (:ParseError {path: r.path, line: r.line, message: r.message})",
                {"rows": errors},
            )
        if edges is not None:
            store.copy("Missing", pa.table({"id": pa.array(missing or [], pa.string())}))
            for table, rows in edges.items():
                live, dead = rows if isinstance(rows, tuple) else edge_tables(rows)
                store.copy(table, live, ("Page", "Page"))
                store.copy(table, dead, ("Page", "Missing"))


def edge_tables(rows: "list[dict] | list[tuple[pa.Table, pa.Table]]") -> "tuple[pa.Table, pa.Table]":
    """One REL table's edge rows as Arrow tables ``(to pages, to Missing)``,
    the form :func:`apply_sync` also takes for an ``edges`` value.

    ``rows`` are dicts (``from``, ``to``, ``dead`` and the names in
    :data:`EDGE_COLUMNS`), or pairs this function made (concatenated), so a
    caller can convert in slices and never hold every row as a dict."""
    import pyarrow as pa

    if rows and isinstance(rows[0], tuple):
        return pa.concat_tables([r[0] for r in rows]), pa.concat_tables([r[1] for r in rows])
    edge_schema = _schemas()[1]
    return (
        _table([r for r in rows if not r["dead"]], edge_schema),
        _table([r for r in rows if r["dead"]], edge_schema),
    )


# -- reading ----------------------------------------------------------------
def edge_counts(store: Store) -> dict[str, Any]:
    """Link occurrences as stored, in one query over every edge table:
    ``{"edges": {name: live edges}, "dead_links": n, "ambiguous_links": n}``
    (``edges`` in :data:`EDGE_NAMES` order; ambiguous counts live edges only,
    as :class:`brainwork.index.sync.SyncReport` does)."""
    by_table = {e.table: e.name for e in EDGE_TYPES}
    edges = {name: 0 for name in EDGE_NAMES}
    dead = ambiguous = 0
    for r in store.rows(
        "MATCH (:Page)-[r]->(b) RETURN label(r) AS t, label(b) AS k, count(*) AS n, "
        "count(CASE WHEN r.ambiguous THEN 1 END) AS amb"
    ):
        name = by_table.get(r["t"])
        if name is None:  # a table some other feature added
            continue
        if r["k"] == "Missing":
            dead += r["n"]
        elif r["k"] == "Page":
            edges[name] += r["n"]
            ambiguous += r["amb"]
    return {"edges": edges, "dead_links": dead, "ambiguous_links": ambiguous}


def counts(store: Store) -> dict[str, Any]:
    """``{"pages", "attachments", "edges": {name: n}, "dead_links", "parse_errors", "types": {type: n}}``.

    ``edges`` counts live edges (link occurrences between two existing files);
    ``dead_links`` counts link occurrences whose target is missing.
    """
    kinds = dict(store.execute("MATCH (p:Page) RETURN p.kind, count(*)"))
    edges = {}
    dead = 0
    for e in EDGE_TYPES:
        edges[e.name] = store.scalar(f"MATCH (:Page)-[r:{e.table}]->(:Page) RETURN count(r)") or 0
        dead += store.scalar(f"MATCH (:Page)-[r:{e.table}]->(:Missing) RETURN count(r)") or 0
    types = dict(store.execute("MATCH (p:Page) WHERE p.kind = 'page' RETURN coalesce(p.type, ''), count(*)"))
    return {
        "pages": kinds.get("page", 0),
        "attachments": kinds.get("attachment", 0),
        "edges": edges,
        "dead_links": dead,
        "parse_errors": store.scalar("MATCH (e:ParseError) RETURN count(e)") or 0,
        "types": types,
    }


def parse_errors(store: Store) -> list[dict]:
    """Every recorded parse error: ``{"path", "line", "message"}``, by path."""
    return store.rows(
        "MATCH (e:ParseError) RETURN e.path AS path, e.line AS line, e.message AS message ORDER BY e.path, e.line"
    )


def list_pages(store: Store, type_: str | None = None, include_attachments: bool = False) -> list[dict]:
    """Pages as ``{"id", "path", "kind", "title", "type", "status", "aliases", "tags", "created"}``, by id."""
    where = [] if include_attachments else ["p.kind = 'page'"]
    params: dict[str, Any] = {}
    if type_ is not None:
        where.append("p.type = $t")
        params["t"] = type_
    clause = f"WHERE {' AND '.join(where)} " if where else ""
    return store.rows(f"MATCH (p:Page) {clause}RETURN {PAGE_FIELDS} ORDER BY p.id", params)


def get_page(store: Store, page_id: str) -> dict | None:
    """One page with all columns (``fields`` decoded from JSON), or None."""
    rows = store.rows("MATCH (p:Page {id: $id}) RETURN p.*", {"id": page_id})
    if not rows:
        return None
    row = {k.split(".", 1)[1]: v for k, v in rows[0].items()}
    row["fields"] = json.loads(row["fields"] or "{}")
    row.pop("links", None)
    return row


def page_edges(store: Store, page_id: str) -> dict[str, list[dict]]:
    """A page's edges both ways.

    Returns ``{"out": [...], "in": [...]}``, each item ``{"edge", "other",
    "title", "type", "dead", "file", "line", "place", "target", "heading",
    "label", "embed"}`` (``heading``/``label`` None when the link has none,
    so two links on one line to one page can be told apart); dead links
    appear with ``dead: True`` and ``other`` the written target, in ``out``
    (or in ``in`` when written with an inverse key such as ``corrects:``).
    """
    out: list[dict] = []
    inc: list[dict] = []
    for e in EDGE_TYPES:
        t = e.table
        for r in store.rows(
            f"MATCH (a:Page {{id: $id}})-[r:{t}]->(b:Page) RETURN b.id AS other, b.title AS title, b.type AS type, "
            "r.file AS file, r.line AS line, r.place AS place, r.target AS target, r.heading AS heading, "
            "r.label AS label, r.embed AS embed ORDER BY r.file, r.line",
            {"id": page_id},
        ):
            out.append({"edge": e.name, "dead": False, **r})
        for r in store.rows(
            f"MATCH (a:Page {{id: $id}})-[r:{t}]->(b:Missing) RETURN b.id AS other, r.file AS file, r.line AS line, "
            "r.place AS place, r.target AS target, r.heading AS heading, r.label AS label, r.embed AS embed, "
            "r.reverse AS reverse ORDER BY r.file, r.line",
            {"id": page_id},
        ):
            # A dead link written with an inverse key (corrects: "[[gone]]")
            # would run from the missing page to this one: list it as incoming.
            side = inc if r.pop("reverse") else out
            side.append({"edge": e.name, "dead": True, "title": r["target"], "type": None, **r})
        for r in store.rows(
            f"MATCH (a:Page {{id: $id}})<-[r:{t}]-(b:Page) RETURN b.id AS other, b.title AS title, b.type AS type, "
            "r.file AS file, r.line AS line, r.place AS place, r.target AS target, r.heading AS heading, "
            "r.label AS label, r.embed AS embed ORDER BY r.file, r.line",
            {"id": page_id},
        ):
            inc.append({"edge": e.name, "dead": False, **r})
    return {"out": out, "in": inc}


def neighbourhood(store: Store, page_id: str, hops: int = 1) -> list[dict]:
    """The typed neighbourhood of a page, 1 or 2 hops.

    Returns one dict per (edge, direction, neighbour):
    ``{"edge", "direction" ("out"|"in"), "id", "title", "type", "dead",
    "hop" (1|2), "via" (the hop-1 page for hop 2, else None), "count"}``;
    ``count`` is how many link occurrences join the pair. Hop-2 rows leave
    out pages already at hop 1 and the page itself.
    """
    first = _one_hop(store, [page_id])
    rows = [dict(r, hop=1, via=None) for r in first]
    if hops >= 2:
        seen = {page_id} | {r["id"] for r in first}
        frontier = sorted({r["id"] for r in first if not r["dead"]})
        if frontier:
            for r in _one_hop(store, frontier):
                if r["id"] in seen:
                    continue
                rows.append(dict(r, hop=2))
    return rows


_EDGE_BY_TABLE = {e.table: e.name for e in EDGE_TYPES}


def _one_hop(store: Store, ids: list[str]) -> list[dict]:
    """Edges of ``ids`` both ways in two queries (every REL table at once:
    ``label(r)`` names the edge table, ``label(b)`` tells a page from a
    ``Missing`` dead-link target)."""
    # Kùzu plans these three ways very differently (CPU at 10,000 pages):
    # one page by key ``{id: $id}`` ~4 ms a query; ``UNWIND $ids`` ~15 ms
    # for one page but the cheapest for a 500-page frontier (~20 ms, where
    # ``WHERE a.id IN $ids`` tests every page against the list, ~26 ms).
    if len(ids) == 1:
        params: dict[str, Any] = {"id": ids[0]}
        start = "MATCH (a:Page {id: $id})"
    else:
        params = {"ids": ids}
        start = "UNWIND $ids AS i MATCH (a:Page {id: i})"
    out_q = (
        f"{start}-[r]->(b) "
        "RETURN a.id AS via, label(r) AS edge, label(b) AS kind, b.id AS id, b.title AS title, b.type AS type, count(r) AS count"
    )
    in_q = (
        f"{start}<-[r]-(b:Page) "
        "RETURN a.id AS via, label(r) AS edge, 'Page' AS kind, b.id AS id, b.title AS title, b.type AS type, count(r) AS count"
    )
    rows: list[dict] = []
    for direction, q in (("out", out_q), ("in", in_q)):
        for r in store.rows(q, params):
            dead = r["kind"] == "Missing"
            rows.append(
                {
                    "edge": _EDGE_BY_TABLE[r["edge"]],
                    "direction": direction,
                    "id": r["id"],
                    "title": r["id"] if dead else r["title"],
                    "type": None if dead else r["type"],
                    "dead": dead,
                    "via": r["via"],
                    "count": r["count"],
                }
            )
    order = {name: i for i, name in enumerate(EDGE_NAMES)}
    rows.sort(key=lambda r: (r["via"], order[r["edge"]], r["direction"] != "out", r["dead"], r["id"]))
    return rows


def edge_names() -> tuple[str, ...]:
    return EDGE_NAMES


def find_page(store: Store, name: str, include_attachments: bool = False) -> str:
    """The id of the page ``name`` designates: an id, a path (``.md``
    optional), a file name, an alias or a title, resolved like a wikilink.
    With ``include_attachments``, non-Markdown files (``Attachments/x.png``)
    count too (``brainwork show`` lists them as link targets).

    Raises:
        PageNotFound: nothing fits; the message suggests the closest titles.
    """
    from rapidfuzz import process

    from brainwork.errors import PageNotFound
    from brainwork.vault.resolve import Resolver

    rows = list_pages(store, include_attachments=include_attachments)
    if any(r["id"] == name for r in rows):
        return name
    resolver = Resolver([r["id"] for r in rows], (), {r["id"]: [r["title"], *(r["aliases"] or [])] for r in rows})
    hit = resolver.resolve(name)
    if hit.page is not None:
        return hit.page
    choices = {r["id"]: f"{r['title']} {r['id']}" for r in rows}
    close = process.extract(name, choices, limit=3)
    hint = f"; did you mean {', '.join(repr(c[2]) for c in close)}?" if close else ""
    raise PageNotFound(f"no page named {name!r}{hint}")
