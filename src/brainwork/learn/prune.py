"""Pruning suggestions: keep the doctrine small enough that every rule earns
its place. Suggestions only; a person merges or retires.

- **merge**: two active rules that teach the same lesson — their rule text
  and why, embedded together (one encode call for all active rules), are
  at least ``thresholds.rule_overlap_similarity`` cosine-similar. The rest
  of a rule page (title, checklist, history) is left out: two rules with
  different write-ups but one instruction must still meet, and two rules
  that share only a topic must not.
- **retire**: an active rule whose task class went quiet — no task of its
  kind (:class:`brainwork.learn.replay.LessonReplay` ``task_class``) for
  more than ``thresholds.rule_stale_days`` days, counted from its newest
  class task or its activation, whichever is later. Recall hits do not
  count: every recall serves every active rule, so they cannot tell rules
  apart.

"Today" is the local date unless given (tests pass one).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import date

from brainwork.config import Config
from brainwork.learn.embed import Embedder, get_embedder
from brainwork.learn.replay import Replay, replay as run_replay
from brainwork.learn.rule import Rule, list_rules
from brainwork.store import Store


@dataclass
class Suggestion:
    """One pruning suggestion.

    ``kind``: ``"merge"`` or ``"retire"``; ``rules``: the rule ids (two for a
    merge, one to retire); ``reason``: one line for people; ``similarity``:
    the cosine of a merge pair's text + why; ``last_activity``: the newest
    date a task of the rule's class was seen, or its activation (retire);
    ``days``: days since then.
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


def lesson_text(rule: Rule) -> str:
    """What a rule teaches: its instruction and why (the title when both are empty)."""
    return " ".join(p for p in (rule.text, rule.why) if p).strip() or rule.title


def merge_pairs(rules: list[Rule], threshold: float, embedder: Embedder) -> list[tuple[float, str, str]]:
    """``(similarity, a, b)`` for every pair of ``rules`` whose
    :func:`lesson_text` is at least ``threshold`` similar, most similar first."""
    if len(rules) < 2:
        return []
    vecs = embedder.encode([lesson_text(r) for r in rules])
    pairs = []
    for i, a in enumerate(rules):
        for j in range(i + 1, len(rules)):
            s = float(vecs[i] @ vecs[j])
            if s >= threshold:
                pairs.append((s, a.id, rules[j].id))
    return sorted(pairs, key=lambda x: (-x[0], x[1], x[2]))


@dataclass(frozen=True)
class SupersedeCheck:
    """How far a rule approved to supersede another teaches the same lesson:
    the cosine of their :func:`lesson_text` (``similarity``) against
    ``thresholds.supersede_similarity`` (``threshold``), the bar
    consolidation sets before it suggests a supersession."""

    rule: str
    rule_title: str
    old: str
    old_title: str
    similarity: float
    threshold: float

    @property
    def same_lesson(self) -> bool:
        return self.similarity >= self.threshold

    def warning(self) -> str | None:
        """One line naming both rules when they teach different lessons
        (None when they teach the same one). Superseding stays the person's
        choice: this only says what is being replaced."""
        if self.same_lesson:
            return None
        return (f"“{self.rule_title}” ({self.rule}) and “{self.old_title}” ({self.old}) do not teach the same "
                f"lesson (similarity {self.similarity:.2f}, below {self.threshold:.2f}); superseding retires the "
                "older rule all the same")


def supersede_check(config: Config, rule: Rule, old: Rule, embedder: Embedder | None = None) -> SupersedeCheck:
    """:class:`SupersedeCheck` of ``rule`` approved with ``--supersedes``
    ``old`` (one encode call of the two lesson texts). On sample_vault/ the
    full-chain rule against the leaf-only rule it replaced scores 0.73,
    against the backup rule 0.31; "put every log in UTC" against "give
    customers their own time zone" 0.45."""
    emb = embedder or get_embedder(config)
    a, b = emb.encode([lesson_text(rule), lesson_text(old)])
    return SupersedeCheck(rule.id, rule.title, old.id, old.title, float(a @ b), config.thresholds.supersede_similarity)


def suggestions(
    config: Config,
    store: Store,
    *,
    today: date | str | None = None,
    rules: list[Rule] | None = None,
    report: Replay | None = None,
    embedder: Embedder | None = None,
) -> list[Suggestion]:
    """Merge suggestions (most similar first), then retire suggestions
    (stalest first). ``rules`` (all rule pages) and ``report`` (the
    replay) may be passed in when the caller already has them."""
    th = config.thresholds
    now = _day(today) if today is not None else date.today()
    rules = rules if rules is not None else list_rules(store)
    active = [r for r in rules if r.status == "active"]
    if not active:
        return []
    emb = embedder or get_embedder(config)
    out = [
        Suggestion("merge", [a, b], f"{a} and {b} teach the same lesson (similarity {s:.2f}); merge them into one rule", s)
        for s, a, b in merge_pairs(active, th.rule_overlap_similarity, emb)
    ]
    report = report if report is not None else run_replay(config, store, embedder=emb, rules=rules)
    stale = []
    for r in active:
        lesson = report.lesson(r.id)
        known = [d for d in (_day(r.activated), _day(lesson.last_task) if lesson else None) if d is not None]
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
                f"{rid}: no task of its kind for {days} days (since {last.isoformat()}); retire it?",
                last_activity=last.isoformat(), days=days,
            )
        )
    return out
