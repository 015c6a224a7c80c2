"""Recall: the read path of the learning loop (issue 4 §6).

``recall(config, store, "TASK DESCRIPTION")`` answers "what do I already
know that bears on this task?" compactly, in this order:

1. the doctrine: every active rule (:mod:`brainwork.learn.doctrine`), one
   line each, within :data:`DOCTRINE_SHARE` of the budget (the rest are
   named as a count: ``brainwork doctrine`` prints them all);
2. the most relevant prior tasks: vector search over the task embeddings
   (:func:`brainwork.store.vectors.nearest`, the query embedded with one
   encode call), re-ranked by title/tag overlap (score = cosine +
   ``recall_overlap_weight`` x the share of the description's words found
   in the task's title and tags); a task joins when its score reaches
   ``recall_min_similarity`` and ``recall_relative_cutoff`` x the best
   task's score, at most ``recall_tasks`` of them (:mod:`brainwork.thresholds`);
3. one hop out from each of those tasks along its typed edges: the
   corrections it received (``corrected_by``; dismissed ones left out), the
   sources it cited that held up (``reliability: held-up``) and the tools it
   used that were the right choice (``right_choice: true``).

Everything is rendered as Markdown lines that each name a page id, added in
that order until the character budget (default ``recall_budget_chars``) is
reached — never the whole graph. What was served is logged
(:func:`brainwork.store.recall.record_hits`) for pruning rules nobody needs.

:func:`recall` does not embed pages itself (it must answer in well under
200 ms on a warm 10,000-page vault); callers run
:func:`brainwork.learn.embed.embed_pages` first (the CLI does). Without
vectors of the current embedder it falls back to title/tag overlap alone and
says so (``Recall.vectors`` False).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field

from brainwork.config import Config
from brainwork.learn.embed import Embedder, get_embedder
from brainwork.store import Store
from brainwork.store import recall as rstore
from brainwork.store import vectors as vstore

#: Task candidates fetched from the vector search before re-ranking.
CANDIDATES = 40
#: Share of the budget the doctrine may take, so prior work always has room
#: (the full doctrine is `brainwork doctrine`; a session hook loads it anyway).
DOCTRINE_SHARE = 0.6
#: Longest rendering of one field (characters) inside a recall line.
FIELD_CHARS = 220

_WORD = re.compile(r"[a-z0-9][a-z0-9+#.-]*[a-z0-9+#]|[a-z0-9]")
STOPWORDS = frozenset(
    """a an and are as at be but by for from has have how i if in into is it its of on or our
    please should so that the their them then there these this to was we were what when which
    who why will with you your do does did done make made new get got set up out need needs task
    again also all any can could would""".split()
)


@dataclass
class RecallItem:
    """One page recall served: ``kind`` (``rule``, ``task``, ``correction``,
    ``source``, ``tool``), its ``id`` and ``title``, ``text`` (the compact
    line's content), ``via`` (the task it hangs off, for one-hop items) and
    ``score`` (tasks: combined score; others None)."""

    kind: str
    id: str
    title: str
    text: str
    via: str | None = None
    score: float | None = None
    similarity: float | None = None
    overlap: float | None = None


@dataclass
class Recall:
    """A recall answer.

    ``text`` is the Markdown block (at most ``budget`` characters, ``chars``
    its length); ``rules`` the doctrine items, ``tasks`` the prior tasks,
    ``related`` the one-hop items (corrections, sources, tools), each
    ``RecallItem`` naming its page; ``served`` the page ids that made it into
    ``text``; ``truncated`` True when the budget cut something;
    ``vectors`` False when no embeddings served (overlap only);
    ``embedder`` the embedder's name, ``lexical`` True for the fallback.
    """

    query: str
    text: str
    chars: int
    budget: int
    rules: list[RecallItem] = field(default_factory=list)
    tasks: list[RecallItem] = field(default_factory=list)
    related: list[RecallItem] = field(default_factory=list)
    served: list[str] = field(default_factory=list)
    truncated: bool = False
    vectors: bool = True
    embedder: str = ""
    lexical: bool = False

    def to_json(self) -> dict:
        """The shape ``brainwork recall --json`` prints."""
        return {
            "query": self.query,
            "text": self.text,
            "chars": self.chars,
            "budget": self.budget,
            "truncated": self.truncated,
            "rules": [asdict(r) for r in self.rules],
            "tasks": [asdict(t) for t in self.tasks],
            "related": [asdict(r) for r in self.related],
            "served": self.served,
            "vectors": self.vectors,
            "embedder": self.embedder,
            "lexical": self.lexical,
        }


def words(text: str) -> set[str]:
    """Content words of ``text``: lower-case, stopwords and 1-letter words dropped."""
    return {w for w in _WORD.findall(str(text or "").lower()) if len(w) > 1 and w not in STOPWORDS}


def _one_line(text, limit: int = FIELD_CHARS) -> str:
    s = " ".join(str(text or "").split())
    return s if len(s) <= limit else s[: limit - 1].rstrip() + "…"


def _fields(raw) -> dict:
    if isinstance(raw, dict):
        return raw
    try:
        return json.loads(raw or "{}")
    except ValueError:
        return {}


# -- the parts ------------------------------------------------------------------
def _rules(store: Store) -> list[RecallItem]:
    try:
        from brainwork.learn.doctrine import active_rules
    except ImportError:  # the doctrine module is optional for recall
        active_rules = None
    items = []
    if active_rules is not None:
        for r in active_rules(store):
            text = _one_line(r.text or r.title, 300)
            if r.why:
                text += f" — why: {_one_line(r.why, 160)}"
            items.append(RecallItem("rule", r.id, r.title, text))
        return items
    for r in rstore.active_rule_rows(store):
        f = _fields(r["fields"])
        text = _one_line(f.get("rule") or r["title"], 300)
        if f.get("why"):
            text += f" — why: {_one_line(f['why'], 160)}"
        items.append(RecallItem("rule", r["id"], r["title"], text))
    return items


def task_score(similarity: float, overlap: float, thresholds, used_vectors: bool = True) -> float:
    """A prior task's combined score: cosine ``similarity`` plus
    ``recall_overlap_weight`` x ``overlap`` (share of the description's
    content words in the task's title and tags, 0..1); ``overlap`` alone
    without vectors. Shared with :mod:`brainwork.learn.replay`."""
    return similarity + thresholds.recall_overlap_weight * overlap if used_vectors else overlap


def keep_best(scored: list, thresholds, score=lambda x: x[0], key=lambda x: x[1]) -> list:
    """The prior tasks a recall answer keeps of ``scored`` (items with a
    score and an id): at least ``recall_min_similarity``, best first (ties by
    id), at least ``recall_relative_cutoff`` x the best score, at most
    ``recall_tasks``. Shared with :mod:`brainwork.learn.replay`."""
    out = sorted((x for x in scored if score(x) >= thresholds.recall_min_similarity), key=lambda x: (-score(x), key(x)))
    if out:
        floor = score(out[0]) * thresholds.recall_relative_cutoff
        out = [x for x in out if score(x) >= floor]
    return out[: thresholds.recall_tasks]


def rank_tasks(
    config: Config, store: Store, description: str, embedder: Embedder | None = None
) -> tuple[list[RecallItem], bool]:
    """Prior tasks relevant to ``description``, best first, each with
    ``score``, ``similarity`` (cosine) and ``overlap`` (share of the
    description's content words in the task's title and tags, 0..1).

    Returns ``(tasks, used_vectors)``; ``used_vectors`` is False when no
    embedding of the current embedder exists (ranking by overlap alone).
    """
    th = config.thresholds
    emb = embedder or get_embedder(config)
    qwords = words(description)
    sims: dict[str, float] = {}
    used_vectors = vstore.count(store, emb.name) > 0
    if used_vectors:
        q = emb.encode_one(description)
        sims = dict(vstore.nearest(store, q, CANDIDATES, type="task", model=emb.name))
        rows = rstore.task_rows(store, list(sims))
    else:
        rows = rstore.task_rows(store, None)
    out = []
    for r in rows:
        twords = words(r["title"]) | words(" ".join(r["tags"] or []))
        overlap = len(qwords & twords) / len(qwords) if qwords else 0.0
        sim = sims.get(r["id"], 0.0)
        score = task_score(sim, overlap, th, used_vectors)
        if score < th.recall_min_similarity:
            continue
        f = _fields(r["fields"])
        bits = [_one_line(r["title"], 160)]
        meta = ", ".join(x for x in (f.get("outcome"), r.get("created")) if x)
        if meta:
            bits.append(f"({meta})")
        if f.get("summary"):
            bits.append("— " + _one_line(f["summary"]))
        item = RecallItem("task", r["id"], r["title"], " ".join(bits), score=round(score, 4),
                          similarity=round(sim, 4), overlap=round(overlap, 4))
        out.append(item)
    return keep_best(out, th, score=lambda t: t.score or 0.0, key=lambda t: t.id), used_vectors


def one_hop(store: Store, task_ids: list[str]) -> list[RecallItem]:
    """Corrections of these tasks (not dismissed, nor proposed and still
    unconfirmed by a person), the sources they cited
    that held up, the tools they used that were the right choice; in task
    order, then corrections, sources, tools."""
    if not task_ids:
        return []
    found: list[RecallItem] = []
    seen: set[tuple[str, str]] = set()
    tables = {"CORRECTED_BY": "correction", "CITED": "source", "USED": "tool"}
    by_task: dict[str, list[RecallItem]] = {t: [] for t in task_ids}
    rows = rstore.neighbours_out(store, task_ids, tables)
    for kind in ("correction", "source", "tool"):
        for r in (r for r in rows if r["type"] == kind):
            f = _fields(r["fields"])
            if kind == "correction":
                if (r["status"] or f.get("status")) in ("dismissed", "proposed"):
                    continue
                text = (f"wrong: {_one_line(f.get('wrong'), 160)} → correct: {_one_line(f.get('correct'))}"
                        + (f" (why: {_one_line(f.get('why'), 160)})" if f.get("why") else ""))
            elif kind == "source":
                if str(f.get("reliability") or "").strip().lower() != "held-up":
                    continue
                ref = f.get("ref")
                text = f"held up: {_one_line(r['title'], 160)}" + (f" <{_one_line(ref, 160)}>" if ref else "")
            else:
                if str(f.get("right_choice") or "").strip().lower() not in ("true", "yes"):
                    continue
                text = f"right choice: {_one_line(f.get('name') or r['title'], 160)}"
            key = (kind, r["id"])
            if key in seen:
                continue
            seen.add(key)
            by_task[r["via"]].append(RecallItem(kind, r["id"], r["title"], text, via=r["via"]))
    for t in task_ids:
        found.extend(by_task[t])
    return found


# -- the answer --------------------------------------------------------------------
def recall(
    config: Config,
    store: Store,
    description: str,
    budget: int | None = None,
    *,
    embedder: Embedder | None = None,
    record: bool = True,
) -> Recall:
    """The compact recall answer for a task description; see the module doc.

    Args:
        budget: characters of ``Recall.text`` (default
            ``config.thresholds.recall_budget_chars``); at least 200.
        embedder: default :func:`brainwork.learn.embed.get_embedder` (config).
        record: log the served pages as recall hits (for pruning).

    Raises:
        UserError: an empty description.
    """
    from brainwork.errors import UserError

    description = " ".join(str(description or "").split())
    if not description:
        raise UserError("describe the task to recall for")
    budget = config.thresholds.recall_budget_chars if budget is None else int(budget)
    budget = max(budget, 200)
    emb = embedder or get_embedder(config)
    rules = _rules(store)
    tasks, used_vectors = rank_tasks(config, store, description, emb)
    related = one_hop(store, [t.id for t in tasks])

    lines: list[str] = []
    served: list[tuple[str, str]] = []
    size = 0
    truncated = False

    more = "… (budget reached: `brainwork recall --budget N` shows more)"
    room = budget - len(more) - 1  # always leave room to say something was cut

    def add(line: str, item: RecallItem | None = None) -> bool:
        nonlocal size, truncated
        if size + len(line) + 1 > room:
            truncated = True
            return False
        lines.append(line)
        size += len(line) + 1
        if item is not None:
            served.append((item.id, item.kind))
        return True

    add(f"# Recall: {_one_line(description, 120)}")
    if rules:
        add(f"## Doctrine ({len(rules)} active rule{'s' if len(rules) != 1 else ''})")
        doctrine_room = int(budget * DOCTRINE_SHARE)
        for i, r in enumerate(rules):
            line = f"- {r.id}: {r.text}"
            if size + len(line) + 1 > doctrine_room or not add(line, r):
                add(f"- … {len(rules) - i} more: run `brainwork doctrine`")
                break
    if tasks:
        add("## Prior tasks")
        hop = {t.id: [x for x in related if x.via == t.id] for t in tasks}
        for t in tasks:
            if not add(f"- {t.id} [{t.score:.2f}]: {t.text}", t):
                break
            for x in hop[t.id]:
                add(f"  - {x.kind} {x.id}: {x.text}", x)
    else:
        add("## Prior tasks\n(none similar enough)")
    if truncated:
        lines.append(more)
    text = "\n".join(lines) + "\n"
    if record:
        rstore.record_hits(store, served, description)
    return Recall(
        query=description,
        text=text,
        chars=len(text),
        budget=budget,
        rules=rules,
        tasks=tasks,
        related=related,
        served=[s[0] for s in served],
        truncated=truncated,
        vectors=used_vectors,
        embedder=emb.name,
        lexical=emb.lexical,
    )
