"""Queries over the page graph: what the indexer writes and what the command
line, the analyses and the workbench read.

What the indexer writes (rows for :func:`apply_sync`) are plain dicts or
Arrow tables; what readers get back are the frozen records below
(:class:`PageRow`, :class:`StoredPage`, :class:`PageEdge`, :class:`Neighbour`,
:class:`GraphCounts`, :class:`EdgeCounts`, :class:`brainwork.model.ParseError`),
whose field names are the column names, and whose ``to_json()`` is what the
command line prints. Nothing here knows about Textual or files.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from brainwork.model import ParseError
from brainwork.store.db import Store
from brainwork.store.schema import (
    BODY, BODY_MATCH, BODY_MATCH_ID, EDGE_COLUMNS, EDGE_TABLES, PAGE_BODY_COLUMNS, PAGE_COLUMNS, PAGE_NODE_COLUMNS,
)
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


# -- records ----------------------------------------------------------------
# Slotted: the workbench holds one PageRow per page for its whole life (10,000+),
# and slots make each about a third of a dict's size and quicker to build.
@dataclass(frozen=True, slots=True)
class PageRow:
    """One page as the page list, the palette and the pickers show it
    (:func:`list_pages`).

    ``id``: vault-relative path without ``.md`` (an attachment's id keeps
    its extension); ``kind``: ``'page'`` or ``'attachment'``; ``type``,
    ``status``, ``created`` (ISO date as written): None when the page has
    none; ``aliases``, ``tags``: lists of text as stored.
    """

    id: str
    path: str
    kind: str
    title: str
    type: str | None
    status: str | None
    aliases: list[str]
    tags: list[str]
    created: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "path": self.path, "kind": self.kind, "title": self.title, "type": self.type,
            "status": self.status, "aliases": self.aliases, "tags": self.tags, "created": self.created,
        }


@dataclass(frozen=True, slots=True)
class StoredPage(PageRow):
    """One page with every stored column (:func:`get_page`) but its raw
    links: the :class:`PageRow` columns, then ``updated`` (ISO date as
    written, or None), ``fields`` the frontmatter mapping (decoded from the
    stored JSON, scalars as text), ``body`` the Markdown after the
    frontmatter starting at 1-based file line ``body_line``, ``hash`` the
    SHA-256 hex of the file's bytes, ``size`` bytes, ``mtime_ns`` the
    file's mtime; ``parse_errors`` the errors recorded for its file (a
    page whose frontmatter failed is stored with what could be read: they
    say why fields or links may be missing). Built by keyword only
    (:func:`get_page`)."""

    updated: str | None
    fields: dict[str, Any]
    body: str | None
    body_line: int | None
    hash: str | None
    size: int | None
    mtime_ns: int | None
    parse_errors: tuple[ParseError, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The columns in schema order (``brainwork show --json``)."""
        return {
            "id": self.id, "path": self.path, "kind": self.kind, "title": self.title, "type": self.type,
            "status": self.status, "created": self.created, "updated": self.updated, "aliases": self.aliases,
            "tags": self.tags, "fields": self.fields, "body": self.body, "body_line": self.body_line,
            "hash": self.hash, "size": self.size, "mtime_ns": self.mtime_ns,
            "parse_errors": [{"line": e.line, "message": e.message} for e in self.parse_errors],
        }


@dataclass(frozen=True, slots=True)
class PageEdge:
    """One link occurrence at a page (:func:`page_edges`).

    ``edge``: edge name (:data:`~brainwork.vocabulary.EDGE_NAMES`);
    ``other``: the page at the other end, or for a dead link (``dead``) the
    normalised missing target; ``title``/``type``: the other page's (for a
    dead link the target as written, and None); ``file``/``line``/``place``:
    where the link is written (page id, 1-based line, ``'body'`` or
    ``'frontmatter'``); ``target`` as written; ``heading``/``label``: None
    when the link has none; ``embed``: written as ``![[...]]``.
    """

    edge: str
    other: str
    title: str | None
    type: str | None
    dead: bool
    file: str
    line: int
    place: str
    target: str
    heading: str | None
    label: str | None
    embed: bool

    def to_json(self) -> dict[str, Any]:
        # Key order as ``show --json`` has always printed it (a dead link's
        # title and type came before ``other``): scripts may diff it.
        if self.dead:
            head = {"edge": self.edge, "dead": True, "title": self.title, "type": self.type, "other": self.other}
        else:
            head = {"edge": self.edge, "dead": False, "other": self.other, "title": self.title, "type": self.type}
        return {
            **head, "file": self.file, "line": self.line, "place": self.place, "target": self.target,
            "heading": self.heading, "label": self.label, "embed": self.embed,
        }


