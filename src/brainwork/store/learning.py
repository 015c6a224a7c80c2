"""Queries for the learning step: corrections, rules, their evidence, tasks,
consolidation passes and rejected clusters.

Rows are plain dicts; ``fields`` is the page's frontmatter decoded from JSON
(scalars as text). Nothing here knows about embeddings or files.

Evidence of a rule (the corrections it was drafted or promoted from) is read
from the graph, not re-parsed: a ``PROMOTED_TO`` edge from the correction to
the rule (written ``promoted_from:`` on the rule or ``promoted_to:`` on the
correction), or a ``RELATED`` edge the rule page writes *in its frontmatter*
to a correction (``evidence:`` on drafted candidates, ``related:`` on
hand-written ones). Body links to corrections are mentions, not evidence.
"""

from __future__ import annotations

import json
from typing import Any

from brainwork.store.db import Store
from brainwork.store.schema import BODY, BODY_MATCH

_PAGE = (
    "p.id AS id, p.path AS path, p.title AS title, p.status AS status, p.created AS created, "
    "p.tags AS tags, p.fields AS fields"
)


def _decode(rows: list[dict]) -> list[dict]:
    for r in rows:
        r["fields"] = json.loads(r.get("fields") or "{}")
        r["tags"] = list(r.get("tags") or [])
    return rows


# -- corrections -----------------------------------------------------------
def corrections(store: Store, statuses: tuple[str | None, ...] | None = None) -> list[dict]:
    """Correction pages, by id: ``{"id", "path", "title", "status", "created",
    "tags", "fields", "tasks"}``; ``tasks`` are the ids of pages with a
    ``corrected_by`` edge to it (the task it came from), sorted.

    ``statuses``: keep only these statuses (``None`` inside matches a page
    without a status).
    """
    rows = _decode(
        store.rows(f"MATCH (p:Page) WHERE p.kind = 'page' AND p.type = 'correction' RETURN {_PAGE} ORDER BY p.id")
    )
    if statuses is not None:
        rows = [r for r in rows if r["status"] in statuses]
    tasks: dict[str, set[str]] = {}
    for t, c in store.execute(
        "MATCH (t:Page)-[:CORRECTED_BY]->(c:Page) WHERE c.type = 'correction' AND t.id <> c.id RETURN t.id, c.id"
    ):
        tasks.setdefault(c, set()).add(t)
    for r in rows:
        r["tasks"] = sorted(tasks.get(r["id"], ()))
    return rows


# -- rules -----------------------------------------------------------------
def rules(store: Store, status: str | None = None) -> list[dict]:
    """Rule pages, by id: ``{"id", "path", "title", "status", "created",
    "tags", "fields", "body", "evidence", "supersedes", "superseded_by"}``.

    ``evidence``: correction ids (see the module doc), sorted;
    ``supersedes`` / ``superseded_by``: rule ids along ``SUPERSEDES`` edges.
    """
    params: dict[str, Any] = {}
    cond = ""
    if status is not None:
        cond = " AND p.status = $s"
        params["s"] = status
    rows = _decode(
        store.rows(
            f"MATCH (p:Page) WHERE p.kind = 'page' AND p.type = 'rule'{cond} {BODY_MATCH}RETURN {_PAGE}, {BODY} ORDER BY p.id",
            params,
        )
    )
    ev = rule_evidence(store)
    sup: dict[str, list[str]] = {}
    sup_by: dict[str, list[str]] = {}
    for a, b in store.execute("MATCH (a:Page)-[:SUPERSEDES]->(b:Page) WHERE a.id <> b.id RETURN DISTINCT a.id, b.id ORDER BY a.id, b.id"):
        sup.setdefault(a, []).append(b)
        sup_by.setdefault(b, []).append(a)
    for r in rows:
        r["evidence"] = ev.get(r["id"], [])
        r["supersedes"] = sup.get(r["id"], [])
        r["superseded_by"] = sup_by.get(r["id"], [])
    return rows


def rule_evidence(store: Store) -> dict[str, list[str]]:
    """Per rule id, the sorted ids of its evidence corrections."""
    out: dict[str, set[str]] = {}
    for r, c in store.execute(
        "MATCH (c:Page)-[:PROMOTED_TO]->(r:Page) WHERE r.type = 'rule' AND c.type = 'correction' RETURN r.id, c.id"
    ):
        out.setdefault(r, set()).add(c)
    for r, c in store.execute(
        "MATCH (r:Page)-[e:RELATED]->(c:Page) WHERE r.type = 'rule' AND c.type = 'correction' "
        "AND e.place = 'frontmatter' AND e.file = r.id RETURN r.id, c.id"
    ):
        out.setdefault(r, set()).add(c)
    return {k: sorted(v) for k, v in out.items()}


