"""Recall: the read path of the learning loop.

``recall(config, store, "TASK DESCRIPTION")`` answers "what did earlier
work teach that bears on this task?" — what the doctrine does not already
say (the agent has the doctrine from session start). Prior tasks are ranked
by four terms (task, situation, overlap, lesson) and rendered with their
lessons, sources and tools; docs/learning-loop.md section 3 gives the
formula, the thresholds and the figures that chose them.

Invariants: ``Recall.text`` never exceeds the budget (characters, at least
:data:`~brainwork.thresholds.RECALL_MIN_BUDGET_CHARS`; what did not fit is
counted in its last line, which is whole); every line names a page id; what was
served is logged (:func:`brainwork.store.recall.record_hits`); without
vectors of the current embedder the score is the word overlap alone.
:func:`recall` never embeds pages itself (it must answer well under 200 ms
on a warm 10,000-page vault): callers run
:func:`brainwork.learn.embed.embed_pages` first, or, while the store's owner
is still embedding, pass a :class:`Coverage`: tasks without a vector are
then ranked by their word overlap beside the others, and the answer says so
in its second line.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

import numpy as np

from brainwork.config import Config
from brainwork.learn.embed import Embedder, get_embedder
from brainwork.store import Store
from brainwork.store import prior as pstore
from brainwork.store import recall as rstore
from brainwork.store import vectors as vstore
from brainwork.thresholds import RECALL_MIN_BUDGET_CHARS
from brainwork.vocabulary import THING_TYPES
from brainwork.wording import counted

#: Candidates fetched from each vector search (tasks, corrections) before
#: scoring, and the most tasks added for sharing a title word with the
#: description (:func:`word_matches`).
CANDIDATES = 40
#: Best-scoring tasks whose corrections define "the same lesson" for the
#: ``lesson`` term (two: one task may carry a one-off next to the lesson).
ANCHORS = 2
#: Longest rendering of one field (characters) inside a recall line.
FIELD_CHARS = 220
#: Pages listed in the compact index at most (the budget usually cuts first).
INDEX_PAGES = 60
#: Page types listed first in the index, in this order: the things, then rules.
INDEX_ORDER = (*THING_TYPES, "rule", "tool", "source", "decision", "artifact", "task", "correction")

_WORD = re.compile(r"[a-z0-9][a-z0-9+#.-]*[a-z0-9+#]|[a-z0-9]")
STOPWORDS = frozenset(
    """a an and are as at be but by for from has have how i if in into is it its of on or our
    please should so that the their them then there these this to was we were what when which
    who why will with you your do does did done make made new get got set up out need needs task
    again also all any can could would""".split()
)


@dataclass
class RecallItem:
    """One page recall served: ``kind`` (``task``, ``correction``,
    ``source``, ``tool``), its ``id`` and ``title``, ``text`` (the compact
    line's content), ``via`` (the task it hangs off, for one-hop items).

    Tasks also carry ``rank`` (1 = best), ``score`` (the combined score) and
    its terms: ``similarity`` (description vs task page), ``situation``
    (vs its best correction), ``overlap`` (title/tag words, 0..1) and
    ``lesson`` (same lesson as the best tasks)."""

    kind: str
    id: str
    title: str
    text: str
    via: str | None = None
    score: float | None = None
    similarity: float | None = None
    overlap: float | None = None
    rank: int | None = None
    situation: float | None = None
    lesson: float | None = None


@dataclass(frozen=True)
class Coverage:
    """How many pages have a vector of the current embedder as recall
    answers: ``embedded`` of ``pages``; ``missing`` the ids without an
    up-to-date one; ``embedding`` True while the owner's pass is embedding
    them (:mod:`brainwork.service.embedding`)."""

    pages: int
    embedded: int
    missing: frozenset[str] = frozenset()
    embedding: bool = False

    @classmethod
    def waiting(cls, pages: int, missing: frozenset[str]) -> "Coverage":
        """``pages`` looked at, ``missing`` still waiting for the owner's pass."""
        return cls(pages=pages, embedded=pages - len(missing), missing=missing, embedding=True)

    def note(self) -> str:
        """The answer's line about it ("" when every page has its vector)."""
        if not self.missing:
            return ""
        have = f"vectors for {self.embedded} of {counted(self.pages, 'page')}"
        if self.embedding:
            return f"embedding in progress: {have}; results for the rest by words"
        return f"{have}; results for the rest by words (`brainwork embed` embeds them)"


@dataclass
class Recall:
    """A recall answer.

    ``text`` is the Markdown block (at most ``budget`` characters, ``chars``
    its length); ``tasks`` the prior tasks, best first; ``related`` their
    lessons, sources and tools (``via`` names the task); ``index`` the
    ``(id, title, type)`` entries of the compact index (``index=True``);
    ``served`` the page ids that made it into ``text``; ``left_out`` how many
    lines the budget cut (``truncated`` when any); ``vectors`` False when
    no embeddings served (overlap only); ``embedder`` the embedder's name,
    ``lexical`` True for the fallback. ``rules`` stays empty (the doctrine is
    not part of recall; kept for readers of the JSON). ``note`` the line
    saying that only part of the vault has vectors yet (its ``coverage``),
    "" when all has.
    """

    query: str
    text: str
    chars: int
    budget: int
    rules: list[RecallItem] = field(default_factory=list)
    tasks: list[RecallItem] = field(default_factory=list)
    related: list[RecallItem] = field(default_factory=list)
    index: list[tuple[str, str, str | None]] = field(default_factory=list)
    served: list[str] = field(default_factory=list)
    truncated: bool = False
    left_out: int = 0
    vectors: bool = True
    embedder: str = ""
    lexical: bool = False
    note: str = ""
    coverage: Coverage | None = None

    def to_json(self) -> dict:
        """The shape ``brainwork recall --json`` prints: every key of
        :class:`Recall`; tasks with ``rank``, ``id``, ``score`` and its terms;
        ``related`` items with ``via``; ``index`` as ``{id, title, type}``;
        ``coverage`` as ``{pages, embedded, embedding}`` or null."""
        cov = self.coverage
        return {
            "query": self.query,
            "text": self.text,
            "chars": self.chars,
            "budget": self.budget,
            "truncated": self.truncated,
            "left_out": self.left_out,
            "rules": [asdict(r) for r in self.rules],
            "tasks": [asdict(t) for t in self.tasks],
            "related": [asdict(r) for r in self.related],
            "index": [{"id": i, "title": t, "type": ty} for i, t, ty in self.index],
            "served": self.served,
            "vectors": self.vectors,
            "embedder": self.embedder,
            "lexical": self.lexical,
            "note": self.note,
            "coverage": None if cov is None else {"pages": cov.pages, "embedded": cov.embedded, "embedding": cov.embedding},
        }


def words(text: str) -> set[str]:
    """Content words of ``text``: lower-case, stopwords and 1-letter words dropped."""
    return {w for w in _WORD.findall(str(text or "").lower()) if len(w) > 1 and w not in STOPWORDS}


def word_matches(titles: Iterable[tuple[str, str]], qwords: set[str], limit: int = CANDIDATES) -> list[str]:
    """Ids of the tasks among ``titles`` (``(id, title)`` pairs) whose title
    shares a content word with ``qwords`` (:func:`words` of the
    description), at most ``limit``: those sharing the rarest words first
    (a shared word counts log((titles + 1) / titles holding it), above 0
    even in every title: "cert-manager" in one title says more than "fix"
    in half of them), then by id.

    They join the nearest tasks as candidates, so a task named by the
    description's own term is scored even when its embedding is not among
    the nearest :data:`CANDIDATES`."""
    if not qwords:
        return []
    held: dict[str, set[str]] = {}
    n = 0
    for tid, title in titles:
        n += 1
        low = str(title or "").lower()
        # A substring test first: most titles hold none of the words, and words() is the costly part.
        if any(w in low for w in qwords) and (shared := qwords & words(low)):
            held[tid] = shared
    df = Counter(w for shared in held.values() for w in shared)
    weight = {w: math.log((n + 1) / c) for w, c in df.items()}
    return sorted(held, key=lambda i: (-sum(weight[w] for w in held[i]), i))[:limit]


def _one_line(text, limit: int = FIELD_CHARS) -> str:
    s = " ".join(str(text or "").split())
    return s if len(s) <= limit else s[: limit - 1].rstrip() + "…"


# -- ranking -----------------------------------------------------------------------
def _task_text(t: pstore.TaskRow) -> str:
    f = t.fields
    meta = ", ".join(str(x) for x in (f.get("outcome"), t.created) if x)
    return _one_line(t.title, 160) + (f" ({meta})" if meta else "")


def _qualifies(n: pstore.Neighbour) -> bool:
    f = n.fields
    if n.edge == "CORRECTED_BY":
        return (n.status or f.get("status")) not in ("dismissed", "proposed")
    if n.edge == "CITED":
        return str(f.get("reliability") or "").strip().lower() == "held-up"
    return str(f.get("right_choice") or "").strip().lower() in ("true", "yes")


_HOPS = {"CORRECTED_BY": "correction", "CITED": "source", "USED": "tool"}


def task_corrections(store: Store, ids: list[str]) -> dict[str, list[str]]:
    """``{task id: [its corrections recall serves]}`` (not dismissed, not
    still proposed) for tasks ``ids``; every id is a key."""
    corrections: dict[str, list[str]] = {i: [] for i in ids}
    for n in pstore.neighbours(store, ids, {"CORRECTED_BY": "correction"}):
        if _qualifies(n):
            corrections[n.via].append(n.id)
    return corrections


def rank_tasks(
    config: Config, store: Store, description: str, embedder: Embedder | None = None,
    missing: frozenset[str] = frozenset(),
) -> tuple[list[RecallItem], bool]:
    """Prior tasks relevant to ``description``, best first, each with its
    ``rank``, ``score`` and the score's terms (module doc), at most
    ``recall_tasks`` of those reaching ``recall_min_similarity``.
    ``missing``: page ids not embedded yet; the tasks among them that the
    vector search cannot see are scored by word overlap alone, as without
    any vectors. Candidates: the :data:`CANDIDATES` nearest tasks, the
    tasks of the nearest corrections, and the tasks whose title shares a
    word with the description (:func:`word_matches`).

    Returns ``(tasks, used_vectors)``; ``used_vectors`` is False when no
    embedding of the current embedder exists (ranking by overlap alone).
    """
    th = config.thresholds
    emb = embedder or get_embedder(config)
    qwords = words(description)
    used_vectors = vstore.count(store, emb.name) > 0
    if not used_vectors:
        return _cut(_by_words(pstore.tasks(store, None), qwords), th), False

    q = emb.encode_one(description)
    task_sims = dict(vstore.nearest(store, q, CANDIDATES, type="task", model=emb.name))
    corr_sims = dict(vstore.nearest(store, q, CANDIDATES, type="correction", model=emb.name))
    owners = pstore.tasks_of_corrections(store, list(corr_sims))
    # Tasks still waiting for their vector are left to the word-only path below.
    titled = ((r.id, r.title) for r in pstore.titles(store, type="task") if r.id not in missing)
    named = word_matches(titled, qwords)
    cands = set(task_sims) | {t for ts in owners.values() for t in ts} | set(named)
    rows = pstore.tasks(store, sorted(cands))
    ids = [t.id for t in rows]
    corrections = task_corrections(store, ids)
    all_corr = sorted({c for cs in corrections.values() for c in cs})
    vecs = vstore.vectors(store, [i for i in ids if i not in task_sims] + all_corr, model=emb.name)
    for i in ids:
        if i not in task_sims:
            task_sims[i] = float(vecs[i] @ q) if i in vecs else 0.0
    for c in all_corr:
        if c not in corr_sims and c in vecs:
            corr_sims[c] = float(vecs[c] @ q)

    ranked = score_tasks(rows, corrections, task_sims, corr_sims, vecs, qwords, th)
    unseen = sorted(i for i in missing if i not in task_sims)
    if not unseen:
        return ranked, True
    # Not embedded yet and not reached through a correction either: by
    # words, each on the floor the overlap-only path uses.
    worded = [x for x in _by_words(pstore.tasks(store, unseen), qwords) if (x.score or 0.0) >= th.recall_min_similarity]
    return _cut(ranked + worded, th, floor=None), True


def _by_words(rows: list[pstore.TaskRow], qwords: set[str]) -> list[RecallItem]:
    """Tasks scored by word overlap alone (no vector to compare)."""
    scored = []
    for t in rows:
        ov = _overlap(qwords, t)
        scored.append(RecallItem("task", t.id, t.title, _task_text(t), score=round(ov, 4), similarity=0.0,
                                 overlap=round(ov, 4), situation=0.0, lesson=0.0))
    return scored


def score_tasks(
    rows: list[pstore.TaskRow],
    corrections: dict[str, list[str]],
    task_sims: dict[str, float],
    corr_sims: dict[str, float],
    vecs: dict[str, np.ndarray],
    qwords: set[str],
    th,
) -> list[RecallItem]:
    """The ranking of :func:`rank_tasks` over given candidates (module doc):
    ``rows`` the candidate tasks, ``corrections`` their qualifying
    corrections by task id, ``task_sims``/``corr_sims`` the description's
    cosine to each task / correction, ``vecs`` the corrections' vectors (for
    the lesson term), ``qwords`` the description's content words. Best
    first, cut as recall cuts. The replay ranks the tasks dated before a
    task with it (:mod:`brainwork.learn.replay`), so "recall would have
    served it" means what recall serves.
    """
    base: dict[str, tuple[float, float, float]] = {}
    for t in rows:
        situation = max((corr_sims.get(c, 0.0) for c in corrections[t.id]), default=0.0)
        base[t.id] = (task_sims.get(t.id, 0.0), situation, _overlap(qwords, t))

    def base_score(i: str) -> float:
        s, sit, ov = base[i]
        return s + th.recall_situation_weight * sit + th.recall_overlap_weight * ov

    def evidence(i: str) -> float:
        s, sit, ov = base[i]
        return max(s, sit) + th.recall_overlap_weight * ov

    order = sorted((t.id for t in rows), key=lambda i: (-base_score(i), i))
    anchors = [i for i in order if evidence(i) >= th.recall_min_similarity][:ANCHORS]
    anchor_vecs = [vecs[c] for a in anchors for c in corrections[a] if c in vecs]
    amat = np.stack(anchor_vecs) if anchor_vecs else None
    scored = []
    for t in rows:
        lesson = 0.0
        mine = [vecs[c] for c in corrections[t.id] if c in vecs]
        if amat is not None and mine:
            lesson = float(np.max(np.stack(mine) @ amat.T))
        s, sit, ov = base[t.id]
        total = base_score(t.id) + th.recall_lesson_weight * lesson
        # A task joins on its own evidence, or, once some task did, on its whole score.
        if evidence(t.id) < th.recall_min_similarity and (not anchors or total < th.recall_min_similarity):
            continue
        scored.append(RecallItem("task", t.id, t.title, _task_text(t), score=round(total, 4), similarity=round(s, 4),
                                 overlap=round(ov, 4), situation=round(sit, 4), lesson=round(lesson, 4)))
    return _cut(scored, th, floor=None)


def _overlap(qwords: set[str], t: pstore.TaskRow) -> float:
    twords = words(t.title) | words(" ".join(str(x) for x in t.tags))
    return len(qwords & twords) / len(qwords) if qwords else 0.0


def _cut(scored: list[RecallItem], th, floor: float | None = 0.0) -> list[RecallItem]:
    """Best first, at most ``recall_tasks``, ranked 1..n; with ``floor``
    (default ``recall_min_similarity``) only scores reaching it."""
    floor = th.recall_min_similarity if floor == 0.0 else floor
    kept = sorted((x for x in scored if floor is None or (x.score or 0.0) >= floor), key=lambda x: (-(x.score or 0.0), x.id))
    kept = kept[: th.recall_tasks]
    for k, x in enumerate(kept, 1):
        x.rank = k
    return kept


def in_doctrine(store: Store, correction_ids: list[str]) -> set[str]:
    """The corrections among ``correction_ids`` promoted to an active rule:
    the doctrine states their lesson, which the agent has from session
    start (a rule retired since no longer does)."""
    return {n.via for n in pstore.neighbours(store, correction_ids, {"PROMOTED_TO": "rule"})
            if (n.status or n.fields.get("status")) == "active"}


def one_hop(store: Store, task_ids: list[str]) -> list[RecallItem]:
    """What each task teaches: its corrections (not dismissed or still
    proposed, and not the evidence an active rule was promoted from: the
    doctrine is not repeated) as ``wrong -> correct (why)``, the sources it
    cited that held up, the tools it used that were the right choice; in
    task order, then corrections, sources, tools."""
    if not task_ids:
        return []
    by_task: dict[str, list[RecallItem]] = {t: [] for t in task_ids}
    seen: set[tuple[str, str]] = set()
    rows = pstore.neighbours(store, task_ids, _HOPS)
    doctrine = in_doctrine(store, sorted({n.id for n in rows if n.edge == "CORRECTED_BY"}))
    rows = [n for n in rows if not (n.edge == "CORRECTED_BY" and n.id in doctrine)]
    for edge in _HOPS:
        for n in (n for n in rows if n.edge == edge and _qualifies(n)):
            f = n.fields
            kind = _HOPS[edge]
            if kind == "correction":
                text = f"{_one_line(f.get('wrong'), 160)} -> {_one_line(f.get('correct'))}"
                if f.get("why"):
                    text += f" ({_one_line(f.get('why'), 160)})"
            elif kind == "source":
                ref = f.get("ref")
                text = _one_line(n.title, 160) + (f" <{_one_line(ref, 160)}>" if ref else "")
            else:
                text = _one_line(f.get("name") or n.title, 160)
            if (n.via, n.id) in seen:
                continue
            seen.add((n.via, n.id))
            by_task[n.via].append(RecallItem(kind, n.id, n.title, text, via=n.via))
    return [x for t in task_ids for x in by_task[t]]


def page_index(store: Store, q=None, model: str | None = None, limit: int = INDEX_PAGES) -> list[tuple[str, str, str | None]]:
    """``(id, title, type)`` of at most ``limit`` pages for the compact index:
    with a query vector ``q``, the pages nearest it (any type); without, the
    pages in :data:`INDEX_ORDER` type order, then by id."""
    rows = {r.id: r for r in pstore.titles(store)}
    if q is not None:
        ids = [i for i, _ in vstore.nearest(store, q, limit, model=model) if i in rows]
    else:
        rank = {t: k for k, t in enumerate(INDEX_ORDER)}
        ids = sorted(rows, key=lambda i: (rank.get(rows[i].type or "", len(rank)), i))[:limit]
    return [(i, rows[i].title, rows[i].type) for i in ids]


# -- the answer --------------------------------------------------------------------
LABELS = {"correction": "lesson", "source": "held up", "tool": "right tool"}


def recall(
    config: Config,
    store: Store,
    description: str,
    budget: int | None = None,
    *,
    embedder: Embedder | None = None,
    record: bool = True,
    index: bool = False,
    coverage: Coverage | None = None,
) -> Recall:
    """The compact recall answer for a task description; see the module doc.

    Args:
        budget: characters of ``Recall.text``, a hard cap (default
            ``config.thresholds.recall_budget_chars``, at least
            :data:`~brainwork.thresholds.RECALL_MIN_BUDGET_CHARS`); lines
            that do not fit are left out and counted in the last line.
        embedder: default :func:`brainwork.learn.embed.get_embedder` (config).
        record: log the served pages as recall hits (for pruning).
        index: add the compact index of page titles after the tasks.
        coverage: part of the vault has no vectors yet (the owner is
            embedding): tasks among ``coverage.missing`` are ranked by
            words, and the answer's second line says so.

    Raises:
        UserError: an empty description, or a budget under
            :data:`~brainwork.thresholds.RECALL_MIN_BUDGET_CHARS`.
    """
    from brainwork.errors import UserError

    description = " ".join(str(description or "").split())
    if not description:
        raise UserError("describe the task to recall for")
    budget = config.thresholds.recall_budget_chars if budget is None else int(budget)
    if budget < RECALL_MIN_BUDGET_CHARS:
        raise UserError(f"the recall budget must be at least {RECALL_MIN_BUDGET_CHARS} characters, got {budget} "
                        "(less holds no task beside the line counting what was left out)")
    emb = embedder or get_embedder(config)
    missing = coverage.missing if coverage is not None else frozenset()
    tasks, used_vectors = rank_tasks(config, store, description, emb, missing)
    related = one_hop(store, [t.id for t in tasks])
    entries: list[tuple[str, RecallItem | None]] = [(f"# Recall: {_one_line(description, 120)}", None)]
    note = coverage.note() if coverage is not None else ""
    if note:
        entries.append((note, None))
    best: int | None = None
    if tasks:
        entries.append(("Prior tasks that bear on this one, best first, with what they taught "
                        "(the doctrine is not repeated here).", None))
        best = len(entries)
        for t in tasks:
            entries.append((f"## {t.rank}. {t.text} — {t.id} [{t.score:.2f}]", t))
            f = _task_fields(store, t.id)
            if f.get("request"):
                entries.append((f"asked: {_one_line(f['request'])}", None))
            for x in (x for x in related if x.via == t.id):
                entries.append((f"- {LABELS[x.kind]} ({x.id}): {x.text}", x))
    else:
        entries.append(("No prior task is similar enough.", None))
    idx: list[tuple[str, str, str | None]] = []
    if index:
        q = emb.encode_one(description) if used_vectors else None
        idx = page_index(store, q, emb.name if used_vectors else None)
        if idx:
            entries.append(("## Index (pages nearest this task)", None))
            entries.extend((f"- {title} ({pid})", RecallItem("index", pid, title, title)) for pid, title, _ in idx)
    text, served, left = fit(entries, budget, keep=best, squeeze=_task_heading(tasks[0]) if tasks else None)
    if record:
        rstore.record_hits(store, [(x.id, x.kind) for x in served], description)
    return Recall(
        query=description, text=text, chars=len(text), budget=budget, tasks=tasks, related=related, index=idx,
        served=[x.id for x in served], truncated=left > 0, left_out=left, vectors=used_vectors,
        embedder=emb.name, lexical=emb.lexical, note=note, coverage=coverage if note else None,
    )


def _task_fields(store: Store, task_id: str) -> dict:
    rows = pstore.tasks(store, [task_id])
    return rows[0].fields if rows else {}


#: The first line's length in an answer squeezed to show the best task
#: (characters; :func:`fit`): "# Recall: " and about 40 characters of the
#: description, which the agent wrote itself.
SQUEEZED_HEAD_CHARS = 50
#: Fewest characters of the best task's title a squeezed answer shows; with
#: less room for it the answer stays without the task.
SQUEEZED_TITLE_CHARS = 12


def _task_heading(t: RecallItem):
    """``squeeze(room)`` for :func:`fit`: task ``t``'s heading line in at
    most ``room`` characters, whole when it fits, else its rank, title (cut
    with "…") and id without the score; None when not even
    :data:`SQUEEZED_TITLE_CHARS` of the title fit beside the id."""
    full = f"## {t.rank}. {t.text} — {t.id} [{t.score:.2f}]"

    def squeeze(room: int) -> str | None:
        if len(full) <= room:
            return full
        fixed = len(f"## {t.rank}.  — {t.id}")
        if room - fixed < SQUEEZED_TITLE_CHARS:
            return None
        return f"## {t.rank}. {_one_line(t.title, room - fixed)} — {t.id}"

    return squeeze


def fit(
    entries: list[tuple[str, RecallItem | None]], budget: int, *, keep: int | None = None, squeeze=None,
) -> tuple[str, list[RecallItem], int]:
    """Lay ``entries`` (line, the item it serves) out in order within
    ``budget`` characters (newlines counted): the first line that does not
    fit ends the answer, and a last line says how many were left out. Lines
    are never cut mid-way: to make room for that last line whole, the lines
    before it give way from the end; a budget too small for it alone gets
    "" (recall's least budget always holds it). Returns ``(text, served
    items, lines left out)``.

    ``keep``: the index of the line an answer must not go without (the best
    task's heading: an answer of its header alone tells the agent nothing)
    and ``squeeze(room)`` its text in at most ``room`` characters, or None.
    When the lines before it leave it no room, those between the first line
    and it are left out (and counted), the first line is cut to
    :data:`SQUEEZED_HEAD_CHARS`, the kept line is squeezed into what
    remains, and the lines after it follow as far as they fit. When even
    that does not fit, the answer is the plain layout."""
    text, served, left = _lay(entries, budget)
    if keep is None or squeeze is None or any(x is entries[keep][1] for x in served):
        return text, served, left
    head = _one_line(entries[0][0], SQUEEZED_HEAD_CHARS)
    skipped = keep - 1
    after = len(entries) - keep - 1
    tail = _more(skipped + after) if skipped + after else ""
    room = budget - (len(head) + 1) - 1 - (len(tail) + 1 if tail else 0)
    line = squeeze(room) if room > 0 else None
    if line is None:
        return text, served, left
    return _lay([(head, entries[0][1]), (line, entries[keep][1]), *entries[keep + 1 :]], budget, skipped)


def _lay(entries: list[tuple[str, RecallItem | None]], budget: int, skipped: int = 0) -> tuple[str, list[RecallItem], int]:
    """:func:`fit`'s plain layout; ``skipped`` lines were left out before
    these and count in the last line."""
    lines: list[str] = []
    served: list[RecallItem] = []
    size = 0
    for k, (line, item) in enumerate(entries):
        rest = len(entries) - k - 1 + skipped
        note = "" if rest == 0 else _more(rest)
        need = len(line) + 1 + (len(note) + 1 if note else 0)
        if size + need > budget:
            left = len(entries) - k + skipped
            tail = _more(left)
            while lines and size + len(tail) + 1 > budget:
                size -= len(lines.pop()) + 1
                left += 1
                tail = _more(left)
                served = [s for s in served if any(s.id in ln for ln in lines)]
            if size + len(tail) + 1 <= budget:
                lines.append(tail)
            text = ("\n".join(lines) + "\n") if lines else ""
            return text, served, left
        lines.append(line)
        size += len(line) + 1
        if item is not None:
            served.append(item)
    if skipped:
        lines.append(_more(skipped))
    return "\n".join(lines) + "\n", served, skipped


def _more(n: int) -> str:
    return f"… {n} more line{'s' if n != 1 else ''} left out (budget reached: `brainwork recall --budget N`)"
