"""Replay: does doctrine reduce repeated corrections?

Walks the vault's dated tasks and measures the design's acceptance criterion
("a measurable improvement on a repeated task class after doctrine exists,
versus before") with counts a person can check. Read-only; deterministic for
one vault and one model. Recall is recomputed with recall's own ranking
(:func:`brainwork.learn.recall.score_tasks`) because stored recall hits do
not record the task they served. Thresholds: ``lesson_similarity``,
``rule_task_similarity``, ``task_class_tags``, ``replay_min_tasks`` and
``replay_min_fewer_tasks`` in :mod:`brainwork.thresholds`. Lessons, repeats,
"in the room", task classes and verdicts: docs/learning-loop.md, section 7.
This is an observational comparison, not an experiment.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from brainwork.config import Config
from brainwork.learn.embed import Embedder, get_embedder, loaded_embedder
from brainwork.learn.recall import CANDIDATES, score_tasks, task_corrections, word_matches, words
from brainwork.learn.rule import Rule, list_rules
from brainwork.learn.similarity import centroid, page_vectors
from brainwork.vault.dates import iso_date
from brainwork.store import Store
from brainwork.store import history
from brainwork.store import learning as q
from brainwork.store import prior as pstore
from brainwork.store import recall as rstore

#: Rule statuses whose evidence forms a lesson.
LESSON_STATUSES = ("active", "candidate", "retired")

#: Verdicts of a lesson's before/after comparison.
FEWER = "fewer repeats after"
SLIGHTLY_FEWER = "slightly fewer (under one task)"
NOT_FEWER = "no fewer repeats after"
TOO_LITTLE = "too little data"
NOT_ACTIVE = "not active yet"
VERDICTS = (FEWER, SLIGHTLY_FEWER, NOT_FEWER, TOO_LITTLE, NOT_ACTIVE)
#: A side without tasks has no rate and no counts: it shows this alone
#: (a ``0/0`` beside it says nothing the dash does not).
NO_FIGURE = "—"


def rate_text(rate: float | None) -> str:
    """A repeat rate as shown: ``0.67``, or :data:`NO_FIGURE` without tasks."""
    return NO_FIGURE if rate is None else f"{rate:.2f}"


def _date(value) -> str | None:
    """The day ``YYYY-MM-DD`` of an ISO 8601 date or date and time, or None
    for anything else (:func:`brainwork.vault.dates.iso_date`: dates are
    compared as text, so ``2026-13-45`` or ``yesterday`` must not pass)."""
    text = iso_date(value)
    return text[:10] if text else None


@dataclass
class Side:
    """Tasks of a lesson's class on one side of its rule's activation.

    ``tasks``: their ids in date order; ``repeated``: those that got a
    correction of the lesson again (a repeat); ``rate``: repeated / tasks
    (None without tasks).
    """

    tasks: list[str] = field(default_factory=list)
    repeated: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float | None:
        return len(self.repeated) / len(self.tasks) if self.tasks else None

    def to_json(self) -> dict:
        rate = self.rate
        return {"tasks": len(self.tasks), "repeated": len(self.repeated), "rate": None if rate is None else round(rate, 3),
                "task_ids": list(self.tasks), "repeated_ids": list(self.repeated)}


@dataclass
class ClassTask:
    """A task of a lesson's class: ``why`` it belongs (``correction``: it
    got one of the lesson's corrections; ``similar``: its title + request
    is similar, ``similarity`` the cosine to the evidence tasks' centroid;
    ``tags``: it shares class tags), its ``date``."""

    task: str
    date: str
    why: str
    similarity: float | None = None


@dataclass
class RepeatCorrection:
    """One correction that repeats an earlier lesson.

    ``lesson``: the rule id; ``task``/``date``: where and when (task None:
    a correction linked to no task); ``in_room``: was the lesson in the
    agent's context when the task started; ``via``: ``"doctrine"``,
    ``"recall"`` or None; ``first``: the lesson's earliest correction.
    """

    correction: str
    lesson: str
    task: str | None
    date: str
    in_room: bool
    via: str | None
    first: str

    def to_json(self) -> dict:
        return {"correction": self.correction, "lesson": self.lesson, "task": self.task, "date": self.date,
                "in_room": self.in_room, "via": self.via, "first": self.first}


@dataclass
class LessonReplay:
    """The figures of one lesson (one rule).

    ``corrections``: the lesson's corrections in walk order (evidence and
    similar ones); ``approved_from``: the evidence the rule was approved
    from; ``task_class``: its tasks; ``before``/``after``: the sides
    (``after`` None for a rule never active); ``repeats``/``repeats_in_room``:
    counts of its repeat corrections; ``last_task``: the newest date in its
    class; ``verdict``: one of :data:`VERDICTS`.
    """

    rule: str
    title: str
    status: str | None
    activated: str | None
    retired: str | None
    corrections: list[str]
    evidence: list[str]
    approved_from: list[str]
    task_class: list[ClassTask]
    before: Side
    after: Side | None
    repeats: int
    repeats_in_room: int
    last_task: str | None
    verdict: str

    def to_json(self) -> dict:
        return {
            "rule": self.rule, "title": self.title, "status": self.status, "activated": self.activated,
            "retired": self.retired, "corrections": self.corrections, "evidence": self.evidence,
            "approved_from": self.approved_from,
            "task_class": [
                {"task": t.task, "date": t.date, "why": t.why,
                 "similarity": None if t.similarity is None else round(t.similarity, 3)}
                for t in self.task_class
            ],
            "before": self.before.to_json(), "after": None if self.after is None else self.after.to_json(),
            "repeats": self.repeats, "repeats_in_room": self.repeats_in_room, "last_task": self.last_task,
            "verdict": self.verdict,
        }


@dataclass
class Replay:
    """The whole replay.

    ``tasks``: dated tasks walked; ``undated_tasks``: left out;
    ``corrections``: corrections counted (not dismissed); ``repeats``: every
    repeat correction in walk order; ``in_room``: how many had their lesson
    in the room; ``lessons``: per rule, by id; ``recall``: how recall was
    judged (``"recomputed"``); ``embedder``: the model name (None when
    nothing dated was walked and no model was loaded); ``min_tasks``:
    the minimum sample per side.
    """

    tasks: int
    undated_tasks: int
    corrections: int
    repeats: list[RepeatCorrection]
    lessons: list[LessonReplay]
    recall: str
    embedder: str | None
    min_tasks: int

    @property
    def in_room(self) -> int:
        return sum(1 for r in self.repeats if r.in_room)

    @property
    def in_room_rate(self) -> float | None:
        return self.in_room / len(self.repeats) if self.repeats else None

    def lesson(self, rule_id: str) -> LessonReplay | None:
        return next((x for x in self.lessons if x.rule == rule_id), None)

    def to_json(self) -> dict:
        rate = self.in_room_rate
        return {
            "tasks": self.tasks, "undated_tasks": self.undated_tasks, "corrections": self.corrections,
            "repeat_corrections": len(self.repeats), "in_room": self.in_room,
            "in_room_rate": None if rate is None else round(rate, 3),
            "in_room_by": dict(Counter(r.via for r in self.repeats if r.via)),
            "repeats": [r.to_json() for r in self.repeats],
            "lessons": [x.to_json() for x in self.lessons],
            "recall": self.recall, "embedder": self.embedder, "min_tasks": self.min_tasks,
        }


def _fields(raw) -> dict:
    if isinstance(raw, dict):
        return raw
    try:
        return json.loads(raw or "{}")
    except ValueError:
        return {}


def request_text(title: str | None, fields: dict) -> str:
    """What the agent had when a task started: its title and request."""
    request = " ".join(str(fields.get("request") or "").split())
    title = " ".join(str(title or "").split())
    return f"{title}. {request}" if title and request else (title or request)


def class_tags(tag_lists: list[list[str]]) -> set[str]:
    """Tags carried by at least half of ``tag_lists`` (the evidence tasks)."""
    if not tag_lists:
        return set()
    counts = Counter(t for tags in tag_lists for t in set(tags))
    return {t for t, n in counts.items() if 2 * n >= len(tag_lists)}


def replay(
    config: Config,
    store: Store,
    *,
    embedder: Embedder | None = None,
    rules: list[Rule] | None = None,
) -> Replay:
    """Walk the vault's tasks in date order and measure repeats (docs/learning-loop.md, section 7).

    ``rules``: all rule pages when the caller has them (default: read).
    Loads the embedding model (one encode call for the tasks' requests);
    page vectors come from the cache (pages never embedded are embedded).
    With no dated task and no dated correction nothing is loaded.
    """
    th = config.thresholds
    rules = rules if rules is not None else list_rules(store)
    lessons = [r for r in rules if r.status in LESSON_STATUSES and r.evidence]

    tasks = {t["id"]: t for t in q.tasks(store)}
    fields = {r["id"]: _fields(r["fields"]) for r in rstore.task_rows(store, None)}
    corrs = {c["id"]: c for c in q.corrections(store) if c["status"] != "dismissed"}
    dates = {t: d for t, row in tasks.items() if (d := _date(row["created"]))}
    order = sorted(dates, key=lambda t: (dates[t], t))
    rank = {t: i for i, t in enumerate(order)}

    # Where each correction sits in the walk: its earliest dated task, else its own date.
    place: dict[str, tuple[str, str, str | None]] = {}
    for cid, c in corrs.items():
        dated = sorted((dates[t], t) for t in c["tasks"] if t in dates)
        if dated:
            place[cid] = (dated[0][0], dated[0][1], dated[0][1])
        elif (d := _date(c["created"])) is not None:
            place[cid] = (d, cid, None)
    # Nothing dated to walk: no repeat, no task class, no recall to
    # recompute, so no vector is needed and the model (~1.3 GB, seconds of
    # CPU) is not loaded; every lesson comes out empty.
    walk = bool(order or place)
    emb = embedder or (get_embedder(config) if walk else loaded_embedder(config))
    rejected = _rejected(store, rules)

    def key(cid: str) -> tuple[str, str]:
        d, k, _ = place[cid]
        return d, k

    # -- lessons: evidence, then the nearest lesson for other corrections ----------
    cvecs = page_vectors(config, store, list(corrs), refresh=False) if walk else {}
    evidence = {r.id: [c for c in r.evidence if c in corrs] for r in lessons}
    centroids = {rid: centroid([cvecs[c] for c in ev if c in cvecs]) for rid, ev in evidence.items()}
    members: dict[str, set[str]] = {rid: set(ev) for rid, ev in evidence.items()}
    is_evidence = {c for ev in evidence.values() for c in ev}
    for cid in corrs:
        # A correction of a rejected candidate was judged no lesson: it is
        # folded into no look-alike lesson either.
        if cid in is_evidence or cid in rejected or cid not in cvecs:
            continue
        scored = sorted(
            ((float(cvecs[cid] @ cen), rid) for rid, cen in centroids.items() if cen is not None), key=lambda x: (-x[0], x[1])
        )
        if scored and scored[0][0] >= th.lesson_similarity:
            members[scored[0][1]].add(cid)

    # -- request vectors (one encode call) and task page vectors (cache) -------------
    texts = [request_text(tasks[t]["title"], fields.get(t, {})) for t in order]
    rvecs = {t: v for t, v, s in zip(order, emb.encode(texts) if texts and emb else [], texts) if s}
    pvecs = page_vectors(config, store, order, refresh=False)

    # Recall as the agent gets it, over what existed when each task started.
    task_pages = {t.id: t for t in pstore.tasks(store, order)}
    served_by = {t: [c for c in cs if c in corrs and c in place]
                 for t, cs in task_corrections(store, order).items()}
    recall_cache: dict[str, set[str]] = {}

    def recalled(task: str) -> set[str]:
        """Corrections recall of ``task``'s request would have served."""
        if task in recall_cache:
            return recall_cache[task]
        out: set[str] = set()
        qv = rvecs.get(task)
        start = (dates[task], task)
        prior = [t for t in order[: rank[task]] if t in task_pages]
        if qv is not None and prior:
            known = {t: [c for c in served_by.get(t, []) if key(c) < start] for t in prior}
            task_sims = {t: float(pvecs[t] @ qv) for t in prior if t in pvecs}
            corr_sims = {c: float(cvecs[c] @ qv) for cs in known.values() for c in cs if c in cvecs}
            # recall's candidate pool: the nearest tasks, the tasks of the
            # nearest corrections, and the tasks whose title shares a word
            qwords = words(texts[rank[task]])
            pool = set(sorted(task_sims, key=lambda t: (-task_sims[t], t))[:CANDIDATES])
            near = set(sorted(corr_sims, key=lambda c: (-corr_sims[c], c))[:CANDIDATES])
            pool |= {t for t, cs in known.items() if near & set(cs)}
            pool |= set(word_matches(((t, task_pages[t].title) for t in prior), qwords))
            rows = [task_pages[t] for t in prior if t in pool]
            for t in rows:
                task_sims.setdefault(t.id, 0.0)
            kept = score_tasks(rows, {t.id: known[t.id] for t in rows}, task_sims, corr_sims, cvecs,
                               qwords, th)
            out = {c for item in kept for c in known[item.id]}
        recall_cache[task] = out
        return out

    # -- the walk: repeats and whether their lesson was in the room -------------------
    by_rule = {r.id: r for r in lessons}
    later = _linked_after_approval(store, {r.id: _date(r.activated) for r in lessons})
    approved_from: dict[str, set[str]] = {}
    for r in lessons:
        if _date(r.activated) is None:
            approved_from[r.id] = set()
        else:
            # The approval record: the rule page's own evidence links
            # (promoted_from), whatever the corrections' dates, but for
            # those linked to it after it was approved (a repeat a person
            # attached to the live rule).
            approved_from[r.id] = set(evidence[r.id]) - later.get(r.id, set())

    # Dates are days (``activated`` is the day of the approval): a task on
    # that day may have run before the person approved, so it is not taken
    # as one the rule was active for (no repeat is put down to doctrine)
    # and counts on neither side of the before/after split below.
    def active_on(r: Rule, day: str) -> bool:
        since, until = _date(r.activated), _date(r.retired)
        return since is not None and since < day and (until is None or day < until)

    repeats: list[RepeatCorrection] = []
    repeat_ids: dict[str, set[str]] = {}
    for rid, ms in members.items():
        placed = sorted((c for c in ms if c in place), key=lambda c: (key(c), c))
        if not placed:
            continue
        first = placed[0]
        for cid in placed:
            if key(cid) <= key(first):
                continue
            day, _, task = place[cid]
            rule = by_rule[rid]
            via = None
            if active_on(rule, day) and cid not in approved_from[rid]:
                via = "doctrine"
            elif task is not None and members[rid] & recalled(task):
                via = "recall"
            repeats.append(RepeatCorrection(cid, rid, task, day, via is not None, via, first))
            repeat_ids.setdefault(rid, set()).add(cid)
    repeats.sort(key=lambda r: (key(r.correction), r.correction, r.lesson))

    # -- task classes and before / after ---------------------------------------------
    out: list[LessonReplay] = []
    for r in lessons:
        rid = r.id
        ev_tasks = sorted({t for c in evidence[rid] for t in corrs[c]["tasks"] if t in dates})
        klass: dict[str, ClassTask] = {}
        for c in sorted(members[rid]):
            for t in corrs[c]["tasks"]:
                if t in dates:
                    klass[t] = ClassTask(t, dates[t], "correction")
        cen = centroid([rvecs[t] for t in ev_tasks if t in rvecs])
        tags = class_tags([tasks[t]["tags"] for t in ev_tasks])
        need = min(th.task_class_tags, len(tags))
        for t in order:
            if t in klass:
                continue
            sim = float(rvecs[t] @ cen) if cen is not None and t in rvecs else None
            if sim is not None and sim >= th.rule_task_similarity:
                klass[t] = ClassTask(t, dates[t], "similar", sim)
            elif need and len(tags & set(tasks[t]["tags"])) >= need:
                klass[t] = ClassTask(t, dates[t], "tags", sim)
        class_list = sorted(klass.values(), key=lambda x: (x.date, x.task))
        again = {place[c][2] for c in repeat_ids.get(rid, ()) if place[c][2] is not None}
        held = {place[c][2] for c in approved_from[rid] if c in place and place[c][2] is not None}
        since, until = _date(r.activated), _date(r.retired)
        before, after = Side(), (Side() if since is not None else None)
        for ct in class_list:
            if after is not None and ct.task not in held and ct.date == since:
                continue  # the approval's own day: before or after it is unknown
            if after is not None and ct.task not in held and ct.date > since:
                if until is not None and ct.date >= until:
                    continue
                side = after
            else:
                side = before
            side.tasks.append(ct.task)
            if ct.task in again:
                side.repeated.append(ct.task)
        if after is None:
            verdict = NOT_ACTIVE
        elif len(before.tasks) < th.replay_min_tasks or len(after.tasks) < th.replay_min_tasks:
            verdict = TOO_LITTLE
        else:
            # Repeats the before rate predicts for the after side, minus those seen.
            spared = before.rate * len(after.tasks) - len(after.repeated)
            if spared >= th.replay_min_fewer_tasks - 1e-9:
                verdict = FEWER
            else:
                verdict = SLIGHTLY_FEWER if after.rate < before.rate else NOT_FEWER
        lesson_repeats = [x for x in repeats if x.lesson == rid]
        out.append(LessonReplay(
            rule=rid, title=r.title, status=r.status, activated=since, retired=until,
            corrections=sorted((c for c in members[rid] if c in place), key=lambda c: (key(c), c)),
            evidence=list(evidence[rid]), approved_from=sorted(approved_from[rid]),
            task_class=class_list, before=before, after=after,
            repeats=len(lesson_repeats), repeats_in_room=sum(1 for x in lesson_repeats if x.in_room),
            last_task=class_list[-1].date if class_list else None, verdict=verdict,
        ))
    return Replay(
        tasks=len(order), undated_tasks=len(tasks) - len(order), corrections=len(corrs), repeats=repeats,
        lessons=out, recall="recomputed", embedder=emb.name if emb else None, min_tasks=th.replay_min_tasks,
    )


def _rejected(store: Store, rules: list[Rule]) -> set[str]:
    """The corrections of rejected candidates: a rule page with ``status:
    rejected`` (its evidence), and the ``RejectedCluster`` rows whose page
    is gone or still rejected, as consolidation reads them. The rows of the
    corrections taken out of a rule at its approval are keyed by that
    approved rule, not rejected, so they stay free while its page is there
    (their reason constant lives in the approval gate, which sits above this
    module and is not imported here)."""
    status = {r.id: r.status for r in rules}
    out = {c for r in rules if r.status == "rejected" for c in r.evidence}
    for row in q.rejections(store):
        if status.get(row["rule"], "rejected") == "rejected":
            out.update(row["corrections"])
    return out


#: Operations that make a candidate active (the approval) and that link
#: corrections to a rule (:mod:`brainwork.learn.rules`).
_APPROVALS = ("approve-rule", "supersede-rule")
_LINK = "link-correction"


def _linked_after_approval(store: Store, activated: dict[str, str | None]) -> dict[str, set[str]]:
    """Per rule, the corrections a ``link-correction`` operation still done
    in the undo log linked to it after its approval: after its newest
    approval operation, or, with none logged (a hand-written or imported
    active rule), on or after its ``activated`` day. Rule pages do not say
    when a ``promoted_from`` link was added; the log does."""
    approved: dict[str, int] = {}
    links: list[tuple[int, str, str, list[str]]] = []
    for op in history.listing(store):
        if op.state != "done" or op.kind not in _APPROVALS + (_LINK,):
            continue
        try:
            details = json.loads(op.details or "{}")
        except ValueError:
            continue
        rid = details.get("rule")
        if rid not in activated:
            continue
        if op.kind in _APPROVALS:
            approved[rid] = max(approved.get(rid, 0), op.id)
        else:
            links.append((op.id, rid, str(op.created or "")[:10], list(details.get("corrections") or [])))
    out: dict[str, set[str]] = {}
    for op_id, rid, day, ids in links:
        since = activated[rid]
        after = op_id > approved[rid] if rid in approved else (since is not None and day >= since)
        if after:
            out.setdefault(rid, set()).update(ids)
    return out


def summary_line(lesson: dict) -> str:
    """One line for lists, from :meth:`LessonReplay.to_json`: ``repeats
    0.80 → 0.00 (4/5 → 0/6 tasks): fewer repeats after``; a side without
    tasks shows :data:`NO_FIGURE` as its rate and "no tasks" as its counts
    (``repeats 0.40 → — (2/5 tasks → no tasks): too little data``)."""
    def counts(side: dict | None) -> str:
        return f"{side['repeated']}/{side['tasks']}" if side and side["tasks"] else "no tasks"

    def rate(side: dict | None) -> str:
        return rate_text(side["rate"] if side else None)

    b, a = lesson["before"], lesson["after"]
    if a is None:
        tasks = f"{counts(b)} tasks" if b and b["tasks"] else counts(b)
        return f"repeats {rate(b)} ({tasks} so far): {lesson['verdict']}"
    if b and b["tasks"] and a["tasks"]:
        tasks = f"{counts(b)} → {counts(a)} tasks"
    else:
        tasks = " → ".join(f"{counts(x)} tasks" if x and x["tasks"] else counts(x) for x in (b, a))
    return f"repeats {rate(b)} → {rate(a)} ({tasks}): {lesson['verdict']}"
