"""Queries of the review queue (``ReviewProposal``, DDL in
:mod:`brainwork.store.schema`) that ``brainwork dream`` fills and a person
empties (:mod:`brainwork.learn.dream`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from brainwork.store.db import Store

_COLS = "p.id, p.kind, p.key, p.summary, p.payload, p.state, p.created, p.decided, p.operation"


@dataclass
class ProposalRow:
    """One stored proposal; ``payload`` decoded from its JSON."""

    id: int
    kind: str
    key: str
    summary: str
    payload: dict = field(default_factory=dict)
    state: str = "pending"
    created: str = ""
    decided: str | None = None
    operation: int | None = None


def _row(r: list) -> ProposalRow:
    try:
        payload = json.loads(r[4] or "{}")
    except ValueError:
        payload = {}
    return ProposalRow(int(r[0]), r[1], r[2], r[3], payload, r[5], r[6], r[7] or None, r[8] if r[8] else None)


def proposals(store: Store, state: str | None = None) -> list[ProposalRow]:
    """Stored proposals (of ``state`` if given), by id."""
    if state is None:
        rows = store.execute(f"MATCH (p:ReviewProposal) RETURN {_COLS} ORDER BY p.id")
    else:
        rows = store.execute(f"MATCH (p:ReviewProposal) WHERE p.state = $s RETURN {_COLS} ORDER BY p.id", {"s": state})
    return [_row(r) for r in rows]


def get(store: Store, pid: int) -> ProposalRow | None:
    rows = store.execute(f"MATCH (p:ReviewProposal {{id: $id}}) RETURN {_COLS}", {"id": int(pid)})
    return _row(rows[0]) if rows else None


def replace_pending(store: Store, items: list[tuple[str, str, str, dict]], at: str) -> list[int]:
    """Replace the pending proposals with ``items`` (kind, key, summary,
    payload): a pending proposal whose key comes again keeps its id and is
    refreshed, one whose key does not come again is dropped, keys once
    declined or accepted are skipped. Returns the ids now pending, in
    ``items`` order."""
    existing = proposals(store)
    pending = {p.key: p for p in existing if p.state == "pending"}
    decided = {p.key for p in existing if p.state != "pending"}
    next_id = max((p.id for p in existing), default=0) + 1
    out: list[int] = []
    keep: set[str] = set()
    with store.write():
        for kind, key, summary, payload in items:
            if key in decided or key in keep:
                continue
            keep.add(key)
            data = json.dumps(payload, sort_keys=True, ensure_ascii=False)
            if key in pending:
                pid = pending[key].id
                store.execute("MATCH (p:ReviewProposal {id: $id}) SET p.summary = $s, p.payload = $d, p.kind = $k",
                              {"id": pid, "s": summary, "d": data, "k": kind})
            else:
                pid = next_id
                next_id += 1
                store.execute(
                    "CREATE (:ReviewProposal {id: $id, kind: $k, key: $key, summary: $s, payload: $d, state: 'pending', "
                    "created: $at, decided: '', operation: 0})",
                    {"id": pid, "k": kind, "key": key, "s": summary, "d": data, "at": at},
                )
            out.append(pid)
        for key, p in pending.items():
            if key not in keep:
                store.execute("MATCH (p:ReviewProposal {id: $id}) DELETE p", {"id": p.id})
    return out


def decide(store: Store, pid: int, state: str, at: str, operation: int | None = None) -> None:
    """Mark proposal ``pid`` accepted or declined (with the undo-log id)."""
    with store.write():
        store.execute("MATCH (p:ReviewProposal {id: $id}) SET p.state = $s, p.decided = $at, p.operation = $op",
                      {"id": int(pid), "s": state, "at": at, "op": int(operation or 0)})