@dataclass(frozen=True, slots=True)
class PageEdges:
    """A page's edges both ways: ``out`` (links it makes, and dead links it
    writes) and ``in_`` (links to it, and dead links written with an inverse
    key such as ``corrects:``), each by edge type, then file and line."""

    out: list[PageEdge]
    in_: list[PageEdge]

    def to_json(self) -> dict[str, list[dict[str, Any]]]:
        return {"out": [e.to_json() for e in self.out], "in": [e.to_json() for e in self.in_]}


@dataclass(frozen=True, slots=True)
class Neighbour:
    """One (edge, direction, neighbour) of a page's neighbourhood
    (:func:`neighbourhood`).

    ``direction``: ``'out'`` or ``'in'``; ``id``: the neighbour (for a dead
    link the missing target, then ``title`` is that target and ``type``
    None); ``hop``: 1 or 2; ``via``: the hop-1 page a hop-2 row is reached
    through (None at hop 1); ``count``: link occurrences joining the pair.
    """

    edge: str
    direction: str
    id: str
    title: str | None
    type: str | None
    dead: bool
    hop: int
    via: str | None
    count: int


@dataclass(frozen=True, slots=True)
class EdgeCounts:
    """Link occurrences as stored (:func:`edge_counts`): ``edges`` live
    edges per edge name (in :data:`~brainwork.vocabulary.EDGE_NAMES`
    order), ``dead_links``, ``ambiguous_links`` (live edges whose target
    fitted several files)."""

    edges: dict[str, int]
    dead_links: int
    ambiguous_links: int


@dataclass(frozen=True, slots=True)
class GraphCounts:
    """What ``brainwork stats`` and the status bar show (:func:`counts`).

    ``pages``: Markdown pages; ``attachments``: other files; ``edges``: live
    link occurrences per edge name; ``dead_links``: occurrences whose target
    is missing; ``parse_errors``: recorded problems; ``types``: pages per
    page type (``''`` for untyped pages); ``ambiguous_links``: live
    occurrences whose target fitted several files (counted as ``index``
    counts them).
    """

    pages: int
    attachments: int
    edges: dict[str, int]
    dead_links: int
    parse_errors: int
    types: dict[str, int]
    ambiguous_links: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "pages": self.pages, "attachments": self.attachments, "edges": self.edges,
            "dead_links": self.dead_links, "ambiguous_links": self.ambiguous_links,
            "parse_errors": self.parse_errors, "types": self.types,
        }


def _table(rows: list[dict], schema: "pa.Schema") -> "pa.Table":
    """``rows`` as a table of ``schema``'s columns (a key missing from a row
    is null; keys outside the schema are ignored). ``Table.from_pylist``
    gathers the columns in C: 12 against 30 ms CPU for 25,000 rows of 9
    columns built as one Python list per column."""
    import pyarrow as pa

    return pa.Table.from_pylist(rows, schema=schema)


def page_table(rows: "list[dict] | list[pa.Table]") -> "pa.Table":
    """Page rows (dicts keyed by the names in :data:`PAGE_COLUMNS`), or
    tables this function made, as one Arrow table for :func:`apply_sync`.

    Converting in slices as pages are parsed keeps one compact copy of each
    body instead of a Python dict per page (peak memory of a full index)."""
    import pyarrow as pa

    if rows and isinstance(rows[0], pa.Table):
        return pa.concat_tables(rows)
    return _table(rows, _schemas()[0])


def copy_pages(store: Store, table: "pa.Table") -> None:
    """COPY full page rows (:func:`page_table`) into ``Page``
    (schema.PAGE_NODE_COLUMNS) and ``PageBody`` (id, body, links; see
    schema.TEXT_COLUMNS)."""
    store.copy("Page", table.select([n for n, _ in PAGE_NODE_COLUMNS]))
    store.copy("PageBody", table.select([n for n, _ in PAGE_BODY_COLUMNS]))


