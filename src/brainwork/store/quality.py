"""Bulk reads for the quality bar (:mod:`brainwork.analysis.findings`).

The analyses look at every page at once, so these queries return whole
columns as Arrow tables converted to plain Python lists (one query per table,
not one per page): at 10,000 pages all of this takes well under a second.
"""

from __future__ import annotations

from typing import Any

from brainwork.store.db import Store
from brainwork.store.schema import EDGE_TABLES


def _columns(table) -> dict[str, list]:
    return {name: table.column(name).to_pylist() for name in table.column_names}


def page_columns(store: Store) -> dict[str, list[Any]]:
    """Every Markdown page as columns (lists of equal length, sorted by id).

    Keys: ``id``, ``path``, ``title``, ``type``, ``aliases`` (list of text),
    ``body`` (Markdown after the frontmatter), ``body_line`` (1-based file
    line the body starts on), ``size`` (bytes of the file).
    """
    table = store.arrow(
        "MATCH (p:Page) WHERE p.kind = 'page' RETURN p.id AS id, p.path AS path, p.title AS title, "
        "p.type AS type, p.aliases AS aliases, p.body AS body, p.body_line AS body_line, p.size AS size "
        "ORDER BY p.id"
    )
    cols = _columns(table)
    for key in ("id", "path", "title", "type", "aliases", "body", "body_line", "size"):
        cols.setdefault(key, [])
    cols["aliases"] = [a or [] for a in cols["aliases"]]
    cols["body"] = [b or "" for b in cols["body"]]
    cols["type"] = [t or None for t in cols["type"]]  # absent type is stored as '' (schema.ABSENT_TEXT_COLUMNS)
    return cols


def attachment_ids(store: Store) -> list[str]:
    """Ids (vault-relative paths) of the non-Markdown files, sorted."""
    table = store.arrow("MATCH (p:Page) WHERE p.kind <> 'page' RETURN p.id AS id ORDER BY p.id")
    return table.column("id").to_pylist() if table.num_rows else []


def link_rows(store: Store) -> list[dict[str, Any]]:
    """Every link occurrence stored as an edge, live and dead.

    Each row: ``table`` (edge table, e.g. ``RELATED``), ``src``/``dst`` (the
    edge's endpoints: page ids, or for a dead link ``dst`` is the normalised
    missing target), ``dead`` (bool), ``file`` (page id the link is written
    in), ``line``, ``place`` (``body``/``frontmatter``), ``target`` (as
    written), ``ambiguous`` (bool: the target fitted several files).
    A link written with an inverse key (``corrects:``) runs from its target
    to ``file``, so ``src`` is not always ``file``.
    """
    out: list[dict[str, Any]] = []
    for table in EDGE_TABLES:
        for node, dead in (("Page", False), ("Missing", True)):
            arrow = store.arrow(
                f"MATCH (a:Page)-[r:{table}]->(b:{node}) RETURN a.id AS src, b.id AS dst, r.file AS file, "
                "r.line AS line, r.place AS place, r.target AS target, r.ambiguous AS ambiguous"
            )
            if not arrow.num_rows:
                continue
            cols = _columns(arrow)
            for i in range(arrow.num_rows):
                out.append(
                    {
                        "table": table, "src": cols["src"][i], "dst": cols["dst"][i], "dead": dead,
                        "file": cols["file"][i], "line": cols["line"][i], "place": cols["place"][i],
                        "target": cols["target"][i], "ambiguous": bool(cols["ambiguous"][i]),
                    }
                )
    return out
