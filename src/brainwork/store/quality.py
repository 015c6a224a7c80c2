"""Reads for the quality bar (:mod:`brainwork.analysis.checks`), in bounded memory.

The analyses look at every page at once, so these queries return whole
columns (one query per table, not one per page). Bodies are not among them:
one read of every page with its body held ~330 MB at 50,000 pages (the
Python strings and, above all, Kùzu's working memory for the join of
``Page`` with ``PageBody``, which its buffer pool keeps once grown). The
checks read the bodies once, in order, so the page columns come without
bodies (:func:`page_heads`) and the bodies in chunks of consecutive ids
(:func:`body_chunks`, ~66 MB high-water at 50,000 pages), plus the two small
reads the checks need for a few pages (:func:`bodies_of`,
:func:`page_fields`); links come as one slotted :class:`LinkRow` per
occurrence with their repeated texts shared (:func:`link_rows`). Everything
goes through the public :class:`~brainwork.store.db.Store` API.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import repeat
from typing import Iterator, Sequence

import numpy as np
import pyarrow.compute as pc

from brainwork.store.db import Store
from brainwork.store.schema import EDGE_TABLES

#: Pages per body read: the buffer pool's high-water grows with it (2,000:
#: +58 MB, 5,000: +66 MB, 10,000: +82 MB at 50,000 pages, ~1 kB bodies) and
#: the per-query cost shrinks (0.34, 0.20, 0.16 s for all bodies).
BODY_CHUNK = 5_000


@dataclass(frozen=True, slots=True)
class PageHeads:
    """Every Markdown page as columns, without bodies: lists of equal length,
    row ``i`` of each is the ``i``-th page by id (Kùzu's ``ORDER BY p.id``).

    ``aliases``: a list of text per page (``[]`` when none); ``type``: None
    when absent; ``body_line``: the 1-based file line the body starts on;
    ``size``: bytes of the file.
    """

    id: list[str]
    path: list[str]
    title: list[str]
    type: list[str | None]
    aliases: list[list[str]]
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


def page_heads(store: Store) -> PageHeads:
    """Every Markdown page's columns but its body, sorted by id."""
    table = store.arrow(
        "MATCH (p:Page) WHERE p.kind = 'page' RETURN p.id AS id, p.path AS path, p.title AS title, "
        "p.type AS type, p.aliases AS aliases, p.body_line AS body_line, p.size AS size ORDER BY p.id"
    )
    names = ("id", "path", "title", "type", "aliases", "body_line", "size")
    cols = {n: (table.column(n).to_pylist() if table.num_rows else []) for n in names}
    del table
    cols["aliases"] = [a or [] for a in cols["aliases"]]
    cols["type"] = [t or None for t in cols["type"]]  # absent type is stored as '' (schema.ABSENT_TEXT_COLUMNS)
    return PageHeads(**cols)


def _chunk_bodies(store: Store, part: Sequence[str]) -> list[str]:
    """Bodies of the ids ``part`` (ascending), ``''`` for a page without a
    ``PageBody`` row, read as one id range. An id outside the range as Kùzu
    orders strings is read again by its key, so a collation that differs
    from Python's loses nothing."""
    table = store.arrow(
        "MATCH (b:PageBody) WHERE b.id >= $lo AND b.id <= $hi RETURN b.id AS id, b.body AS body",
        {"lo": part[0], "hi": part[-1]},
    )
    found = dict(zip(table.column("id").to_pylist(), table.column("body").to_pylist())) if table.num_rows else {}
    del table
    out = []
    for pid in part:
        body = found.get(pid)
        if body is None and pid not in found:
            rows = store.execute("MATCH (b:PageBody {id: $id}) RETURN b.body", {"id": pid})
            body = rows[0][0] if rows else None
        out.append(body or "")
    return out


def body_chunks(store: Store, ids: Sequence[str], step: int = BODY_CHUNK) -> Iterator[list[str]]:
    """The bodies of ``ids`` (sorted ascending, as :attr:`PageHeads.id`), in
    order, as lists of at most ``step``: ``''`` for a page without one."""
    for start in range(0, len(ids), step):
        yield _chunk_bodies(store, ids[start : start + step])


def bodies_of(store: Store, ids: Sequence[str], wanted: set[int], step: int = BODY_CHUNK) -> dict[int, str]:
    """``{row: body}`` for the rows ``wanted`` of ``ids`` (sorted ascending):
    only the chunks holding a wanted row are read."""
    out: dict[int, str] = {}
    rows = sorted(wanted)
    k = 0
    for start in range(0, len(ids), step):
        end = min(start + step, len(ids))
        if k >= len(rows):
            break
        if rows[k] >= end:
            continue
        part = _chunk_bodies(store, ids[start:end])
        while k < len(rows) and rows[k] < end:
            out[rows[k]] = part[rows[k] - start]
            k += 1
    return out


@dataclass(frozen=True, slots=True)
class FieldRow:
    """A Markdown page's values that have a fixed form (:func:`field_rows`):
    ``created``/``updated``/``status`` as written ("" when absent or not
    text: the index stores only text there), ``fields`` its frontmatter
    when its type is one asked for, else None."""

    id: str
    type: str | None
    created: str
    updated: str
    status: str
    fields: dict | None


def field_rows(store: Store, field_types: Sequence[str]) -> list[FieldRow]:
    """Every Markdown page's :class:`FieldRow`, by id; the frontmatter JSON
    is read and decoded only for pages of ``field_types`` (the types with a
    fixed-value field that is no column of its own)."""
    table = store.arrow(
        "MATCH (p:Page) WHERE p.kind = 'page' RETURN p.id AS id, p.type AS type, p.created AS created, "
        "p.updated AS updated, p.status AS status, "
        "CASE WHEN p.type IN $types THEN p.fields ELSE NULL END AS fields ORDER BY p.id",
        {"types": list(field_types)},
    )
    if not table.num_rows:
        return []
    cols = [table.column(n).to_pylist() for n in ("id", "type", "created", "updated", "status", "fields")]
    return [FieldRow(i, t or None, c or "", u or "", st or "", json.loads(f) if f else None)
            for i, t, c, u, st, f in zip(*cols)]


def page_fields(store: Store, ids: Sequence[str]) -> dict[str, dict]:
    """``{page id: its frontmatter fields}`` for ``ids``, in one query
    (a missing page is left out): by primary key through ``UNWIND``, as
    :func:`brainwork.store.delta.stored_columns` reads (``p.id IN $ids``
    scans every page's columns)."""
    if not ids:
        return {}
    table = store.arrow(
        "UNWIND $ids AS i MATCH (p:Page {id: i}) RETURN p.id AS id, p.fields AS fields", {"ids": sorted(set(ids))}
    )
    if not table.num_rows:
        return {}
    return {pid: json.loads(f or "{}") for pid, f in zip(table.column("id").to_pylist(), table.column("fields").to_pylist())}


def _shared_texts(column, canon: dict[str, str]) -> list:
    """The texts of an Arrow string column as a list, each distinct text one
    Python object (``canon`` holds them across columns and tables): the
    column dictionary-encoded in Arrow, each code expanded in numpy."""
    encoded = pc.dictionary_encode(column.combine_chunks())
    if encoded.null_count:  # None stays None
        return column.to_pylist()
    one = canon.setdefault
    values = np.array([one(v, v) for v in encoded.dictionary.to_pylist()], dtype=object)
    return values[encoded.indices.to_numpy(zero_copy_only=False)].tolist()


def link_rows(store: Store) -> list[LinkRow]:
    """Every link occurrence stored as an edge, live and dead, table by
    table, with each distinct text of a column held once: the endpoints,
    files and places repeat across rows, and a new string per cell is
    ~45 MB at 50,000 pages (140,000 rows)."""
    out: list[LinkRow] = []
    canon: dict[str, str] = {}
    for table in EDGE_TABLES:
        for node, dead in (("Page", False), ("Missing", True)):
            arrow = store.arrow(
                f"MATCH (a:Page)-[r:{table}]->(b:{node}) RETURN a.id AS src, b.id AS dst, r.file AS file, "
                "r.line AS line, r.place AS place, r.target AS target, r.ambiguous AS ambiguous"
            )
            if not arrow.num_rows:
                continue
            src, dst, file, place, target = (_shared_texts(arrow.column(c), canon) for c in ("src", "dst", "file", "place", "target"))
            line, ambiguous = arrow.column("line").to_pylist(), arrow.column("ambiguous").to_pylist()
            del arrow
            out.extend(map(LinkRow, repeat(table), src, dst, repeat(dead), file, line, place, target,
                           map(bool, ambiguous)))
    return out


def attachment_ids(store: Store) -> list[str]:
    """Ids (vault-relative paths) of the non-Markdown files, sorted."""
    table = store.arrow("MATCH (p:Page) WHERE p.kind <> 'page' RETURN p.id AS id ORDER BY p.id")
    return table.column("id").to_pylist() if table.num_rows else []
