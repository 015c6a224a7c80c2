"""Dream: a nightly pass that gathers curation proposals into a review queue
without changing the vault.

:func:`dream` (``brainwork dream``, e.g. from cron) asks the read-only parts
of brainwork (consolidation's dry run, the duplicate and diary-title checks,
pruning) what they would change and stores each answer as a proposal
(``ReviewProposal`` rows, :mod:`brainwork.store.review`); docs/learning-loop.md
section 6b lists the kinds.

Invariants: nothing changes until a person accepts a proposal
(:func:`accept`), and each accepted proposal is one operation (undoable,
except a merge, which needs ``yes=True`` as ``brainwork merge`` does); a
declined proposal is not raised again; a pending one that no longer applies
at the next run is dropped.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timezone

from brainwork.config import Config
from brainwork.errors import UserError
from brainwork.wording import counted
from brainwork.ops.merge import merge_direction
from brainwork.store import Store
from brainwork.store import prior as pstore
from brainwork.store import review as rq

#: Proposal kinds, in the order a run gathers them.
KINDS = ("candidate-rules", "merge", "retitle", "merge-rules", "retire-rule")
#: Each kind as a counted noun (singular, plural), for what a pass found.
KIND_NOUNS: dict[str, tuple[str, str]] = {
    "candidate-rules": ("candidate rule", "candidate rules"),
    "merge": ("page merge", "page merges"),
    "retitle": ("retitle", "retitles"),
    "merge-rules": ("rule merge", "rule merges"),
    "retire-rule": ("rule to retire", "rules to retire"),
}


def found_text(found: dict[str, int]) -> str:
    """What a pass found, ``{kind: count}``, as "1 retitle, 2 page merges"
    (zeros left out; "" for nothing); a kind not in :data:`KIND_NOUNS` is
    named as it is."""
    return ", ".join(counted(n, *KIND_NOUNS.get(kind, (kind, kind))) for kind, n in found.items() if n)
#: Kinds whose accept step cannot be undone (it asks for confirmation).
IRREVERSIBLE = frozenset({"merge", "merge-rules"})

#: Rule statuses that end a rule's life (a superseded rule is retired): such
#: a page records a decision — what was rejected or replaced, and why — so
#: it is never merged with a live page, either way; merging cannot be undone.
SETTLED_RULE_STATUSES = frozenset({"rejected", "retired"})
#: Page types whose titles name an event by design and get no retitle
#: proposal: a correction is the record of one mistake, titled by what went
#: wrong (docs/vault-format.md; docs/findings.md, ``diary-title``).
EVENT_TYPES = frozenset({"correction"})

#: Brackets a removed ticket leaves empty ("[ABC-42] ..." -> "[ ] ...").
_EMPTY_BRACKETS = re.compile(r"\(\s*[,;/]*\s*\)|\[\s*[,;/]*\s*\]")


def retitle(title: str, max_chars: int) -> str:
    """The title a retitle proposal offers for the diary title ``title``:
    its ticket references (:data:`brainwork.analysis.titles.TICKETS`) removed
    (joined with a space, so "[ABC-42] Fix login" keeps one piece), then the diary-title
    suggestion (no dates, shorter than ``max_chars``, which is
    ``Thresholds.diary_title_chars``). "" when nothing is left."""
    from brainwork.analysis.titles import TICKETS, thing_title

    text = _EMPTY_BRACKETS.sub(" ", TICKETS.sub(" ", title or ""))
    return thing_title(" ".join(text.split()), max_chars)


@dataclass
class Proposal:
    """One queued proposal: ``id``, ``kind`` (:data:`KINDS`), ``summary``
    (one line), ``payload`` (what accepting does), ``state`` (``pending``,
    ``accepted``, ``declined``, or ``undone`` when the operation it
    produced was undone), ``created``/``decided`` (ISO UTC),
    ``operation`` the undo-log id (None: none or irreversible),
    ``reversible`` whether accepting can be undone."""

    id: int
    kind: str
    key: str
    summary: str
    payload: dict
    state: str
    created: str
    decided: str | None
    operation: int | None
    reversible: bool

    def to_json(self) -> dict:
        return {"id": self.id, "kind": self.kind, "summary": self.summary, "payload": self.payload,
                "state": self.state, "created": self.created, "decided": self.decided,
                "operation": self.operation, "reversible": self.reversible}


@dataclass
class DreamReport:
    """A dream run: the pending queue after it (``proposals``), how many of
    each kind it found (``found``), and ``seconds``."""

    proposals: list[Proposal]
    found: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def to_json(self) -> dict:
        return {"proposals": [p.to_json() for p in self.proposals], "found": self.found, "seconds": round(self.seconds, 2)}


def _now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def _proposal(store: Store, row: rq.ProposalRow) -> Proposal:
    state = row.state
    if state == "accepted" and row.operation:
        from brainwork.ops.undo import get_operation

        op = get_operation(store, row.operation)
        if op is not None and op.state == "undone":
            state = "undone"
    return Proposal(row.id, row.kind, row.key, row.summary, row.payload, state, row.created, row.decided,
                    row.operation, row.kind not in IRREVERSIBLE)


def queue(store: Store, state: str | None = "pending") -> list[Proposal]:
    """The stored proposals (``state`` None: all of them), by id."""
    rows = rq.proposals(store, None)
    out = [_proposal(store, r) for r in rows]
    return out if state is None else [p for p in out if p.state == state]


def gather(config: Config, store: Store, *, today: str | date | None = None, embedder=None) -> list[tuple[str, str, str, dict]]:
    """Every proposal the vault suggests now, as ``(kind, key, summary,
    payload)``; writes nothing."""
    from brainwork.analysis.findings import check
    from brainwork.learn.consolidate import consolidate
    from brainwork.learn.embed import get_embedder
    from brainwork.learn.prune import suggestions

    emb = embedder or get_embedder(config)
    items: list[tuple[str, str, str, dict]] = []
    settled = settled_rules(store)
    types = {r.id: r.type for r in pstore.titles(store)}
    report = consolidate(config, store, today=today, dry_run=True)
    if report.candidates_created:
        drafted = [c for c in report.clusters if c.action in ("new", "supersede")]
        corr = sorted({x for c in drafted for x in c.corrections})
        key = "candidate-rules:" + hashlib.sha256("|".join(corr).encode()).hexdigest()[:16]
        titles = [d.title for d in report.drafts]
        items.append(("candidate-rules", key,
                      f"draft {counted(report.candidates_created, 'candidate rule')} from {counted(len(corr), 'recurring correction')}: "
                      + "; ".join(titles[:3]) + ("; …" if len(titles) > 3 else ""),
                      {"candidates": report.candidates_created, "corrections": corr, "titles": titles}))
    for f in check(config, store, ["duplicate", "diary-title"]):
        if f.code == "duplicate" and f.evidence.get("merge_candidate"):
            if f.page in settled or f.other in settled:
                continue  # a rejected or retired rule stays as it was decided
            source, target = merge_direction(store, f.page, f.other)
            # Keyed by the finding's pair, so a declined merge stays declined
            # whichever way it would go.
            items.append(("merge", f"merge:{f.page}|{f.other}",
                          f"merge {source} into {target} (similarity {f.score:.2f})",
                          {"source": source, "target": target, "similarity": round(float(f.score or 0), 4)}))
        elif f.code == "diary-title" and f.target:
            if types.get(f.page) in EVENT_TYPES:
                continue
            old = f.evidence.get("title")
            new = retitle(old, config.thresholds.diary_title_chars)
            if new and new != old:
                items.append(("retitle", f"retitle:{f.page}", f"retitle {f.page}: {old!r} -> {new!r}",
                              {"page": f.page, "old_title": old, "new_title": new}))
    for s in suggestions(config, store, today=today, embedder=emb):
        if s.kind == "merge":
            a, b = s.rules
            items.append(("merge-rules", f"merge-rules:{a}|{b}", s.reason,
                          {"source": b, "target": a, "similarity": round(float(s.similarity or 0), 4)}))
        elif s.kind == "retire":
            items.append(("retire-rule", f"retire-rule:{s.rules[0]}", s.reason,
                          {"rule": s.rules[0], "reason": s.reason, "last_activity": s.last_activity, "days": s.days}))
    return items


def settled_rules(store: Store) -> set[str]:
    """The ids of the rule pages whose status is in
    :data:`SETTLED_RULE_STATUSES` or that another rule supersedes."""
    from brainwork.learn.rule import list_rules

    return {r.id for r in list_rules(store) if r.status in SETTLED_RULE_STATUSES or r.superseded_by}


def dream(config: Config, store: Store, *, today: str | date | None = None, embedder=None) -> DreamReport:
    """Gather the proposals (:func:`gather`) into the review queue; the
    vault is not touched. Returns the pending queue."""
    import time

    t0 = time.perf_counter()
    items = gather(config, store, today=today, embedder=embedder)
    rq.replace_pending(store, items, _now())
    found = {k: sum(1 for i in items if i[0] == k) for k in KINDS}
    return DreamReport(queue(store), found, time.perf_counter() - t0)


@dataclass
class Accepted:
    """What accepting a proposal did: the proposal (now accepted), the
    undo-log ``operation`` id (None for an irreversible merge) and a line
    for people."""

    proposal: Proposal
    operation: int | None
    message: str

    def to_json(self) -> dict:
        return {"proposal": self.proposal.to_json(), "operation": self.operation, "message": self.message}


def _pending(store: Store, pid: int) -> rq.ProposalRow:
    row = rq.get(store, pid)
    if row is None:
        raise UserError(f"no proposal {pid} in the review queue (`brainwork dream list` lists them)")
    if row.state != "pending":
        raise UserError(f"proposal {pid} was {row.state} already")
    return row


def needs_confirmation(store: Store, pid: int) -> bool:
    """True when accepting proposal ``pid`` cannot be undone (a merge)."""
    return _pending(store, pid).kind in IRREVERSIBLE


def accept(config: Config, store: Store, pid: int, *, yes: bool = False, today: str | date | None = None) -> Accepted:
    """Carry out pending proposal ``pid`` as one operation.

    Raises:
        UserError: no such pending proposal; a merge without ``yes``; the
            operation's own errors (a file changed, a page is gone).
    """
    row = _pending(store, pid)
    p = row.payload
    op_id: int | None
    if row.kind in IRREVERSIBLE and not yes:
        raise UserError(f"proposal {pid} merges pages, which cannot be undone; confirm it (--yes)")
    if row.kind == "candidate-rules":
        from brainwork.learn.consolidate import consolidate

        rep = consolidate(config, store, today=today)
        op_id = rep.operation
        msg = f"drafted {counted(rep.candidates_created, 'candidate rule')}; review them with `brainwork rules --status candidate`"
    elif row.kind == "retitle":
        from brainwork.ops.rename import rename

        res = rename(config, store, p["page"], p["new_title"])
        op_id = res.operation.id
        msg = res.plan.summary()
    elif row.kind == "retire-rule":
        from brainwork.learn.rules import retire

        d = retire(config, store, p["rule"], p.get("reason"), today=today)
        op_id = d.operation.id
        msg = f"retired {d.rule}"
    elif row.kind in ("merge", "merge-rules"):
        from brainwork.ops.merge import merge_pages

        settled = sorted({p["source"], p["target"]} & settled_rules(store))
        if settled:
            # queued before the rule was rejected or retired; the next run drops it
            raise UserError(f"proposal {pid} would merge {', '.join(settled)}, a rule that was "
                            "rejected or retired since; it is kept as decided (decline the proposal)")
        res = merge_pages(config, store, p["source"], p["target"])
        op_id = None
        msg = f"merged {p['source']} into {p['target']} (cannot be undone)"
        del res
    else:
        raise UserError(f"proposal {pid} has an unknown kind {row.kind!r}")
    rq.decide(store, pid, "accepted", _now(), op_id)
    return Accepted(_proposal(store, rq.get(store, pid)), op_id or None, msg)


def decline(store: Store, pid: int) -> Proposal:
    """Decline pending proposal ``pid``: it stays in the queue's history and
    is not raised again."""
    _pending(store, pid)
    rq.decide(store, pid, "declined", _now())
    return _proposal(store, rq.get(store, pid))
