"""Does a rule help? Corrections per task before and after it became active
(issue 4 §7).

For each active rule:

- its **task class**: the tasks its evidence corrections came from (the
  source tasks), plus every task whose vector is at least
  ``thresholds.rule_task_similarity`` cosine-similar to the centroid of the
  source tasks' vectors (the embeddings cache);
- **before**: tasks of the class created before the rule's ``activated``
  date; **after**: created on or after it (tasks without a ``created`` date
  are left out);
- corrections per task on each side: corrections ``corrected_by`` those tasks
  (dismissed ones do not count: a person withdrew them), divided by the
  number of tasks.

``helped`` is True when after < before, False when after >= before, None
when either side has no task (nothing to compare yet). This is an
observational comparison over a small sample, not an experiment; the counts
are shown so a person can judge.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from brainwork.config import Config
from brainwork.learn.rules import Rule, list_rules
from brainwork.learn.similarity import centroid, page_vectors
from brainwork.store import Store
from brainwork.store import learning as q


@dataclass
class RuleEffect:
    """The before/after figures of one rule.

    ``before``/``after``: corrections per task (None without tasks);
    ``tasks_before``/``tasks_after``: task counts; ``corrections_before``/
    ``corrections_after``: correction counts; ``task_class``: task ids with
    their similarity to the class centroid (source tasks first, 1.0 when
    they are source tasks is not assumed: their real similarity is shown);
    ``last_task``: the newest created date in the class.
    """

    rule: str
    activated: str | None
    before: float | None
    after: float | None
    tasks_before: int
    tasks_after: int
    corrections_before: int
    corrections_after: int
    helped: bool | None
    task_class: list[tuple[str, float]] = field(default_factory=list)
    source_tasks: list[str] = field(default_factory=list)
    last_task: str | None = None

    def to_json(self) -> dict:
        d = asdict(self)
        d["before"] = None if self.before is None else round(self.before, 3)
        d["after"] = None if self.after is None else round(self.after, 3)
        d["task_class"] = [[t, round(s, 3)] for t, s in self.task_class]
        return d


def _date(value) -> str | None:
    text = str(value or "").strip()
    return text[:10] if len(text) >= 10 and text[4] == "-" else None


def task_class(
    rule: Rule,
    corrections: dict[str, dict],
    task_ids: list[str],
    vecs: dict[str, np.ndarray],
    threshold: float,
) -> tuple[list[str], list[tuple[str, float]]]:
    """``(source tasks, [(task id, cosine to the source centroid)])`` for
    ``rule``; the class holds the source tasks and every task at least
    ``threshold`` similar, most similar first."""
    sources = sorted({t for c in rule.evidence if c in corrections for t in corrections[c]["tasks"]})
    cen = centroid([vecs[t] for t in sources if t in vecs])
    if cen is None:
        return sources, [(t, 1.0) for t in sources]
    scored = []
    for t in task_ids:
        if t not in vecs:
            if t in sources:
                scored.append((t, 1.0))
            continue
        s = float(vecs[t] @ cen)
        if t in sources or s >= threshold:
            scored.append((t, s))
    scored.sort(key=lambda x: (-x[1], x[0]))
    return sources, scored


def rule_effects(
    config: Config,
    store: Store,
    rules: list[Rule] | None = None,
    *,
    refresh: bool = False,
) -> dict[str, RuleEffect]:
    """Before/after effect of each active rule (or of ``rules``), by rule id.

    Rules without an ``activated`` date get counts of None on both sides.
    ``refresh``: re-embed tasks whose text changed first (loads the model);
    by default cached vectors serve and only never-embedded tasks are embedded.
    """
    rules = [r for r in (rules if rules is not None else list_rules(store, "active")) if r.status == "active"]
    if not rules:
        return {}
    corrections = {c["id"]: c for c in q.corrections(store)}
    tasks = {t["id"]: t for t in q.tasks(store)}
    vecs = page_vectors(config, store, list(tasks), refresh=refresh)
    threshold = config.thresholds.rule_task_similarity
    out: dict[str, RuleEffect] = {}
    for rule in rules:
        sources, klass = task_class(rule, corrections, sorted(tasks), vecs, threshold)
        since = _date(rule.activated)
        nb = na = cb = ca = 0
        dates = []
        for tid, _ in klass:
            t = tasks[tid]
            created = _date(t["created"])
            if created is None:
                continue
            dates.append(created)
            n = sum(1 for c in t["corrections"] if c["status"] != "dismissed")
            if since is None:
                continue
            if created < since:
                nb, cb = nb + 1, cb + n
            else:
                na, ca = na + 1, ca + n
        before = cb / nb if nb else None
        after = ca / na if na else None
        helped = None if before is None or after is None else after < before
        out[rule.id] = RuleEffect(
            rule.id, rule.activated, before, after, nb, na, cb, ca, helped, klass, sources, max(dates) if dates else None
        )
    return out
