"""Consolidation: recurring corrections become candidate rules (issue 4 §3).

One pass (:func:`consolidate`):

1. **Read** the unresolved corrections (status ``open``, ``clustered`` or
   none; this includes every correction created since the last pass that is
   not already promoted or dismissed). Which of them are new since the last
   pass is reported (``ConsolidationPass`` rows in the store).
2. **Embed** them, their tasks and the rules (the embeddings cache; only
   changed text is embedded).
3. **Cluster** by cosine similarity: each correction's vector is mixed with
   its task's (``correction + w * task``, ``w`` =
   ``thresholds.cluster_task_weight``) so the same lesson in the same kind
   of work groups together; agglomerative clustering (scikit-learn, average
   linkage) merges groups while their mean similarity is at least
   ``thresholds.cluster_similarity``.
4. **Match** each cluster to existing rules: a candidate or active rule that
   already lists one of its corrections as evidence, else the most similar
   one (cluster centroid vs rule, at least ``thresholds.rule_match_similarity``).
   - an existing *candidate*: the cluster's new corrections are added to its
     ``evidence:`` (no duplicate candidate);
   - an *active* rule: proposed as evidence for it (``action: "evidence"``;
     the person links it in the inbox, :func:`brainwork.learn.rules.link_corrections`)
     — unless the cluster *contradicts* it (the rule text is closer to the
     corrections' ``wrong`` than to their ``correct`` by
     ``thresholds.rule_contradiction_margin``): then a superseding candidate
     is drafted (``proposed_supersedes:``).
5. **Draft** a candidate rule for each unmatched cluster that recurs (two or
   more corrections from different tasks) — unless its corrections are all
   part of a rejected candidate's cluster (rejections are remembered: the
   rejected rule page's evidence, and ``RejectedCluster`` rows).
6. **Write**, as one undoable operation (``kind="consolidate"``): new
   candidate pages, evidence links, and ``status: clustered`` on every
   correction of a proposed cluster.

Drafting is deterministic and explainable (:func:`draft_rule`): the rule text
is the ``correct`` of the most central correction (highest mean similarity to
the others); the ``why`` is that correction's first sentence of ``why`` with
the count of corrections and tasks; ``apply`` names the task class (task
titles and the tags most of them share); the body lists the shared key terms
and every correction with its task. Provenance: the ``evidence:`` list of
``[[correction]]`` links (``related`` edges); at approval they become
``promoted_from:`` (``promoted_to`` edges).
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timezone
from typing import Callable

import numpy as np

from brainwork.config import Config
from brainwork.learn.pagefile import Edits, add_items, link
from brainwork.learn.rules import EVIDENCE_KEY, PROPOSED_SUPERSEDES_KEY, Rule, list_rules
from brainwork.learn.similarity import centroid, matrix, mean_pairwise, page_vectors, unit
from brainwork.ops import changeset
from brainwork.store import Store
from brainwork.store import learning as q
from brainwork.vault.edit import render_scalar, set_field
from brainwork.vault.write import slugify, unique_rel_path

Progress = Callable[[int, int, str], None]

#: Statuses that count as unresolved (None: a correction without a status).
UNRESOLVED = ("open", "clustered", None)
RULES_FOLDER = "rules"
_TERM = r"(?u)\b[a-zA-Z][a-zA-Z0-9\-]{2,}\b"
_SIMPLE_TAG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-/]*$")


@dataclass
class Cluster:
    """One proposed cluster.

    ``corrections``/``tasks``: ids, sorted; ``similarity``: mean pairwise
    cosine of the clustering vectors (1.0 for one correction);
    ``candidate``: the candidate rule holding it (new or existing), or None;
    ``action``: ``"new"`` (candidate drafted), ``"existing"`` (added to an
    existing candidate), ``"evidence"`` (proposed as evidence for the active
    ``rule``), ``"supersede"`` (candidate drafted to supersede ``rule``);
    ``rule``: the existing rule matched, ``rule_similarity`` its cosine to
    the cluster centroid; ``central``: the most central correction;
    ``terms``: key terms most corrections share; ``new``: corrections not
    read by an earlier pass.
    """

    corrections: list[str]
    tasks: list[str]
    similarity: float
    candidate: str | None = None
    action: str = "new"
    rule: str | None = None
    rule_similarity: float | None = None
    central: str | None = None
    terms: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        """The cluster as ``brainwork consolidate --json`` prints it: the
        contract keys ``corrections``, ``tasks``, ``candidate``, ``similarity``
        first, then ``action``, ``rule``, ``rule_similarity``, ``central``,
        ``terms``, ``new``."""
        d = asdict(self)
        d["similarity"] = round(self.similarity, 3)
        if self.rule_similarity is not None:
            d["rule_similarity"] = round(self.rule_similarity, 3)
        order = ["corrections", "tasks", "candidate", "similarity", "action", "rule", "rule_similarity", "central", "terms", "new"]
        return {k: d[k] for k in order}


@dataclass
class Draft:
    """A drafted candidate rule, before it is written."""

    path: str
    title: str
    rule: str
    why: str
    apply: str
    tags: list[str]
    evidence: list[str]
    central: str
    terms: list[str]
    supersedes: str | None
    text: str


@dataclass
class ConsolidationReport:
    """What a pass found and did.

    ``clusters``: the proposed clusters; ``candidates_created``: new candidate
    pages; ``read``: corrections read; ``new``: of them, not read by an
    earlier pass; ``suppressed``: clusters not proposed again because a
    rejected candidate covers them (``{"corrections", "rejected"}``);
    ``operation``: the undo-log id (None when nothing was written, or a dry
    run); ``files``: files written; ``seconds``: wall time.
    """

    clusters: list[Cluster]
    candidates_created: int
    read: int = 0
    new: int = 0
    suppressed: list[dict] = field(default_factory=list)
    drafts: list[Draft] = field(default_factory=list)
    operation: int | None = None
    files: list[str] = field(default_factory=list)
    dry_run: bool = False
    seconds: float = 0.0

    def to_json(self) -> dict:
        """``{"clusters": [...], "candidates_created": N}`` (issue 4 §3)."""
        return {"clusters": [c.to_json() for c in self.clusters], "candidates_created": self.candidates_created}


# -- clustering ----------------------------------------------------------------
def cluster_vectors(mat: np.ndarray, threshold: float) -> list[list[int]]:
    """Group the rows of ``mat`` (unit vectors) so that every merge joins
    groups whose mean pairwise cosine is at least ``threshold``.

    scikit-learn's ``AgglomerativeClustering`` with average linkage and
    ``distance_threshold = 1 - threshold`` (cosine distance). Returns lists of
    row indices, each sorted, larger groups first (ties: first index).
    """
    n = len(mat)
    if n == 0:
        return []
    if n == 1:
        return [[0]]
    from sklearn.cluster import AgglomerativeClustering

    model = AgglomerativeClustering(
        n_clusters=None, metric="cosine", linkage="average", distance_threshold=max(0.0, 1.0 - float(threshold))
    )
    labels = model.fit_predict(mat)
    groups: dict[int, list[int]] = {}
    for i, label in enumerate(labels):
        groups.setdefault(int(label), []).append(i)
    return sorted(groups.values(), key=lambda g: (-len(g), g[0]))


def mixed_vectors(corr_vecs: list[np.ndarray], task_vecs: list[np.ndarray | None], weight: float) -> np.ndarray:
    """``unit(correction + weight * task)`` per row (the correction alone when
    it has no task vector)."""
    rows = []
    for c, t in zip(corr_vecs, task_vecs):
        rows.append(unit(c + weight * t) if t is not None and weight else c)
    return matrix(rows)


# -- drafting ------------------------------------------------------------------
def _one_line(text) -> str:
    if isinstance(text, list):
        text = ", ".join(str(t) for t in text)
    return " ".join(str(text or "").split())


def _first_sentence(text: str) -> str:
    text = _one_line(text)
    m = re.search(r"(?<=[.!?;])\s", text)
    return text[: m.start()].rstrip(";") if m else text


def _title_from(text: str, limit: int = 60) -> str:
    """A page title from a rule text: its first clause (up to ``.``, ``;`` or
    ``:``), cut at a comma or word boundary to at most ``limit`` characters."""
    text = _one_line(text)
    m = re.search(r"[.;:](\s|$)", text)
    head = text[: m.start()] if m and m.start() > 15 else text
    if len(head) > limit:
        window = head[: limit + 1]
        cut = max(window.rfind(", "), window.rfind(" or "), window.rfind(" and "))
        head = window[:cut] if cut > 20 else window.rsplit(" ", 1)[0]
    head = head.rstrip(".;:,-— ")
    return head[:1].upper() + head[1:] if head else "Candidate rule"


def _drop_specifics(text: str) -> str:
    """``text`` without bracketed specifics — a bracket holding a number
    (``"(changelog benchmark: p95 220 ms to 160 ms)"``) — when at least five
    words remain: the case's figures, not the lesson. Brackets without a
    digit (``"(but not including)"``) may carry meaning and stay."""
    out = _one_line(re.sub(r"\s*\([^()]*\d[^()]*\)", "", text))
    out = re.sub(r"\s+([,;.])", r"\1", out)
    return out if len(out.split()) >= 5 else _one_line(text)


def _lower_first(text: str) -> str:
    if len(text) > 1 and text[0].isupper() and text[1].islower():
        return text[0].lower() + text[1:]
    return text


def shared_terms(docs: list[str], limit: int = 8) -> list[str]:
    """Key terms most of ``docs`` share: words (English stop words removed,
    scikit-learn's list) in at least half of the documents and at least two,
    most widely shared first, then alphabetically."""
    if len(docs) < 2:
        return []
    from sklearn.feature_extraction.text import CountVectorizer

    try:
        cv = CountVectorizer(stop_words="english", binary=True, token_pattern=_TERM, lowercase=True)
        counts = cv.fit_transform(docs)
    except ValueError:  # only stop words
        return []
    df = np.asarray(counts.sum(axis=0)).ravel()
    need = max(2, math.ceil(len(docs) / 2))
    terms = cv.get_feature_names_out()
    ranked = sorted((-int(d), str(t)) for t, d in zip(terms, df) if d >= need)
    return [t for _, t in ranked[:limit]]


def _shared_tags(tag_lists: list[list[str]], limit: int = 4) -> list[str]:
    counts: dict[str, int] = {}
    for tags in tag_lists:
        for t in {str(x).lower() for x in tags}:
            counts[t] = counts.get(t, 0) + 1
    need = max(2, math.ceil(len(tag_lists) / 2))
    ranked = sorted((-n, t) for t, n in counts.items() if n >= need and t != "rule")
    return [t for _, t in ranked[:limit]]


def _correction_doc(c: dict) -> str:
    f = c["fields"]
    return " ".join(_one_line(x) for x in (c["title"], f.get("wrong"), f.get("correct"), f.get("why"), " ".join(c["tags"])))


def _yaml_tags(tags: list[str]) -> str:
    if all(_SIMPLE_TAG.match(t) for t in tags):
        return f"tags: [{', '.join(tags)}]\n"
    return "tags:\n" + "".join(f"  - {render_scalar(t)}\n" for t in tags)


def draft_rule(
    members: list[dict],
    vecs: np.ndarray,
    tasks: dict[str, dict],
    *,
    today: str,
    path: str,
    supersedes: str | None = None,
    similarity: float | None = None,
    rejected_before: list[str] = (),
    correct_vecs: np.ndarray | None = None,
) -> Draft:
    """Draft one candidate rule from a cluster.

    Args:
        members: correction rows (``store.learning.corrections``) of the cluster.
        vecs: their clustering vectors, same order (unit rows).
        tasks: task rows by id (``store.learning.tasks``), for the task class.
        today: the ``created`` date; path: where the page goes.
        supersedes: an active rule id this candidate proposes to replace.
        correct_vecs: embeddings of the members' ``correct`` texts; the most
            central of these (highest mean cosine to the others; ties: id)
            gives the rule text. Without them, ``vecs`` decide.
    """
    n = len(members)
    basis = correct_vecs if correct_vecs is not None and len(correct_vecs) == n else vecs
    sims = basis @ basis.T
    centrality = (sims.sum(axis=1) - 1.0) / max(1, n - 1)
    order = sorted(range(n), key=lambda i: (-round(float(centrality[i]), 6), members[i]["id"]))
    central = members[order[0]]
    cf = central["fields"]
    original = _one_line(cf.get("correct")) or _one_line(central["title"])
    rule_text = _drop_specifics(original)
    task_ids = sorted({t for m in members for t in m["tasks"]})
    terms = shared_terms([_correction_doc(m) for m in members])
    tag_source = [m["tags"] for m in members]
    tags = ["rule"] + _shared_tags(tag_source)
    why_core = _first_sentence(cf.get("why")) or _one_line(central["title"])
    why = f"Corrected {n} times in {len(task_ids) or n} tasks; {_lower_first(why_core)}"
    # Task class: the central correction's tasks first, then the others by id.
    ordered_tasks = list(dict.fromkeys(central["tasks"] + task_ids))
    titles = [_one_line(tasks[t]["title"]) for t in ordered_tasks if t in tasks][:3]
    task_tags = _shared_tags([tasks[t]["tags"] for t in task_ids if t in tasks])
    if titles:
        apply_ = "Tasks like " + "; ".join(f"“{t}”" for t in titles)
        if task_tags:
            apply_ += f" (shared tags: {', '.join(task_tags)})"
        apply_ += "."
    else:
        apply_ = f"Work where {', '.join(terms[:4]) or 'these corrections'} come up."
    title = _title_from(rule_text)

    fm = ["---\n", f"title: {render_scalar(title)}\n", "type: rule\n", f"created: {render_scalar(today)}\n", _yaml_tags(tags),
          "source: agent\n", f"rule: {render_scalar(rule_text)}\n", f"why: {render_scalar(why)}\n",
          f"apply: {render_scalar(apply_)}\n", "status: candidate\n", f"{EVIDENCE_KEY}:\n"]
    fm += [f"  - {render_scalar(link(m['id']))}\n" for m in sorted(members, key=lambda m: m["id"])]
    if supersedes:
        fm.append(f"{PROPOSED_SUPERSEDES_KEY}: {render_scalar(link(supersedes))}\n")
    fm.append("---\n")
    sim_txt = f" (mean similarity {similarity:.2f})" if similarity is not None else ""
    body = [
        "",
        f"Drafted by `brainwork consolidate` on {today} from {n} corrections in {len(task_ids) or n} tasks{sim_txt}. "
        "Edit the rule text, then approve it, reject it with a reason, or approve it as superseding an older rule.",
        "",
        "How it was drafted:",
        "",
        f"- Rule text: the \"correct\" of the most central correction, [[{central['id']}]] "
        f"(mean similarity to the others {float(centrality[order[0]]):.2f})"
        + ("; details in brackets dropped." if rule_text != original else "."),
    ]
    if terms:
        body.append(f"- Shared terms: {', '.join(terms)}.")
    if task_tags:
        body.append(f"- Task class: tasks tagged {', '.join(task_tags)}.")
    if supersedes:
        body.append(f"- Contradicts the active rule [[{supersedes}]]: these corrections say what it prescribes was wrong; approving replaces it.")
    for r in rejected_before:
        body.append(f"- An earlier candidate from some of these corrections was rejected: [[{r}]]; new corrections have joined since.")
    body += ["", "## Evidence", ""]
    for m in sorted(members, key=lambda m: m["id"]):
        f = m["fields"]
        src = f" (task [[{m['tasks'][0]}]])" if m["tasks"] else ""
        body.append(f"- [[{m['id']}]]{src}: wrong: {_one_line(f.get('wrong'))} Correct: {_one_line(f.get('correct'))}")
    text = "".join(fm) + "\n".join(body) + "\n"
    return Draft(path, title, rule_text, why, apply_, tags, sorted(m["id"] for m in members), central["id"], terms, supersedes, text)


# -- matching -----------------------------------------------------------------
#: At most this many corrections (the newest made after the rule became
#: active) are compared with a rule in a contradiction check: it bounds the
#: encoding work of a first pass over many corrections.
CONTRADICTION_SAMPLE = 5


def _after(rule: Rule, members: list[dict]) -> list[dict]:
    since = rule.activated or ""
    after = [m for m in members if (m["created"] or "") >= since]
    return sorted(after, key=lambda m: (m["created"] or "", m["id"]), reverse=True)[:CONTRADICTION_SAMPLE]


def _contradiction_texts(rule: Rule, members: list[dict]) -> list[str]:
    out = [_one_line(rule.text) or _one_line(rule.title)]
    for m in _after(rule, members):
        out += [_one_line(m["fields"].get("wrong")), _one_line(m["fields"].get("correct"))]
    return [t for t in out if t]


def _contradicts(rule: Rule, members: list[dict], margin: float, texts: "_TextVectors") -> bool:
    """True when ``rule``'s text is closer to what the corrections call wrong
    than to what they call correct (mean cosine, by at least ``margin``),
    looking only at corrections made after the rule became active (the
    newest :data:`CONTRADICTION_SAMPLE` of them)."""
    after = _after(rule, members)
    pairs = [(_one_line(m["fields"].get("wrong")), _one_line(m["fields"].get("correct"))) for m in after]
    pairs = [p for p in pairs if p[0] and p[1]]
    text = _one_line(rule.text) or _one_line(rule.title)
    if not pairs or not text:
        return False
    r = texts.vector(text)
    wrong = texts.matrix([w for w, _ in pairs])
    right = texts.matrix([c for _, c in pairs])
    return float(np.mean(wrong @ r) - np.mean(right @ r)) >= margin


class _TextVectors:
    """Texts embedded on demand, all pending ones in one encode call (the
    model's per-call overhead dominates for short texts)."""

    def __init__(self, config: Config):
        self.config = config
        self._pending: list[str] = []
        self._vecs: dict[str, np.ndarray] = {}

    def need(self, texts: list[str]) -> None:
        for t in texts:
            if t and t not in self._vecs:
                self._pending.append(t)

    def _flush(self) -> None:
        todo = list(dict.fromkeys(t for t in self._pending if t not in self._vecs))
        self._pending = []
        if todo:
            from brainwork.learn.embed import get_embedder

            for t, v in zip(todo, get_embedder(self.config).encode(todo)):
                self._vecs[t] = v

    def vector(self, text: str) -> np.ndarray:
        if text not in self._vecs:
            self._pending.append(text)
            self._flush()
        return self._vecs[text]

    def matrix(self, texts: list[str]) -> np.ndarray:
        if any(t not in self._vecs for t in texts):
            self._pending.extend(texts)
            self._flush()
        return np.stack([self._vecs[t] for t in texts]).astype(np.float32)


def _rejected_sets(store: Store, rules: list[Rule]) -> dict[str, set[str]]:
    by_id = {r.id: r for r in rules}
    out = {r.id: set(r.evidence) for r in rules if r.status == "rejected" and r.evidence}
    for row in q.rejections(store):
        page = by_id.get(row["rule"])
        if page is None or page.status == "rejected":
            out.setdefault(row["rule"], set()).update(row["corrections"])
    return out


# -- the pass -----------------------------------------------------------------
def _today(today) -> str:
    if today is None:
        return date.today().isoformat()
    return today.isoformat() if isinstance(today, date) else str(today)


def consolidate(
    config: Config,
    store: Store,
    *,
    today: str | date | None = None,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> ConsolidationReport:
    """Run one consolidation pass (see the module doc).

    Args:
        today: the ``created`` date of drafted candidates (default today).
        dry_run: plan only: nothing is written and the pass is not recorded.
        progress: ``progress(done, total, phase)``; phases ``"embedding"``,
            ``"clustering"``, ``"drafting"``, ``"writing"``.

    Returns:
        A :class:`ConsolidationReport`; ``report.to_json()`` is the
        ``--json`` output.

    Raises:
        UserError: a file changed while the pass ran (nothing is written then).
    """
    t0 = time.perf_counter()
    th = config.thresholds
    day = _today(today)
    report = lambda *a: progress(*a) if progress else None  # noqa: E731
    all_corrections = q.corrections(store)
    unresolved = [c for c in all_corrections if c["status"] in UNRESOLVED]
    seen = q.seen_corrections(store)
    rules = list_rules(store)
    live_rules = [r for r in rules if r.status in ("candidate", "active")]
    task_rows = {t["id"]: t for t in q.tasks(store)}
    task_ids = sorted({t for c in unresolved for t in c["tasks"]})
    vecs = page_vectors(config, store, [c["id"] for c in unresolved] + task_ids + [r.id for r in live_rules], progress)

    report(0, len(unresolved), "clustering")
    items = [c for c in unresolved if c["id"] in vecs]
    raw = matrix([vecs[c["id"]] for c in items])
    task_vec = [centroid([vecs[t] for t in c["tasks"] if t in vecs]) for c in items]
    mixed = mixed_vectors(list(raw), task_vec, th.cluster_task_weight)
    groups = cluster_vectors(mixed, th.cluster_similarity)
    # Corrections without a vector (empty text) stay singletons.
    groups += [[len(items) + i] for i in range(len(unresolved) - len(items))]
    items += [c for c in unresolved if c["id"] not in vecs]

    rejected = _rejected_sets(store, rules)
    rule_vecs = {r.id: vecs[r.id] for r in live_rules if r.id in vecs}
    used_paths: set[str] = set()
    edits = Edits(config)
    clusters: list[Cluster] = []
    drafts: list[Draft] = []
    suppressed: list[dict] = []
    to_cluster: set[str] = set()
    # Pass 1: match every group to the existing rules (no model calls) and
    # note which texts the drafts and contradiction checks need, so the
    # model encodes them all in one call.
    plans: list[dict] = []
    texts = _TextVectors(config)
    for group in groups:
        members = sorted((items[i] for i in group), key=lambda c: c["id"])
        ids = [m["id"] for m in members]
        idset = set(ids)
        task_set = sorted({t for m in members for t in m["tasks"]})
        # Recurs: two or more corrections from different tasks; a correction
        # linked to no task counts as an occurrence of its own.
        sources = set(task_set) | {m["id"] for m in members if not m["tasks"]}
        recurs = len(members) >= 2 and len(sources) >= 2
        # rows of the members that have vectors, in member (id) order
        in_vec = [i for i in sorted(group, key=lambda i: items[i]["id"]) if i < len(raw)]
        gmat = mixed[in_vec] if in_vec else matrix([])
        sim = mean_pairwise(gmat) if in_vec else 1.0
        cen = centroid([raw[i] for i in in_vec])
        cluster = Cluster(ids, task_set, sim, new=[i for i in ids if i not in seen])

        match: Rule | None = None  # an existing candidate or active rule: by shared evidence, else by similarity
        overlap = [(len(idset & set(r.evidence)), r) for r in live_rules]
        overlap = [(n, r) for n, r in overlap if n]
        if overlap:
            overlap.sort(key=lambda x: (-x[0], x[1].status != "candidate", x[1].id))
            match = overlap[0][1]
            cluster.rule_similarity = float(cen @ rule_vecs[match.id]) if cen is not None and match.id in rule_vecs else None
        elif cen is not None and rule_vecs:
            scored = sorted(((float(cen @ v), rid) for rid, v in rule_vecs.items()), key=lambda x: (-x[0], x[1]))
            if scored[0][0] >= th.rule_match_similarity:
                match = next(r for r in live_rules if r.id == scored[0][1])
                cluster.rule_similarity = scored[0][0]
        if match is None and not recurs:
            continue
        # A cluster with no correction new since the last pass was judged
        # then (evidence); only new corrections can make it contradict.
        check = match is not None and match.status == "active" and recurs and bool(cluster.new)
        draft = match is None or check
        if check:
            texts.need(_contradiction_texts(match, members))
        if draft:
            texts.need([_one_line(m["fields"].get("correct")) for m in members])
        plans.append({"cluster": cluster, "members": members, "group": group, "match": match, "check": check,
                      "in_vec": in_vec, "gmat": gmat})

    # Pass 2: decide, draft, plan the edits.
    report(0, len(plans), "drafting")
    for gi, plan in enumerate(plans):
        cluster, members, match, in_vec, gmat = plan["cluster"], plan["members"], plan["match"], plan["in_vec"], plan["gmat"]
        ids = cluster.corrections
        idset = set(ids)
        if len(members) >= 2:
            cluster.terms = shared_terms([_correction_doc(m) for m in members])
        supersede: Rule | None = None
        if match is not None and match.status == "candidate":
            cluster.action, cluster.rule, cluster.candidate = "existing", match.id, match.id
            missing = [i for i in ids if i not in match.evidence]
            if missing:
                edits.edit(match.path, lambda t, missing=missing: add_items(t, EVIDENCE_KEY, [link(i) for i in missing]))
        elif match is not None:
            cluster.rule = match.id
            if plan["check"] and _contradicts(match, members, th.rule_contradiction_margin, texts):
                supersede = match
            else:
                cluster.action = "evidence"
        if cluster.action == "new" or supersede is not None:
            covering = [rid for rid, s in rejected.items() if idset <= s]
            if covering:
                suppressed.append({"corrections": ids, "rejected": sorted(covering)})
                continue
            earlier = sorted(rid for rid, s in rejected.items() if idset & s)
            draft_vecs = gmat if len(in_vec) == len(members) else matrix(
                [mixed[i] if i < len(raw) else np.zeros(mixed.shape[1], np.float32) for i in sorted(plan["group"], key=lambda i: items[i]["id"])]
            )
            corrects = [_one_line(m["fields"].get("correct")) for m in members]
            d = draft_rule(members, draft_vecs, task_rows, today=day, path="", supersedes=supersede.id if supersede else None,
                           similarity=cluster.similarity, rejected_before=earlier,
                           correct_vecs=texts.matrix(corrects) if all(corrects) else None)
            path = _unique_path(config, _slug(d.title), used_paths)
            d.path = path
            drafts.append(d)
            edits.create(path, d.text)
            cluster.candidate = path[:-3]
            cluster.action = "supersede" if supersede else "new"
            cluster.central = d.central
        if cluster.central is None and len(in_vec) == len(members) >= 2:
            cluster.central = _central(ids, gmat)
        clusters.append(cluster)
        to_cluster.update(ids)
        report(gi + 1, len(plans), "drafting")

    for c in unresolved:
        if c["id"] in to_cluster and c["status"] in ("open", None):
            edits.edit(c["path"], lambda t: set_field(t, "status", "clustered"))

    out = ConsolidationReport(
        clusters=clusters,
        candidates_created=len(drafts),
        read=len(unresolved),
        new=sum(1 for c in unresolved if c["id"] not in seen),
        suppressed=suppressed,
        drafts=drafts,
        dry_run=dry_run,
    )
    changes = edits.changes()
    out.files = [c.path for c in changes]
    if not dry_run:
        report(0, len(changes), "writing")
        if changes:
            summary = f"consolidate: {len(drafts)} candidate rule(s), {len(clusters)} cluster(s)"
            op = changeset.apply(
                config, store, "consolidate", summary, changes,
                details={"candidates": [d.path[:-3] for d in drafts], "clusters": len(clusters)},
            )
            out.operation = op.id
        q.record_pass(
            store,
            datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
            [c["id"] for c in unresolved],
            [c.to_json() for c in clusters],
            len(drafts),
        )
        report(len(changes), len(changes), "writing")
    out.seconds = time.perf_counter() - t0
    return out


def _slug(title: str, limit: int = 60) -> str:
    slug = slugify(title, max_len=200)
    if len(slug) > limit:
        slug = slug[: limit + 1].rsplit("-", 1)[0]
    return slug


def _central(ids: list[str], mat: np.ndarray) -> str:
    """The id whose row has the highest mean cosine to the others (ties: id)."""
    n = len(ids)
    sims = mat @ mat.T
    cent = (sims.sum(axis=1) - 1.0) / max(1, n - 1)
    return min(zip([-round(float(x), 6) for x in cent], ids))[1]


def _unique_path(config: Config, stem: str, used: set[str]) -> str:
    n = 1
    while True:
        name = stem if n == 1 else f"{stem}-{n}"
        path = unique_rel_path(config.vault, RULES_FOLDER, name)
        if path.casefold() not in used:
            used.add(path.casefold())
            return path
        n += 1


def cluster_of(store: Store) -> dict[str, dict]:
    """Per correction id, its cluster in the last pass (the ``--json``
    cluster dict), for the correction inbox. Empty before the first pass."""
    last = q.last_pass(store)
    if not last:
        return {}
    return {cid: cl for cl in last["clusters"] for cid in cl["corrections"]}
