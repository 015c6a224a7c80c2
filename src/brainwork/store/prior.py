"""Queries the recall answer needs (:mod:`brainwork.learn.recall`): prior
tasks, the corrections each received, the sources and tools around them,
and page titles for the compact index.

Rows come back as typed records. ``fields`` is the page's frontmatter
decoded from its stored JSON (a dict; ``{}`` when unreadable).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from brainwork.store.db import Store


def _fields(raw) -> dict:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


@dataclass
class TaskRow:
    """A task page: id, title, tags, created (``YYYY-MM-DD`` text or None), frontmatter."""

    id: str
    title: str
    tags: list[str] = field(default_factory=list)
    created: str | None = None
    fields: dict = field(default_factory=dict)


@dataclass
class Neighbour:
    """A page one typed edge out from a task: ``edge`` the REL table
    (``CORRECTED_BY``, ``CITED``, ``USED``), ``via`` the task id, then the
    page's id, type, title, status and frontmatter."""

    edge: str
    via: str
    id: str
    type: str | None
    title: str
    status: str | None
    fields: dict = field(default_factory=dict)


# The task columns both recall modules read (TaskRow here, task_rows in store.recall).
TASK_COLUMNS = "p.id AS id, p.title AS title, p.tags AS tags, p.fields AS fields, p.created AS created"


def tasks(store: Store, ids: list[str] | None = None) -> list[TaskRow]:
    """Task pages: those of ``ids`` (in no particular order; unknown ids and
    non-task pages left out), or every task when ``ids`` is None."""
    if ids is None:
        rows = store.rows(f"MATCH (p:Page) WHERE p.type = 'task' AND p.kind = 'page' RETURN {TASK_COLUMNS}")
    elif not ids:
        return []
    else:
        # UNWIND + key match looks each id up by primary key; `WHERE p.id IN $ids` scans every page.
        rows = store.rows(
            f"UNWIND $ids AS i MATCH (p:Page {{id: i}}) WHERE p.type = 'task' AND p.kind = 'page' RETURN {TASK_COLUMNS}",
            {"ids": list(ids)},
        )
    return [TaskRow(r["id"], r["title"] or r["id"], list(r["tags"] or []), r["created"], _fields(r["fields"])) for r in rows]


def tasks_of_corrections(store: Store, ids: list[str]) -> dict[str, list[str]]:
    """``{correction id: [task ids it corrects]}`` for corrections ``ids``."""
    if not ids:
        return {}
    rows = store.execute(
        "UNWIND $ids AS i MATCH (t:Page)-[:CORRECTED_BY]->(c:Page {id: i}) "
        "WHERE t.type = 'task' AND t.kind = 'page' RETURN DISTINCT c.id, t.id",
        {"ids": list(ids)},
    )
    out: dict[str, list[str]] = {}
    for cid, tid in rows:
        out.setdefault(cid, []).append(tid)
    return out


def neighbours(store: Store, ids: list[str], tables: dict[str, str]) -> list[Neighbour]:
    """One hop out from tasks ``ids``: for each REL table in ``tables``
    (table -> the page type wanted at the other end, e.g. ``{"CITED":
    "source"}``), the pages reached, by edge, id, via."""
    if not ids or not tables:
        return []
    rels = "|".join(tables)
    rows = store.rows(
        f"UNWIND $ids AS i MATCH (a:Page {{id: i}})-[r:{rels}]->(b:Page) "
        "RETURN DISTINCT label(r) AS edge, a.id AS via, b.id AS id, b.type AS type, b.title AS title, "
        "b.status AS status, b.fields AS fields",
        {"ids": list(ids)},
    )
    out = [Neighbour(r["edge"], r["via"], r["id"], r["type"], r["title"] or r["id"], r["status"], _fields(r["fields"]))
           for r in rows if tables.get(r["edge"]) == r["type"]]
    out.sort(key=lambda n: (n.edge, n.id, n.via))
    return out


@dataclass
class TitleRow:
    """A page's id, title and type (None when untyped), for the compact index."""

    id: str
    title: str
    type: str | None


def titles(store: Store, type: str | None = None) -> list[TitleRow]:
    """Every page (not attachments) with its title and type, by id; only
    pages of ``type`` when given (recall reads the task titles on every
    query: filtered in the store, 5-9 ms at 10,000 pages against 28-35 ms
    for every page's row)."""
    if type is None:
        rows = store.execute("MATCH (p:Page) WHERE p.kind = 'page' RETURN p.id, p.title, p.type ORDER BY p.id")
    else:
        rows = store.execute("MATCH (p:Page) WHERE p.kind = 'page' AND p.type = $type "
                             "RETURN p.id, p.title, p.type ORDER BY p.id", {"type": type})
    return [TitleRow(i, t or i, ty or None) for i, t, ty in rows]


def page_fields(store: Store, ids: list[str]) -> dict[str, dict]:
    """``{page id: frontmatter}`` for those of ``ids`` that exist (e.g. a
    rule's ``scope:``, which :class:`brainwork.learn.rules.Rule` does not carry)."""
    if not ids:
        return {}
    rows = store.execute("UNWIND $ids AS i MATCH (p:Page {id: i}) RETURN p.id, p.fields", {"ids": list(ids)})
    return {i: _fields(f) for i, f in rows}
