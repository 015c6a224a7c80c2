"""Queries recall needs (brainwork.learn.recall): active rules, task rows
and the recall-hit log (``RecallHit``, DDL in :mod:`brainwork.store.schema`).
One hop out from tasks is :func:`brainwork.store.prior.neighbours`.

Rows are typed records (:class:`ActiveRule`, :class:`RecallHits`), except
:func:`task_rows`, still dicts for the replay (:mod:`brainwork.learn.replay`)
that reads them; ``fields`` stays the stored JSON text throughout.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from brainwork.store.db import Store
from brainwork.store.prior import TASK_COLUMNS


@dataclass(frozen=True, slots=True)
class ActiveRule:
    """A rule page with ``status: active``; ``fields``: its frontmatter as stored JSON text."""

    id: str
    title: str
    fields: str | None


@dataclass(frozen=True, slots=True)
class RecallHits:
    """How often recall served one page: ``count`` hits, the ``last`` one at
    (ISO 8601 UTC), the ``kinds`` it was served as (sorted)."""

    count: int
    last: str
    kinds: list[str]


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
        return store.rows(f"MATCH (p:Page) WHERE p.type = 'task' AND p.kind = 'page' RETURN {TASK_COLUMNS}")
    if not ids:
        return []
    # UNWIND + key match looks each id up by primary key; `WHERE p.id IN $ids` scans every page.
    return store.rows(f"UNWIND $ids AS i MATCH (p:Page {{id: i}}) RETURN {TASK_COLUMNS}", {"ids": list(ids)})


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
