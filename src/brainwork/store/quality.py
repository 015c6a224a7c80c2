"""Bulk reads for the quality bar (:mod:`brainwork.analysis.findings`).

The analyses look at every page at once, so these queries return whole
columns as Arrow tables converted to plain Python lists (one query per table,
not one per page): at 10,000 pages all of this takes well under a second.
Pages come as one :class:`PageColumns` (columns, not a record per page);
links as one slotted :class:`LinkRow` per occurrence.
"""

from __future__ import annotations

from dataclasses import dataclass

from brainwork.store.db import Store
from brainwork.store.schema import BODY, BODY_MATCH, EDGE_TABLES


@dataclass(frozen=True, slots=True)
class PageColumns:
    """Every Markdown page as columns: lists of equal length, row ``i`` of
    each is the ``i``-th page by id.

    ``aliases``: a list of text per page (``[]`` when none); ``type``: None
    when absent; ``body``: the Markdown after the frontmatter (``""`` when
    empty); ``body_line``: the 1-based file line the body starts on;
    ``size``: bytes of the file.
    """

    id: list[str]
    path: list[str]
    title: list[str]
    type: list[str | None]
    aliases: list[list[str]]
    body: list[str]
    body_line: list[int]
    size: list[int]


@dataclass(frozen=True, slots=True)
class LinkRow:
    """One link occurrence stored as an edge, live or dead.

    ``table``: the edge table (``RELATED``...); ``src``/``dst``: the edge's
    endpoints (page ids; for a dead link ``dst`` is the normalised missing
    target); ``file``: the page id the link is written in (a link written
    with an inverse key such as ``corrects:`` runs from its target to
    ``file``, so ``src`` is not always ``file``); ``line``: 1-based;
    ``place``: ``'body'`` or ``'frontmatter'``; ``target``: as written;
    ``ambiguous``: the target fitted several files.
    """

    table: str
    src: str
    dst: str
    dead: bool
    file: str
    line: int
    place: str
    target: str
    ambiguous: bool


def _columns(table) -> dict[str, list]:
    return {name: table.column(name).to_pylist() for name in table.column_names}


def page_columns(store: Store) -> PageColumns:
    """Every Markdown page as columns, sorted by id."""
    table = store.arrow(
        f"MATCH (p:Page) WHERE p.kind = 'page' {BODY_MATCH}RETURN p.id AS id, p.path AS path, p.title AS title, "
        f"p.type AS type, p.aliases AS aliases, {BODY}, p.body_line AS body_line, p.size AS size "
        "ORDER BY p.id"
    )
    cols = _columns(table)
    for key in ("id", "path", "title", "type", "aliases", "body", "body_line", "size"):
        cols.setdefault(key, [])
    cols["aliases"] = [a or [] for a in cols["aliases"]]
    cols["body"] = [b or "" for b in cols["body"]]
    cols["type"] = [t or None for t in cols["type"]]  # absent type is stored as '' (schema.ABSENT_TEXT_COLUMNS)
    return PageColumns(**cols)


def attachment_ids(store: Store) -> list[str]:
    """Ids (vault-relative paths) of the non-Markdown files, sorted."""
    table = store.arrow("MATCH (p:Page) WHERE p.kind <> 'page' RETURN p.id AS id ORDER BY p.id")
    return table.column("id").to_pylist() if table.num_rows else []


def link_rows(store: Store) -> list[LinkRow]:
    """Every link occurrence stored as an edge, live and dead, table by table."""
    out: list[LinkRow] = []
    for table in EDGE_TABLES:
        for node, dead in (("Page", False), ("Missing", True)):
            arrow = store.arrow(
                f"MATCH (a:Page)-[r:{table}]->(b:{node}) RETURN a.id AS src, b.id AS dst, r.file AS file, "
                "r.line AS line, r.place AS place, r.target AS target, r.ambiguous AS ambiguous"
            )
            if not arrow.num_rows:
                continue
            cols = _columns(arrow)
            for src, dst, file, line, place, target, ambiguous in zip(
                cols["src"], cols["dst"], cols["file"], cols["line"], cols["place"], cols["target"], cols["ambiguous"]
            ):
                out.append(LinkRow(table, src, dst, dead, file, line, place, target, bool(ambiguous)))
    return out
