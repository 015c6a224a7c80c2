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
- corrections per task on each side: the corrections of the rule's kind
  ``corrected_by`` those tasks, divided by the number of tasks. A correction
  is of the rule's kind when it is one of the rule's evidence corrections or
  its vector is at least ``thresholds.cluster_similarity`` similar to the
  centroid of the evidence (it would have joined that cluster): a kubectl
  slip during a certificate rotation says nothing about a certificate-chain
  rule. ``all_before``/``all_after`` count every correction on those tasks,
  for comparison. Dismissed corrections never count (a person withdrew them).

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

    ``before``/``after``: corrections of the rule's kind per task (None
    without tasks); ``all_before``/``all_after``: all corrections per task;
    ``tasks_before``/``tasks_after``: task counts; ``corrections_before``/
    ``corrections_after``: counts of corrections of the rule's kind; ``task_class``: task ids with
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
    all_before: float | None = None
    all_after: float | None = None

    def to_json(self) -> dict:
        d = asdict(self)
        for k in ("before", "after", "all_before", "all_after"):
            d[k] = None if d[k] is None else round(d[k], 3)
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
    klasses = {r.id: task_class(r, corrections, sorted(tasks), vecs, threshold) for r in rules}
    wanted = {c["id"] for _, k in klasses.values() for t, _ in k for c in tasks[t]["corrections"]}
    wanted |= {c for r in rules for c in r.evidence}
    cvecs = page_vectors(config, store, wanted, refresh=refresh)
    out: dict[str, RuleEffect] = {}
    for rule in rules:
        sources, klass = klasses[rule.id]
        evidence = set(rule.evidence)
        evc = centroid([cvecs[c] for c in rule.evidence if c in cvecs])

        def of_kind(cid: str) -> bool:
            if cid in evidence or evc is None or cid not in cvecs:
                return cid in evidence or evc is None
            return float(cvecs[cid] @ evc) >= config.thresholds.cluster_similarity

        since = _date(rule.activated)
        nb = na = cb = ca = allb = alla = 0
        dates = []
        for tid, _ in klass:
            t = tasks[tid]
            created = _date(t["created"])
            if created is None:
                continue
            dates.append(created)
            counted = [c["id"] for c in t["corrections"] if c["status"] != "dismissed"]
            n = sum(1 for c in counted if of_kind(c))
            if since is None:
                continue
            if created < since:
                nb, cb, allb = nb + 1, cb + n, allb + len(counted)
            else:
                na, ca, alla = na + 1, ca + n, alla + len(counted)
        before = cb / nb if nb else None
        after = ca / na if na else None
        helped = None if before is None or after is None else after < before
        out[rule.id] = RuleEffect(
            rule.id, rule.activated, before, after, nb, na, cb, ca, helped, klass, sources, max(dates) if dates else None,
            allb / nb if nb else None, alla / na if na else None,
        )
    return out