#: The head of a write that looks each row of ``$rows`` up by primary key:
#: ``UNWIND $rows AS r WITH r, r.id AS i MATCH (p:Page {id: i})``. Matching
#: ``{id: r.id}`` on the struct's field directly is not a key lookup in Kùzu
#: 0.11.3 (it joins against a scan of the table): 1,000 rows at 50,000 pages
#: cost 0.5 s CPU that way, 0.02-0.05 s through the WITH.
BY_ROW_ID = "UNWIND $rows AS r WITH r, r.id AS i MATCH (p:Page {id: i}) "


def set_mtimes(store: Store, touched: list[tuple[str, int]]) -> None:
    """SET ``mtime_ns`` of pages whose bytes did not change (``(id,
    mtime_ns)`` pairs; inside the caller's write transaction)."""
    if touched:
        store.execute(f"{BY_ROW_ID}SET p.mtime_ns = r.m", {"rows": [{"id": i, "m": m} for i, m in touched]})


def delete_bodies(store: Store, ids: list[str]) -> None:
    """Delete the ``PageBody`` rows of pages ``ids`` (inside the caller's
    write transaction)."""
    if ids:
        store.execute("UNWIND $ids AS i MATCH (b:PageBody {id: i}) DELETE b", {"ids": ids})


# -- index state ------------------------------------------------------------
def index_state(store: Store) -> dict[str, dict[str, Any]]:
    """Per page id: path, kind, hash, size, mtime_ns, title, aliases, links
    (raw links as JSON text, from ``PageBody``). Used by the indexer to
    detect changes."""
    rows = store.rows(
        f"MATCH (p:Page) {BODY_MATCH}RETURN p.id AS id, p.path AS path, p.kind AS kind, p.hash AS hash, "
        "p.size AS size, p.mtime_ns AS mtime_ns, p.title AS title, p.aliases AS aliases, b.links AS links"
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
            # Labelled endpoints, one statement per pair: unlabelled
            # patterns over a multi-pair REL table can miss rows (kuzu 0.11.3).
            for table in EDGE_TABLES:
                store.execute(f"MATCH (:Page)-[r:{table}]->(:Page) DELETE r")
                store.execute(f"MATCH (:Page)-[r:{table}]->(:Missing) DELETE r")
            store.execute("MATCH (m:Missing) DELETE m")
        if delete_ids:
            store.execute("UNWIND $ids AS i MATCH (p:Page {id: i}) DETACH DELETE p", {"ids": delete_ids})
            delete_bodies(store, delete_ids)
        if clear_error_paths:
            store.execute("MATCH (e:ParseError) WHERE e.path IN $paths DELETE e", {"paths": clear_error_paths})
        copy_pages(store, pages if isinstance(pages, pa.Table) else _table(pages, page_schema))
        if touched:
            set_mtimes(store, touched)
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
def edge_counts(store: Store) -> EdgeCounts:
    """Link occurrences as stored, in one query over every edge table
    (ambiguous counts live edges only, as
    :class:`brainwork.index.sync.SyncReport` does)."""
    by_table = {e.table: e.name for e in EDGE_TYPES}
    edges = {name: 0 for name in EDGE_NAMES}
    dead = ambiguous = 0
    for r in store.rows("MATCH (:Page)-[r]->(b) RETURN label(r) AS t, label(b) AS k, count(*) AS n"):
        name = by_table.get(r["t"])
        if name is None:  # a table some other feature added
            continue
        if r["k"] == "Missing":
            dead += r["n"]
        elif r["k"] == "Page":
            edges[name] += r["n"]
    # A filter, not ``count(CASE WHEN r.ambiguous ...)`` in the query above:
    # Kùzu 0.11.3 miscounts that CASE inside a grouped aggregate (3 where
    # the filter finds 44, measured on obsidian-hub).
    for r in store.rows("MATCH (:Page)-[r]->(:Page) WHERE r.ambiguous RETURN label(r) AS t, count(*) AS n"):
        if r["t"] in by_table:
            ambiguous += r["n"]
    return EdgeCounts(edges, dead, ambiguous)


def counts(store: Store) -> GraphCounts:
    """Pages, attachments, edges by name, dead links, parse errors and pages
    by type (see :class:`GraphCounts`)."""
    kinds = dict(store.execute("MATCH (p:Page) RETURN p.kind, count(*)"))
    # The same counting as a sync's report, so index, stats and check agree.
    stored = edge_counts(store)
    types = dict(store.execute("MATCH (p:Page) WHERE p.kind = 'page' RETURN coalesce(p.type, ''), count(*)"))
    return GraphCounts(
        pages=kinds.get("page", 0),
        attachments=kinds.get("attachment", 0),
        edges=stored.edges,
        dead_links=stored.dead_links,
        parse_errors=store.scalar("MATCH (e:ParseError) RETURN count(e)") or 0,
        types=types,
        ambiguous_links=stored.ambiguous_links,
    )


def parse_errors(store: Store) -> list[ParseError]:
    """Every recorded parse error, by path and line."""
    return [
        ParseError(*r)
        for r in store.execute(
            "MATCH (e:ParseError) RETURN e.path AS path, e.line AS line, e.message AS message ORDER BY e.path, e.line"
        )
    ]


def parse_errors_of(store: Store, path: str) -> list[ParseError]:
    """The parse errors recorded for the file at vault-relative ``path``, by
    line: a page whose file could not be parsed (broken YAML, not UTF-8,
    over the size limit) is stored with what could be read, so a view of it
    says why its fields or links may be missing."""
    return [
        ParseError(*r)
        for r in store.execute(
            "MATCH (e:ParseError) WHERE e.path = $path RETURN e.path, e.line, e.message ORDER BY e.line",
            {"path": path},
        )
    ]


def list_pages(store: Store, type_: str | None = None, include_attachments: bool = False) -> list[PageRow]:
    """Pages (attachments too if asked), by id."""
    where = [] if include_attachments else ["p.kind = 'page'"]
    params: dict[str, Any] = {}
    if type_ is not None:
        where.append("p.type = $t")
        params["t"] = type_
    clause = f"WHERE {' AND '.join(where)} " if where else ""
    # Positional rows straight into the record: no dict per page on the
    # workbench's first-paint path.
    return [PageRow(*r) for r in store.execute(f"MATCH (p:Page) {clause}RETURN {PAGE_FIELDS} ORDER BY p.id", params)]


def get_page(store: Store, page_id: str, *, errors: bool = True) -> StoredPage | None:
    """One page with all its columns but the raw links, or None.

    ``errors=False`` leaves ``parse_errors`` empty and skips the second
    query that reads them: for callers that only need a title, path or
    type, often once per page in a loop, and never show the errors.
    """
    rows = store.rows(f"MATCH (p:Page {{id: $id}}) {BODY_MATCH_ID}RETURN p.*, {BODY}", {"id": page_id})
    if not rows:
        return None
    row = {k.rsplit(".", 1)[-1]: v for k, v in rows[0].items()}  # "p.title" -> "title"; "body"
    row["fields"] = json.loads(row["fields"] or "{}")
    row.pop("links", None)
    return StoredPage(**row, parse_errors=tuple(parse_errors_of(store, row["path"])) if errors else ())


_EDGE_RETURN = (
    "r.file AS file, r.line AS line, r.place AS place, r.target AS target, r.heading AS heading, "
    "r.label AS label, r.embed AS embed"
)


def page_edges(store: Store, page_id: str) -> PageEdges:
    """A page's edges both ways (``brainwork show``).

    Two links on one line to one page differ by ``heading``/``label``; dead
    links appear with ``dead`` True and ``other`` the written target, in
    ``out`` (or in ``in_`` when written with an inverse key such as
    ``corrects:``).
    """
    out: list[PageEdge] = []
    inc: list[PageEdge] = []
    for e in EDGE_TYPES:
        t = e.table
        for other, title, type_, *where in store.execute(
            f"MATCH (a:Page {{id: $id}})-[r:{t}]->(b:Page) RETURN b.id AS other, b.title AS title, b.type AS type, "
            f"{_EDGE_RETURN} ORDER BY r.file, r.line",
            {"id": page_id},
        ):
            out.append(PageEdge(e.name, other, title, type_, False, *where))
        for other, *where, reverse in store.execute(
            f"MATCH (a:Page {{id: $id}})-[r:{t}]->(b:Missing) RETURN b.id AS other, {_EDGE_RETURN}, "
            "r.reverse AS reverse ORDER BY r.file, r.line",
            {"id": page_id},
        ):
            # A dead link written with an inverse key (corrects: "[[gone]]")
            # would run from the missing page to this one: list it as incoming.
            side = inc if reverse else out
            side.append(PageEdge(e.name, other, where[3], None, True, *where))  # where[3]: the target as written
        for other, title, type_, *where in store.execute(
            f"MATCH (a:Page {{id: $id}})<-[r:{t}]-(b:Page) RETURN b.id AS other, b.title AS title, b.type AS type, "
            f"{_EDGE_RETURN} ORDER BY r.file, r.line",
            {"id": page_id},
        ):
            inc.append(PageEdge(e.name, other, title, type_, False, *where))
    return PageEdges(out, inc)


def neighbourhood(store: Store, page_id: str, hops: int = 1) -> list[Neighbour]:
    """The typed neighbourhood of a page, 1 or 2 hops: one
    :class:`Neighbour` per (edge, direction, neighbour). Hop-2 rows leave
    out pages already at hop 1 and the page itself.
    """
    first = _one_hop(store, [page_id])
    rows = [Neighbour(*r[:6], 1, None, r[7]) for r in first]
    if hops >= 2:
        seen = {page_id} | {r[2] for r in first}
        frontier = sorted({r[2] for r in first if not r[5]})
        if frontier:
            for r in _one_hop(store, frontier):
                if r[2] in seen:
                    continue
                rows.append(Neighbour(*r[:6], 2, r[6], r[7]))
    return rows


_EDGE_BY_TABLE = {e.table: e.name for e in EDGE_TYPES}


def _one_hop(store: Store, ids: list[str]) -> list[tuple]:
    """Edges of ``ids`` both ways in two queries (every REL table at once:
    ``label(r)`` names the edge table, ``label(b)`` tells a page from a
    ``Missing`` dead-link target).

    Tuples ``(edge, direction, id, title, type, dead, via, count)``, by via,
    edge order, out before in, live before dead, id."""
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
        "RETURN a.id AS via, label(r) AS edge, label(b) AS kind, b.id AS id, b.title AS title, b.type AS type, "
        # a dead link's title: its target as the page writes it (``CON``;
        # the Missing id is the normalised key, ``con``)
        "count(r) AS count, min(r.target) AS written"
    )
    in_q = (
        f"{start}<-[r]-(b:Page) "
        "RETURN a.id AS via, label(r) AS edge, 'Page' AS kind, b.id AS id, b.title AS title, b.type AS type, "
        "count(r) AS count, '' AS written"
    )
    rows: list[tuple] = []
    for direction, q in (("out", out_q), ("in", in_q)):
        for via, table, kind, id_, title, type_, n, written in store.execute(q, params):
            dead = kind == "Missing"
            rows.append(
                (_EDGE_BY_TABLE[table], direction, id_, (written or id_) if dead else title, None if dead else type_, dead,
                 via, n)
            )
    order = {name: i for i, name in enumerate(EDGE_NAMES)}
    rows.sort(key=lambda r: (r[6], order[r[0]], r[1] != "out", r[5], r[2]))
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
    from brainwork.errors import PageNotFound
    from brainwork.vault.resolve import Resolver

    where = "" if include_attachments else "WHERE p.kind = 'page' "
    if store.execute(f"MATCH (p:Page {{id: $id}}) {where}RETURN p.id", {"id": name}):
        return name  # an id: one primary-key lookup
    # Only the columns a name lookup needs (at 50,000 pages reading every
    # list column of every page cost ~0.3 s CPU); by id, as the resolver's
    # choice between equal candidates follows the order it is given.
    rows = store.execute(f"MATCH (p:Page) {where}RETURN p.id, p.title, p.aliases ORDER BY p.id")
    names = {i: [t, *(a or [])] for i, t, a in rows}
    hit = Resolver(list(names), (), names).resolve(name)
    if hit.page is not None:
        return hit.page
    from brainwork.vault.resolve import similar_names

    close = similar_names(name, {i: [t, i.rsplit("/", 1)[-1], *(a or [])] for i, t, a in rows})
    hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
    raise PageNotFound(f"no page named {name!r}{hint}")
