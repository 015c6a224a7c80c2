"""Queries recall needs (brainwork.learn.recall): active rules, task rows,
one hop out from tasks, and the recall-hit log (``RecallHit``, DDL in
:mod:`brainwork.store.schema`).

Rows are typed records (:class:`ActiveRule`, :class:`NeighbourOut`,
:class:`RecallHits`), except :func:`task_rows`, still dicts for the replay
(:mod:`brainwork.learn.replay`) that reads them; ``fields`` stays the stored
JSON text throughout.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from brainwork.store.db import Store


@dataclass(frozen=True, slots=True)
class ActiveRule:
    """A rule page with ``status: active``; ``fields``: its frontmatter as stored JSON text."""

    id: str
    title: str
    fields: str | None


@dataclass(frozen=True, slots=True)
class NeighbourOut:
    """A page one hop out from a task (:func:`neighbours_out`): ``edge`` is
    the REL table (``CITED``...), ``via`` the task it was reached from;
    ``type``/``status`` None when absent; ``fields`` stored JSON text."""

    edge: str
    via: str
    id: str
    type: str | None
    title: str
    status: str | None
    fields: str | None


@dataclass(frozen=True, slots=True)
class RecallHits:
    """How often recall served one page: ``count`` hits, the ``last`` one at
    (ISO 8601 UTC), the ``kinds`` it was served as (sorted)."""

    count: int
    last: str
    kinds: list[str]

_TASK_COLS = "p.id AS id, p.title AS title, p.tags AS tags, p.fields AS fields, p.created AS created"


def active_rule_rows(store: Store) -> list[ActiveRule]:
    """Rule pages with ``status: active``, by id."""
    return [
        ActiveRule(*r)
        for r in store.execute(
            "MATCH (p:Page) WHERE p.type = 'rule' AND p.status = 'active' AND p.kind = 'page' "
            "RETURN p.id AS id, p.title AS title, p.fields AS fields ORDER BY p.id"
        )
    ]


def task_rows(store: Store, ids: list[str] | None = None) -> list[dict]:
    """Task pages (those of ``ids`` if given, any type then): ``{"id",
    "title", "tags", "fields", "created"}``."""
    if ids is None:
        return store.rows(f"MATCH (p:Page) WHERE p.type = 'task' AND p.kind = 'page' RETURN {_TASK_COLS}")
    if not ids:
        return []
    # UNWIND + key match looks each id up by primary key; `WHERE p.id IN $ids` scans every page.
    return store.rows(f"UNWIND $ids AS i MATCH (p:Page {{id: i}}) RETURN {_TASK_COLS}", {"ids": list(ids)})


def neighbours_out(store: Store, ids: list[str], tables: dict[str, str]) -> list[NeighbourOut]:
    """One hop out from pages ``ids``: for each REL table in ``tables``
    (table -> the page type wanted at the other end, e.g. ``{"CITED":
    "source"}``), the pages reached, by edge, id, via; one query, ids looked
    up by key."""
    if not ids or not tables:
        return []
    rels = "|".join(tables)
    rows = [
        NeighbourOut(*r)
        for r in store.execute(
            f"UNWIND $ids AS i MATCH (a:Page {{id: i}})-[r:{rels}]->(b:Page) "
            "RETURN DISTINCT label(r) AS edge, a.id AS via, b.id AS id, b.type AS type, b.title AS title, "
            "b.status AS status, b.fields AS fields",
            {"ids": list(ids)},
        )
    ]
    rows = [r for r in rows if tables.get(r.edge) == r.type]
    rows.sort(key=lambda r: (r.edge, r.id, r.via))
    return rows


def record_hits(store: Store, hits: list[tuple[str, str]], query: str, at: str | None = None) -> None:
    """Log that recall served these ``(page id, kind)`` pairs for ``query``
    (``at``: ISO-8601 UTC, default now; ``query`` kept to 500 characters).
    Read back for pruning (:mod:`brainwork.learn.prune`: a rule recall
    never serves is a candidate to retire)."""
    if not hits:
        return
    at = at or datetime.now(timezone.utc).isoformat(timespec="seconds")
    with store.write():
        store.execute(
            "UNWIND $rows AS r CREATE (:RecallHit {page: r.page, kind: r.kind, at: $at, query: $q})",
            {"rows": [{"page": p, "kind": k} for p, k in hits], "at": at, "q": query[:500]},
        )


def recall_hits(store: Store, since: str | None = None) -> dict[str, RecallHits]:
    """Per page id, the recall hits at or after ``since`` (ISO-8601, if given)."""
    params: dict = {}
    where = ""
    if since is not None:
        where = "WHERE h.at >= $since "
        params["since"] = since
    rows = store.execute(
        f"MATCH (h:RecallHit) {where}RETURN h.page, count(h), max(h.at), collect(DISTINCT h.kind)", params
    )
    return {r[0]: RecallHits(r[1], r[2], sorted(r[3])) for r in rows}
