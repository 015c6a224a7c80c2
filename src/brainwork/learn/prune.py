"""Pruning suggestions: keep the doctrine small enough that every rule earns
its place (issue 4 §5). Suggestions only; a person merges or retires.

- **merge**: two active rules whose page vectors are at least
  ``thresholds.rule_overlap_similarity`` cosine-similar overlap; one
  carefully worded rule should replace both.
- **retire**: an active rule that has not been relevant for
  ``thresholds.rule_stale_days`` days — no recall hit (RecallHit rows written
  by ``brainwork recall``), no task in its task class
  (:func:`brainwork.learn.effect.task_class`) and no new evidence correction
  since then, and activated longer ago than that.

"Today" is the local date unless given (tests pass one).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import date

from brainwork.config import Config
from brainwork.learn.effect import RuleEffect, rule_effects
from brainwork.learn.rules import Rule, list_rules
from brainwork.learn.similarity import page_vectors
from brainwork.store import Store
from brainwork.store import learning as q


@dataclass
class Suggestion:
    """One pruning suggestion.

    ``kind``: ``"merge"`` or ``"retire"``; ``rules``: the rule ids (two for a
    merge, one to retire); ``reason``: one line for people; ``similarity``:
    the cosine of a merge pair; ``last_activity``: the newest date the rule
    was relevant (retire), ``days``: days since then.
    """

    kind: str
    rules: list[str]
    reason: str
    similarity: float | None = None
    last_activity: str | None = None
    days: int | None = None

    def to_json(self) -> dict:
        d = asdict(self)
        if self.similarity is not None:
            d["similarity"] = round(self.similarity, 3)
        return d


def _day(value) -> date | None:
    text = str(value or "").strip()[:10]
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def suggestions(
    config: Config,
    store: Store,
    *,
    today: date | str | None = None,
    rules: list[Rule] | None = None,
    effects: dict[str, RuleEffect] | None = None,
) -> list[Suggestion]:
    """Merge suggestions (most similar first), then retire suggestions
    (stalest first). ``rules``/``effects`` may be passed in when the caller
    already has them."""
    th = config.thresholds
    now = _day(today) if today is not None else date.today()
    active = [r for r in (rules if rules is not None else list_rules(store, "active")) if r.status == "active"]
    out: list[Suggestion] = []
    if len(active) >= 2:
        vecs = page_vectors(config, store, [r.id for r in active], refresh=False)
        pairs = []
        for i, a in enumerate(active):
            for b in active[i + 1 :]:
                if a.id in vecs and b.id in vecs:
                    s = float(vecs[a.id] @ vecs[b.id])
                    if s >= th.rule_overlap_similarity:
                        pairs.append((s, a.id, b.id))
        for s, a, b in sorted(pairs, key=lambda x: (-x[0], x[1], x[2])):
            out.append(Suggestion("merge", [a, b], f"{a} and {b} overlap (similarity {s:.2f}); merge them into one rule", s))
    if not active:
        return out
    effects = effects if effects is not None else rule_effects(config, store, active)
    hits = q.last_recall_hits(store)
    corrections = {c["id"]: c for c in q.corrections(store)}
    stale = []
    for r in active:
        activity = {
            "activated": _day(r.activated),
            "recall hit": _day(hits.get(r.id)),
            "matching task": _day(effects[r.id].last_task) if r.id in effects else None,
            "correction": max((d for d in (_day(corrections[c]["created"]) for c in r.evidence if c in corrections) if d), default=None),
        }
        known = [d for d in activity.values() if d is not None]
        if not known:
            continue
        last = max(known)
        days = (now - last).days
        if days > th.rule_stale_days:
            stale.append((days, r.id, last))
    for days, rid, last in sorted(stale, key=lambda x: (-x[0], x[1])):
        out.append(
            Suggestion(
                "retire", [rid],
                f"{rid}: no recall hit, matching task or new correction for {days} days (since {last.isoformat()}); retire it?",
                last_activity=last.isoformat(), days=days,
            )
        )
    return out
