"""Queries recall needs (brainwork.learn.recall): active rules, task rows,
one hop out from tasks, and the recall-hit log (``RecallHit``, DDL in
:mod:`brainwork.store.schema`).

Rows are plain dicts; ``fields`` stays the stored JSON text.
"""

from __future__ import annotations

from datetime import datetime, timezone

from brainwork.store.db import Store

_TASK_COLS = "p.id AS id, p.title AS title, p.tags AS tags, p.fields AS fields, p.created AS created"


def active_rule_rows(store: Store) -> list[dict]:
    """Rule pages with ``status: active``: ``{"id", "title", "fields"}``, by id."""
    return store.rows(
        "MATCH (p:Page) WHERE p.type = 'rule' AND p.status = 'active' AND p.kind = 'page' "
        "RETURN p.id AS id, p.title AS title, p.fields AS fields ORDER BY p.id"
    )


def task_rows(store: Store, ids: list[str] | None = None) -> list[dict]:
    """Task pages (those of ``ids`` if given, any type then): ``{"id",
    "title", "tags", "fields", "created"}``."""
    if ids is None:
        return store.rows(f"MATCH (p:Page) WHERE p.type = 'task' AND p.kind = 'page' RETURN {_TASK_COLS}")
    if not ids:
        return []
    # UNWIND + key match looks each id up by primary key; `WHERE p.id IN $ids` scans every page.
    return store.rows(f"UNWIND $ids AS i MATCH (p:Page {{id: i}}) RETURN {_TASK_COLS}", {"ids": list(ids)})


def neighbours_out(store: Store, ids: list[str], tables: dict[str, str]) -> list[dict]:
    """One hop out from pages ``ids``: for each REL table in ``tables``
    (table -> the page type wanted at the other end, e.g. ``{"CITED":
    "source"}``), the pages reached. Rows ``{"edge" (table), "via", "id",
    "title", "status", "fields"}``, by edge, id, via; one query, ids looked up
    by key."""
    if not ids or not tables:
        return []
    rels = "|".join(tables)
    rows = store.rows(
        f"UNWIND $ids AS i MATCH (a:Page {{id: i}})-[r:{rels}]->(b:Page) "
        "RETURN DISTINCT label(r) AS edge, a.id AS via, b.id AS id, b.type AS type, b.title AS title, "
        "b.status AS status, b.fields AS fields",
        {"ids": list(ids)},
    )
    rows = [r for r in rows if tables.get(r["edge"]) == r["type"]]
    rows.sort(key=lambda r: (r["edge"], r["id"], r["via"]))
    return rows


def record_hits(store: Store, hits: list[tuple[str, str]], query: str, at: str | None = None) -> None:
    """Log that recall served these ``(page id, kind)`` pairs for ``query``
    (``at``: ISO-8601 UTC, default now; ``query`` kept to 500 characters).
    Read back for pruning (issue 4 §5)."""
    if not hits:
        return
    at = at or datetime.now(timezone.utc).isoformat(timespec="seconds")
    with store.write():
        store.execute(
            "UNWIND $rows AS r CREATE (:RecallHit {page: r.page, kind: r.kind, at: $at, query: $q})",
            {"rows": [{"page": p, "kind": k} for p, k in hits], "at": at, "q": query[:500]},
        )


def recall_hits(store: Store, since: str | None = None) -> dict[str, dict]:
    """Per page id: ``{"count": n, "last": ISO time, "kinds": [..]}`` of recall
    hits (at or after ``since``, ISO-8601, if given)."""
    params: dict = {}
    where = ""
    if since is not None:
        where = "WHERE h.at >= $since "
        params["since"] = since
    rows = store.execute(
        f"MATCH (h:RecallHit) {where}RETURN h.page, count(h), max(h.at), collect(DISTINCT h.kind)", params
    )
    return {r[0]: {"count": r[1], "last": r[2], "kinds": sorted(r[3])} for r in rows}