# -- tasks -----------------------------------------------------------------
def tasks(store: Store) -> list[dict]:
    """Task pages, by id: ``{"id", "title", "created", "tags", "corrections"}``;
    ``corrections`` lists ``{"id", "status", "created"}`` of the corrections
    it is ``corrected_by``."""
    rows = store.rows(
        "MATCH (p:Page) WHERE p.kind = 'page' AND p.type = 'task' "
        "RETURN p.id AS id, p.title AS title, p.created AS created, p.tags AS tags ORDER BY p.id"
    )
    by_task: dict[str, list[dict]] = {}
    for t, c, s, cr in store.execute(
        "MATCH (t:Page)-[:CORRECTED_BY]->(c:Page) WHERE t.type = 'task' AND c.type = 'correction' "
        "RETURN DISTINCT t.id, c.id, c.status, c.created"
    ):
        by_task.setdefault(t, []).append({"id": c, "status": s, "created": cr})
    for r in rows:
        r["tags"] = list(r.get("tags") or [])
        r["corrections"] = sorted(by_task.get(r["id"], []), key=lambda x: x["id"])
    return rows


# -- recall hits (written by brainwork.learn.recall) -------------------------
def last_recall_hits(store: Store) -> dict[str, str]:
    """Per page id, the time (ISO text) recall last served it."""
    return {p: at for p, at in store.execute("MATCH (h:RecallHit) RETURN h.page, max(h.at)")}


# -- consolidation passes ----------------------------------------------------
def next_pass_id(store: Store) -> int:
    """The id the next recorded pass gets (1, 2, ...)."""
    return int(store.scalar("MATCH (x:ConsolidationPass) RETURN coalesce(max(x.id), 0)") or 0) + 1


def record_pass(store: Store, at: str, correction_ids: list[str], clusters: list[dict], candidates_created: int,
                pass_id: int | None = None) -> int:
    """Record one consolidation pass; returns its id (1, 2, ...).

    ``pass_id``: the id to record it under (a pass recorded by its
    operation's store action, which undo takes back); when a pass with that
    id and time is recorded already, nothing is (recovery may run an action
    twice)."""
    with store.write():
        if pass_id is not None and store.scalar(
            "MATCH (x:ConsolidationPass {id: $id}) WHERE x.at = $at RETURN count(x)", {"id": int(pass_id), "at": at}
        ):
            return int(pass_id)
        taken = pass_id is not None and store.scalar(
            "MATCH (x:ConsolidationPass {id: $id}) RETURN count(x)", {"id": int(pass_id)})
        pid = int(pass_id) if pass_id is not None and not taken else next_pass_id(store)
        store.execute(
            "CREATE (:ConsolidationPass {id: $id, at: $at, corrections: $c, clusters: $cl, candidates_created: $n})",
            {"id": pid, "at": at, "c": list(correction_ids), "cl": json.dumps(clusters, ensure_ascii=False), "n": int(candidates_created)},
        )
    return pid


def forget_pass(store: Store, pass_id: int, at: str) -> None:
    """Remove the pass recorded as ``pass_id`` at ``at`` (the undo of a
    consolidation's operation: the corrections it read are new again)."""
    with store.write():
        store.execute("MATCH (x:ConsolidationPass {id: $id}) WHERE x.at = $at DELETE x", {"id": int(pass_id), "at": at})


def last_pass(store: Store) -> dict | None:
    """The newest pass ``{"id", "at", "corrections", "clusters", "candidates_created"}``
    (``clusters`` decoded), or None before the first pass."""
    rows = store.rows(
        "MATCH (x:ConsolidationPass) RETURN x.id AS id, x.at AS at, x.corrections AS corrections, "
        "x.clusters AS clusters, x.candidates_created AS candidates_created ORDER BY x.id DESC LIMIT 1"
    )
    if not rows:
        return None
    row = rows[0]
    row["clusters"] = json.loads(row["clusters"] or "[]")
    row["corrections"] = list(row["corrections"] or [])
    return row


def seen_corrections(store: Store) -> set[str]:
    """Every correction id any earlier pass read."""
    out: set[str] = set()
    for (ids,) in store.execute("MATCH (x:ConsolidationPass) RETURN x.corrections"):
        out.update(ids or [])
    return out


# -- rejected clusters -------------------------------------------------------
def record_rejection(store: Store, rule: str, correction_ids: list[str], reason: str, at: str) -> None:
    """Remember (or update) the cluster behind rejected rule ``rule``."""
    with store.write():
        store.execute(
            "MERGE (x:RejectedCluster {rule: $rule}) SET x.corrections = $c, x.reason = $reason, x.at = $at",
            {"rule": rule, "c": sorted(correction_ids), "reason": reason, "at": at},
        )


def rejections(store: Store) -> list[dict]:
    """Every remembered rejection ``{"rule", "corrections", "reason", "at"}``, by rule."""
    rows = store.rows(
        "MATCH (x:RejectedCluster) RETURN x.rule AS rule, x.corrections AS corrections, x.reason AS reason, x.at AS at ORDER BY x.rule"
    )
    for r in rows:
        r["corrections"] = list(r["corrections"] or [])
    return rows
