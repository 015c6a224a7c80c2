"""Consolidation: recurring corrections become candidate rules.

One pass (:func:`consolidate`):

1. **Read** the unresolved corrections (status ``open``, ``clustered`` or
   none; this includes every correction created since the last pass that is
   not already promoted or dismissed). Which of them are new since the last
   pass is reported (``ConsolidationPass`` rows in the store).
2. **Embed** them and the rules (the embeddings cache; only changed text
   is embedded).
3. **Cluster** the lessons, not the incidents: two corrections are compared
   field by field — the weighted mean of the cosines of their ``correct``,
   ``why`` and ``wrong``, each with the case's specifics dropped
   (:func:`lesson_matrices`; the title and the task are left out, since
   look-alike lessons share the situation); agglomerative clustering
   (scikit-learn, average linkage) merges groups while their mean
   similarity is at least ``thresholds.cluster_similarity``, then every
   member must stay close to the rest of its cluster (:func:`member_check`).
4. **Match** each cluster to existing rules: a candidate or active rule that
   already lists one of its corrections as evidence; else an active rule
   whose lesson it teaches — compared with the rule's promoted evidence as
   clustering compares corrections, each member judged on its own, those
   that do not teach it matched again without it (:func:`_lesson_match`);
   else the candidate whose page is most similar (cluster centroid vs page,
   at least ``thresholds.rule_match_similarity``).
   - an existing *candidate*: the cluster's new corrections are added to its
     ``evidence:`` (no duplicate candidate);
   - an *active* rule: proposed as evidence for it (``action: "evidence"``;
     the person links it: ``brainwork link-evidence`` or l in the inbox,
     :func:`brainwork.learn.rules.link_corrections`)
     — never a correction that *contradicts* it on its own (the rule text is
     closer to its ``wrong`` than to its ``correct``, and its ``wrong`` is
     closer to the ``correct`` than to the ``wrong`` of the rule's promoted
     evidence when it has some, both by
     ``thresholds.rule_contradiction_margin``): it is matched again apart.
     A cluster that contradicts it as a whole (the means of those differences)
     AND teaches the same lesson
     (rule text+why vs the centroid of the cluster's lessons, at least
     ``thresholds.supersede_similarity``): then a candidate is drafted that
     suggests superseding it (``proposed_supersedes:``; approving alone never
     retires the older rule). A contradicting cluster about another lesson
     is drafted as a rule of its own.
5. **Draft** a candidate rule for each unmatched cluster that recurs (two or
   more corrections from different tasks). A cluster whose corrections are
   all part of a rejected candidate's cluster is proposed as nothing —
   neither drafted, nor as evidence for an active rule, nor added to another
   candidate — until a new correction joins it (rejections are remembered:
   the rejected rule page's evidence, and ``RejectedCluster`` rows).
6. **Write**, as one undoable operation (``kind="consolidate"``): new
   candidate pages, evidence links, and ``status: clustered`` on every
   correction of a proposed cluster; the pass's ``ConsolidationPass`` row is
   a store action of that operation, so an undo takes it back too.

Drafting is deterministic and explainable (:func:`draft_rule`, no model
call): the rule is ONE imperative sentence, the first instruction of the
``correct`` of the most central correction (highest mean similarity to the
others); the title a complete phrase built from it (:func:`title_from`,
shortened only at a clause boundary); the ``why`` the first sentence of that
correction's ``why``; ``apply`` a condition starting "when ..." naming what
every correction and its task have in common (:func:`apply_condition`); the
body states the true counts (corrections, distinct tasks), the shared key
terms and every correction with its task. Provenance: the ``evidence:`` list
of ``[[correction]]`` links (``related`` edges); at approval the corrections
the person keeps become ``promoted_from:`` (``promoted_to`` edges).
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import time
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Callable

import numpy as np

from brainwork.config import Config
from brainwork.learn.pagefile import Edits, add_items, link
from brainwork.learn.rules import (
    CENTRAL_LINE, DECLINED_EVIDENCE, EVIDENCE_HEADING, EVIDENCE_KEY, PROPOSED_SUPERSEDES_KEY, Rule, counts_text,
    list_rules, restate_counts,
)
from brainwork.learn.similarity import DIM, centroid, matrix, mean_pairwise, page_vectors, unit
from brainwork.wording import counted
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
    ``rule``: the existing rule matched, ``rule_similarity`` how close: for
    an active rule the members' mean lesson similarity to its evidence
    (:func:`_lesson_match`), for a candidate the centroid's cosine to its page; ``central``: the most central correction;
    ``terms``: key terms most corrections share; ``new``: corrections not
    read by an earlier pass; ``added``: corrections this pass adds to the
    evidence of the existing candidate (empty when it already lists them
    all: the pass changed nothing there).
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
    added: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        """The cluster as ``brainwork consolidate --json`` prints it: the
        contract keys ``corrections``, ``tasks``, ``candidate``, ``similarity``
        first, then ``action``, ``rule``, ``rule_similarity``, ``central``,
        ``terms``, ``new``, ``added``."""
        d = asdict(self)
        d["similarity"] = round(self.similarity, 3)
        if self.rule_similarity is not None:
            d["rule_similarity"] = round(self.rule_similarity, 3)
        order = ["corrections", "tasks", "candidate", "similarity", "action", "rule", "rule_similarity", "central", "terms", "new", "added"]
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
        """``{"clusters": [...], "candidates_created": N}``."""
        return {"clusters": [c.to_json() for c in self.clusters], "candidates_created": self.candidates_created}


# -- clustering ----------------------------------------------------------------
#: Quoted strings and inline code: the case's specifics (a term, a command,
#: a string), not the lesson. ``"Kontoauszug"``, ```kubectl scale```.
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|`[^`]*`")
#: Tokens that name a specific thing rather than say what to do: anything
#: holding a character other than letters, hyphens and sentence punctuation
#: (``{count}``, ``%1$s``, ``pg_dump``, ``s3://x``, ``<b>``, ``v1.2``),
#: command-line flags (``--list-hosts``), snake_case names and words with a
#: digit (``MOB-1432``, ``80``).
_SPECIFIC = re.compile(r"(?<!\S)\S*[^\sA-Za-z,.;:!?'()\-]\S*|(?<!\S)--?\w[\w-]*|\b\w+_\w+\b|\b\w*\d\w*\b")
_BRACKETED = re.compile(r"\([^()]*\)")
_QUOTED_WORDS = re.compile(r"\"([^\"]*)\"|“([^”]*)”")
#: Lesson vectors kept per process, by (embedder name, text): the workbench
#: consolidates again after every capture; the texts rarely change.
_LESSON_CACHE: dict[tuple[str, str], np.ndarray] = {}
_LESSON_CACHE_MAX = 50_000
#: The lesson vectors of the last pass, in the store folder (derived, safe
#: to delete). Not in the store's page-vector table: these texts are not
#: pages, and searches over that table must not find them.
LESSON_FILE = "lesson-vectors.npz"


def lesson_surface(text, *, keep_quoted: bool = False) -> str:
    """``text`` without its specifics — quoted strings, inline code,
    bracketed asides and tokens that name a particular thing
    (:data:`_SPECIFIC`) — so that two corrections teaching the same thing
    with different tools, terms or figures compare alike. The original
    (one line) when nothing would remain.

    ``keep_quoted``: keep the words of a double-quoted string (the quote
    marks go; inline code still goes). In a ``wrong`` a quoted string is
    mostly the act itself — hit "Re-run all jobs", clicked "Build Now" —
    and dropping it leaves "hit twice without looking at it"."""
    original = _one_line(text)
    quoted = _QUOTED_WORDS.sub(lambda m: f" {m.group(1) or m.group(2) or ''} ", original) if keep_quoted else original
    out = _SPECIFIC.sub(" ", _QUOTED.sub(" ", _BRACKETED.sub(" ", quoted)))
    out = re.sub(r"\s+([,;.:!?])", r"\1", " ".join(out.split()))
    return out if len(re.findall(r"[A-Za-z]{2,}", out)) >= 2 else original


def lesson_texts(correction: dict) -> tuple[str, str]:
    """The two texts of a correction's lesson vector (:func:`lesson_vectors`):
    its ``correct`` and its ``why``, each through :func:`lesson_surface`.
    The title and the task are left out: two look-alike lessons share the
    situation and differ in what to do. (Clustering also compares the
    ``wrong``: :func:`lesson_parts`.)"""
    f = correction.get("fields") or {}
    return lesson_surface(f.get("correct")), lesson_surface(f.get("why"))


def _text_key(name: str, text: str) -> str:
    return hashlib.sha256(f"{name}\0{text}".encode("utf-8")).hexdigest()


def _read_lesson_file(path: Path | None) -> dict[str, np.ndarray]:
    """``{key: vector}`` from the lesson-vector file (empty when missing or
    unreadable: it is a cache, rebuilt by encoding)."""
    if path is None or not path.is_file():
        return {}
    try:
        with np.load(path, allow_pickle=False) as data:
            keys, vecs = data["keys"], data["vecs"]
        if vecs.ndim != 2 or vecs.shape[1] != DIM or len(keys) != len(vecs):
            return {}
        return {str(k): v.astype(np.float32) for k, v in zip(keys, vecs)}
    except (OSError, ValueError, KeyError):
        return {}


def _write_lesson_file(path: Path, vectors: dict[str, np.ndarray]) -> None:
    """Write ``vectors`` atomically (temporary file, then rename); failing
    to write a cache is not an error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        keys = sorted(vectors)
        vecs = np.stack([vectors[k] for k in keys]) if keys else np.zeros((0, DIM), np.float32)
        with open(tmp, "wb") as fh:
            np.savez(fh, keys=np.array(keys, dtype="U64"), vecs=vecs.astype(np.float32))
        os.replace(tmp, path)
    except OSError:
        pass


def lesson_parts(correction: dict) -> tuple[str, str, str]:
    """The three texts a correction is compared by when clustering: its
    ``correct``, ``why`` and ``wrong``, each through :func:`lesson_surface`
    (the ``wrong`` keeping its quoted words: there they name the act; the
    title and the task are left out)."""
    f = correction.get("fields") or {}
    return (lesson_surface(f.get("correct")), lesson_surface(f.get("why")),
            lesson_surface(f.get("wrong"), keep_quoted=True))


def _encode_lessons(texts: list[str], encode: Callable[[list[str]], np.ndarray], name: str,
                    cache_file: Path | None) -> dict[str, np.ndarray]:
    """``{text: vector}`` for ``texts`` (distinct, non-empty), encoding only
    those neither the process cache nor ``cache_file`` holds; the file is
    rewritten to hold exactly ``texts`` (this pass's) when anything was new."""
    todo = [t for t in texts if (name, t) not in _LESSON_CACHE]
    if todo and cache_file is not None:
        stored = _read_lesson_file(cache_file)
        for t in todo:
            v = stored.get(_text_key(name, t))
            if v is not None:
                _LESSON_CACHE[(name, t)] = v
        todo = [t for t in todo if (name, t) not in _LESSON_CACHE]
    if todo:
        if len(_LESSON_CACHE) + len(todo) > _LESSON_CACHE_MAX:
            _LESSON_CACHE.clear()
        for t, v in zip(todo, encode(todo)):
            _LESSON_CACHE[(name, t)] = np.asarray(v, dtype=np.float32)
    if cache_file is not None and (todo or not cache_file.is_file()):
        _write_lesson_file(cache_file, {_text_key(name, t): _LESSON_CACHE[(name, t)] for t in texts})
    return {t: _LESSON_CACHE[(name, t)] for t in texts}


def _joined(correct: np.ndarray | None, why: np.ndarray | None, why_weight: float) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    if correct is not None:
        v = v + correct
    if why is not None:
        v = v + (why_weight if correct is not None else 1.0) * why
    return unit(v)


def lesson_vectors(corrections: list[dict], encode: Callable[[list[str]], np.ndarray], name: str,
                   why_weight: float, cache_file: Path | None = None) -> np.ndarray:
    """Shape ``(len(corrections), 384)``: per correction
    ``unit(e(correct) + why_weight * e(why))`` of :func:`lesson_texts`
    (``e`` = ``encode``, unit rows); a zero row when both texts are empty.

    ``name`` (the embedder's) keys the cache: vectors are kept per process
    and, with ``cache_file`` (:data:`LESSON_FILE` in the store folder), on
    disk between passes — keyed by SHA-256 of (name, text), holding only
    this pass's texts — so a pass encodes only new or edited corrections
    (encoding is most of a pass's cost: two short texts per correction).
    """
    pairs = [lesson_texts(c) for c in corrections]
    vec = _encode_lessons(list(dict.fromkeys(t for p in pairs for t in p if t)), encode, name, cache_file)
    return matrix([_joined(vec.get(c) if c else None, vec.get(w) if w else None, why_weight) for c, w in pairs])


def lesson_matrices(corrections: list[dict], encode: Callable[[list[str]], np.ndarray], name: str,
                    why_weight: float, weights: tuple[float, float, float],
                    cache_file: Path | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(vectors, similarity)`` of ``corrections`` in one encoding pass
    (cached as :func:`lesson_vectors` caches).

    ``vectors``: shape ``(n, 384)``, as :func:`lesson_vectors` returns (a
    cluster's reported similarity and its drafting use them).
    ``similarity``: shape ``(n, n)``, what clustering compares — per pair the
    weighted mean of the cosines of :func:`lesson_parts`, field by field,
    ``weights`` = (correct, why, wrong), over the fields both corrections
    have (0 when they share none). Field by field, not one joined vector: a
    lesson is what to do (``correct``) in answer to what was done
    (``wrong``); a one-off about the same kind of work shares the topic of
    a lesson's texts but not the act the correction answers.
    """
    parts = [lesson_parts(c) for c in corrections]
    vec = _encode_lessons(list(dict.fromkeys(t for p in parts for t in p if t)), encode, name, cache_file)
    n = len(parts)
    vectors = matrix([_joined(vec.get(c) if c else None, vec.get(w) if w else None, why_weight) for c, w, _ in parts])
    if n == 0:
        return vectors, np.zeros((0, 0), np.float32)
    num = np.zeros((n, n), np.float64)
    den = np.zeros((n, n), np.float64)
    for k, weight in enumerate(weights):
        if not weight:
            continue
        rows = [vec[p[k]] if p[k] else np.zeros(DIM, np.float32) for p in parts]
        f = np.stack([unit(r) if p[k] else r for r, p in zip(rows, parts)]).astype(np.float64)
        present = np.array([1.0 if p[k] else 0.0 for p in parts])
        num += weight * (f @ f.T)
        den += weight * np.outer(present, present)
    sims = np.divide(num, den, out=np.zeros_like(num), where=den > 0)
    return vectors, sims.astype(np.float32)


def cluster_vectors(mat: np.ndarray, threshold: float, sims: np.ndarray | None = None) -> list[list[int]]:
    """Group the rows of ``mat`` (unit vectors) so that every merge joins
    groups whose mean pairwise cosine is at least ``threshold``.

    scikit-learn's ``AgglomerativeClustering`` with average linkage and
    ``distance_threshold = 1 - threshold`` (cosine distance; with ``sims``,
    shape ``(n, n)``, the distance is ``1 - sims`` instead and ``mat`` only
    gives the count). Returns lists of row indices, each sorted, larger
    groups first (ties: first index).
    """
    n = len(mat) if sims is None else len(sims)
    if n == 0:
        return []
    if n == 1:
        return [[0]]
    from sklearn.cluster import AgglomerativeClustering

    cut = max(0.0, 1.0 - float(threshold))
    if sims is None:
        model = AgglomerativeClustering(n_clusters=None, metric="cosine", linkage="average", distance_threshold=cut)
        labels = model.fit_predict(mat)
    else:
        dist = np.clip(1.0 - np.asarray(sims, dtype=np.float64), 0.0, 2.0)
        np.fill_diagonal(dist, 0.0)
        model = AgglomerativeClustering(n_clusters=None, metric="precomputed", linkage="average", distance_threshold=cut)
        labels = model.fit_predict(dist)
    groups: dict[int, list[int]] = {}
    for i, label in enumerate(labels):
        groups.setdefault(int(label), []).append(i)
    return sorted(groups.values(), key=lambda g: (-len(g), g[0]))


def member_check(mat: np.ndarray, groups: list[list[int]], min_similarity: float,
                 pair_similarity: float, sims: np.ndarray | None = None) -> list[list[int]]:
    """Each member of a group must be close to the rest of it: its mean
    similarity to the other members at least ``min_similarity`` — in a
    pair, its one similarity at least ``pair_similarity``. The worst member
    below leaves (a group of its own) and the rest are checked again.
    Similarity: ``sims[i, j]`` when given, else the cosine of rows of ``mat``.

    Average linkage lets a group absorb a correction that is near only part
    of it (a one-off beside a lesson about the same system). A pair is
    judged by one similarity, so it is held to more: two unrelated one-offs
    about the same kind of work (two money-format slips) pair up at the
    linkage threshold. Returns groups ordered as :func:`cluster_vectors`
    does.
    """
    out: list[list[int]] = []
    for group in groups:
        g = sorted(group)
        while len(g) >= 2:
            sub = np.asarray(sims)[np.ix_(g, g)] if sims is not None else mat[g] @ mat[g].T
            scores = (sub.sum(axis=1) - np.diag(sub)) / (len(g) - 1)
            need = pair_similarity if len(g) == 2 else min_similarity
            worst = min(range(len(g)), key=lambda k: (float(scores[k]), g[k]))
            if float(scores[worst]) >= need:
                break
            out.append([g.pop(worst)])
        out.append(g)
    return sorted(out, key=lambda g: (-len(g), g[0]))


def cluster_lessons(mat: np.ndarray, threshold: float, member_similarity: float, pair_similarity: float,
                    sims: np.ndarray | None = None) -> list[list[int]]:
    """Clusters of lessons: average linkage at ``threshold``
    (:func:`cluster_vectors`), then :func:`member_check`, both on ``sims``
    (:func:`lesson_matrices`) when given, else on the cosines of ``mat``'s
    rows (:func:`lesson_vectors`)."""
    return member_check(mat, cluster_vectors(mat, threshold, sims), member_similarity, pair_similarity, sims)


def mixed_vectors(corr_vecs: list[np.ndarray], task_vecs: list[np.ndarray | None], weight: float) -> np.ndarray:
    """``unit(correction + weight * task)`` per row (the correction alone when
    it has no task vector). Not used by :func:`consolidate` any more (tasks
    made look-alike lessons of one kind of work cluster together); kept for
    callers comparing page vectors."""
    rows = []
    for c, t in zip(corr_vecs, task_vecs):
        rows.append(unit(c + weight * t) if t is not None and weight else c)
    return matrix(rows)


# -- drafting ------------------------------------------------------------------
#: A title is at most this many characters when a clause boundary allows it
#: (a complete clause is kept whole rather than cut mid-clause).
TITLE_CHARS = 72
#: At most this many shared tags / terms name the task class in ``apply``.
APPLY_TERMS = 3

#: Clause boundaries a title may end at, by preference: a sentence-level
#: break or a comma before a new clause, then a subordinate clause or a
#: second coordinated verb phrase, then a prepositional phrase (the verb
#: and its object stay whole). Matched outside brackets only.
_BOUNDARIES = (
    re.compile(r"\s*(?:[;:]\s|,\s|\s[—–]\s)"),
    re.compile(r"\s+(?:and then|then|before|after|so that|so|because|rather than|instead of|or else|otherwise|"
               r"and|but)\s"),
    re.compile(r"\s+(?:with|against|on|in|into|for|from|by|over|via|through|at|to|of)\s"),
    # Last: dropping a condition changes what the phrase asks most.
    re.compile(r"\s+(?:when|whenever|unless|until|if|once|only if)\s"),
)
#: What follows a stranded preposition: the next clause, or the end.
_CLAUSE_AHEAD = re.compile(r"(?:and|or|but|then|before|after|so)\b|[,;:.]|$")
#: A leading subordinate clause ("Before running the migration, check ...").
_LEADING_CLAUSE = re.compile(
    r"^(?P<sub>(?:before|after|when|whenever|if|unless|once|while|until)\b[^,;:()]*),\s+(?P<main>.+)$", re.I
)
#: Modal openings of a ``correct`` text that make it a report, not an order
#: ("The agent should have read ..." -> "Read ...").
_MODAL = re.compile(r"^(?:(?:the agent|the assistant|you|we|i|it)\s+)?(?:should|must|needs? to|has to|have to|"
                    r"ought to)\s+(?:have\s+|always\s+)?", re.I)
#: Words a complete phrase does not end with.
_DANGLING = frozenset(
    "a an the to of and or but with for in into on at by from as that which who is are was be been not no "
    "its their our your his her this these those any every each some than then".split()
)
#: Words too generic to name a task class in ``apply`` (besides English stop
#: words): they occur in almost every correction.
_GENERIC = frozenset(
    "use used using make made check checked need needs first only instead don didn doesn isn new old way "
    "thing things time work task tasks agent correction wrong correct right just really actually "
    # verbs of any task title: they say that work was done, not which kind
    "fix fixed add added update updated write wrote set run ran get got prepare review improve change".split()
)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=\S)")
_FULL_STOP = re.compile(r"(?<=[.!?])\s+(?=\S)")


def _one_line(text) -> str:
    if isinstance(text, list):
        text = ", ".join(str(t) for t in text)
    return " ".join(str(text or "").split())


def _outside_brackets(text: str) -> list[bool]:
    """Per character: True when not inside ``(...)`` or ``[...]``."""
    depth, out = 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        out.append(depth == 0)
        if ch in ")]" and depth:
            depth -= 1
    return out


def _sentences(text: str, *, semicolon: bool = True) -> list[str]:
    """``text`` split after ``.``, ``!``, ``?`` (and ``;`` unless
    ``semicolon=False``) outside brackets."""
    text = _one_line(text)
    ok = _outside_brackets(text)
    out, start = [], 0
    for m in (_SENTENCE_END if semicolon else _FULL_STOP).finditer(text):
        if ok[m.start() - 1]:
            out.append(text[start:m.start()])
            start = m.end()
    out.append(text[start:])
    return [s for s in (x.strip() for x in out) if s]


def _first_sentence(text: str, *, semicolon: bool = True) -> str:
    """The first sentence (a ``;`` ends one too unless ``semicolon=False``),
    its end mark dropped for ``;``: ``"A; b."`` -> ``"A"``."""
    parts = _sentences(text, semicolon=semicolon)
    return parts[0].rstrip(";").strip() if parts else ""


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _lower_first(text: str) -> str:
    if len(text) > 1 and text[0].isupper() and text[1].islower():
        return text[0].lower() + text[1:]
    return text


def _sentence(text: str) -> str:
    """``text`` as one sentence: capitalised, ending in ``.`` (or its own
    ``!``/``?``), a trailing ``;``/``:``/``,`` dropped."""
    text = _one_line(text).rstrip(";:,— ")
    if not text:
        return ""
    return _capital(text) + ("" if text[-1] in ".!?" else ".")


def _drop_specifics(text: str) -> str:
    """``text`` without bracketed specifics — a bracket holding a number
    (``"(changelog benchmark: p95 220 ms to 160 ms)"``) — when at least five
    words remain: the case's figures, not the lesson. Brackets without a
    digit (``"(but not including)"``) may carry meaning and stay."""
    out = _one_line(re.sub(r"\s*\([^()]*\d[^()]*\)", "", text))
    out = re.sub(r"\s+([,;.])", r"\1", out)
    return out if len(out.split()) >= 5 else _one_line(text)


#: Where a second instruction starts inside one sentence: ", then ...",
#: ", and then ...", or ", and " before a word that opens a clause of its
#: own (``word``: checked against :data:`_CONTINUES`). "X before Y" and
#: "X and Y" (no comma) are one instruction and have no match here.
_NEXT_STEP = re.compile(r",\s+(?:and\s+)?then\s+(?=\S)|,\s+and\s+(?=(?P<word>[a-z][\w'-]*)\s+\S)")
#: Words after ", and " that continue the first instruction rather than
#: start a second one: determiners, pronouns, prepositions, negation
#: ("the linked issues", "that you've passed hers on", "not v1").
_CONTINUES = frozenset(
    "a an the this that these those its it their them they his her hers him he she our we us your you my me i "
    "one ones some any every each all both either neither no not nor none so as than to of for with without in "
    "into on onto at by from via per about over under within between through other others such same more most "
    "less fewer few many much own which who whom whose what where whether there here also too".split()
)


def _plain(text: str) -> list[bool]:
    """Per character: True when outside brackets and quotes."""
    ok = _outside_brackets(text)
    for m in _QUOTED.finditer(text):
        ok[m.start():m.end()] = [False] * (m.end() - m.start())
    return ok


def _first_instruction(sentence: str) -> str:
    """``sentence`` up to where a second instruction starts (:data:`_NEXT_STEP`,
    outside brackets and quotes): "Roll the key, then update the config" ->
    "Roll the key". It splits only outside a series, when the main clause
    has no earlier comma ("A, B, and C" is one list), and ", and <word>"
    only before a word not in :data:`_CONTINUES`. A first part that is not
    a complete phrase keeps the sentence whole."""
    ok = _plain(sentence)
    lead = _LEADING_CLAUSE.match(sentence)
    main_at = lead.start("main") if lead else 0
    for m in _NEXT_STEP.finditer(sentence):
        if not ok[m.start()]:
            continue
        if m.group("word") in _CONTINUES:
            continue
        if any(ok[i] and sentence.startswith(", ", i) for i in range(main_at, m.start())):
            # a series ("check the logs, metrics, and traces"; "read the
            # header, sleep that long, then carry on"): cut, it would be a
            # comma splice of the first items
            continue
        head = sentence[: m.start()].rstrip()
        if _ends_complete(head):
            return head
    return sentence


def rule_sentence(correct: str) -> str:
    """The one instruction a rule states, from a correction's ``correct``:
    its first sentence (``;`` ends one) up to a second instruction joined
    by ", then" or ", and <verb>" (:func:`_first_instruction`; the rest
    stays in the drafted body, which quotes the whole ``correct``), a modal
    opening removed ("should have read" -> "Read"), bracketed figures
    dropped, capitalised, ending in a full stop. ``""`` for an empty text."""
    first = _first_instruction(_first_sentence(correct))
    if not first:
        return ""
    stripped = _MODAL.sub("", first)
    first = stripped if len(stripped.split()) >= 2 else first
    return _sentence(_drop_specifics(first))


#: Prepositions a clause may end with ("the host you are pointed at").
_PREPOSITIONS = frozenset("to of with for in into on at by from as".split())


def _ends_complete(phrase: str, *, stranded: bool = False) -> bool:
    """At least three words, the last not an article, conjunction or the
    like; ``stranded``: a preposition may end it (the phrase was cut at a
    clause boundary, so nothing of its own follows the preposition)."""
    words = re.findall(r"[A-Za-z']+", phrase)
    if len(words) < 3:
        return False
    last = words[-1].lower()
    return last not in _DANGLING or (stranded and last in _PREPOSITIONS)


def _clause_prefixes(text: str) -> list[list[str]]:
    """Per boundary tier, the prefixes of ``text`` that end at a boundary
    outside brackets (shortest first)."""
    ok = _outside_brackets(text)
    tiers = []
    for tier, pattern in enumerate(_BOUNDARIES):
        found = []
        for m in pattern.finditer(text):
            if not m.start() or not ok[m.start()]:
                continue
            if pattern is _BOUNDARIES[2] and _CLAUSE_AHEAD.match(text, m.end()):
                continue  # a stranded preposition ("pointed at and ...") belongs to its clause
            found.append(text[: m.start()].rstrip(",;:— "))
        tiers.append([p for p in found if _ends_complete(p, stranded=tier < 2)])
    return tiers


def _shorten(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its longest prefix
    that ends at a clause boundary and fits (boundary tiers in order), else
    its shortest complete prefix (longer than ``limit``, never cut
    mid-clause), else ``text`` whole."""
    if len(text) <= limit:
        return text
    tiers = _clause_prefixes(text)
    for prefixes in tiers:
        fitting = [p for p in prefixes if len(p) <= limit]
        if fitting:
            return max(fitting, key=len)
    every = [p for prefixes in tiers for p in prefixes]
    return min(every, key=len) if every else text


#: An aside between two dashes, with text after it.
_DASH_ASIDE = re.compile(r"\s[—–-]\s(?:(?!\s[—–-]\s).)+?\s[—–-]\s(?=\S)")
#: An instruction, an aside between commas, and a trailing condition
#: ("Go through the thread, every attachment included, before asking").
_COMMA_ASIDE = re.compile(
    r"^(?!(?:before|after|when|whenever|if|unless|once|while|until)\b)(?P<main>[^,;:]+?),\s[^,;:]+,\s(?P<cond>(?:before|after|when|whenever|until|unless|once|if)\s[^,;:]+)$", re.I
)


def title_from(rule: str, limit: int = TITLE_CHARS) -> str:
    """A page title from a rule sentence: a complete phrase, never cut
    mid-clause.

    Brackets and an aside between dashes are dropped; an aside between
    commas too when the phrase is too long with it and fits without it
    (so a trailing "before/after/when/until/unless ..." condition stays);
    a leading condition moves behind the instruction when both fit
    (``"Before running the migration, check the backup: …"`` ->
    ``"Check the backup before running the migration"``); a long
    instruction is shortened at a clause boundary (:func:`_shorten`).
    ``limit``: characters, kept whenever a boundary allows. No final stop.
    """
    text = _one_line(re.sub(r"\s*\([^()]*\)", "", _one_line(rule))).rstrip(".!?;:, ")
    # An example quoted after a comma or colon (', "USD 1,299"') is not the phrase.
    unquoted = re.sub(r"\s*[,:]\s*[\"“][^\"”]*[\"”]", "", text)
    text = unquoted if _ends_complete(unquoted) else text
    # A pair of dashes holds an aside ("everything she sent - subject,
    # attachments - before asking"): the phrase goes on after it.
    bare = _one_line(_DASH_ASIDE.sub(" ", text))
    text = bare if _ends_complete(bare) else text
    # A colon or dash introduces details (a list, an example): the phrase ends there.
    head = re.split(r":\s|\s[—–-]\s", text, maxsplit=1)[0]
    text = head if _ends_complete(head) else text
    if not text:
        return "Candidate rule"
    m = _COMMA_ASIDE.match(text)
    if len(text) > limit and m and len(m.group("main")) + 1 + len(m.group("cond")) <= limit:
        # too long with its aside, whole without: the condition stays
        text = f"{m.group('main')} {m.group('cond')}"
    m = _LEADING_CLAUSE.match(text)
    if m:
        main = _shorten(m.group("main").rstrip(".!?;:, "), limit)
        joined = f"{main} {_lower_first(m.group('sub'))}"
        text = joined if len(joined) <= limit else main
    head = _shorten(text, limit).rstrip(".;:,—- ")
    return _capital(head) or "Candidate rule"


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


@lru_cache(maxsize=1)
def _stemmer():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


def _term_key(word: str) -> str:
    """A word folded for comparison: its Snowball (Porter 2) stem in lower
    case (``certificates`` ~ ``certificate``, ``joined`` ~ ``join``,
    ``translation`` ~ ``translate``)."""
    return _stemmer().stemWord(word.lower())


def _stop_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS) | _GENERIC


#: Tags that name a page type, not a kind of work.
_TYPE_TAGS = frozenset({"rule", "correction", "task"})


@dataclass
class _Item:
    """One piece of evidence for ``apply``: a correction with its tasks.
    ``tags``: folded tags of the correction and its tasks; ``terms``: folded
    content words of both (key -> the lower-case forms written); ``task_terms``: the
    folded words of the task titles."""

    tags: set[str]
    terms: dict[str, set[str]]
    task_terms: set[str]


def _evidence_items(members: list[dict], tasks: dict[str, dict]) -> list[_Item]:
    stop = _stop_words()
    items = []
    for m in members:
        rows = [tasks[t] for t in m["tasks"] if t in tasks]
        tags = {str(t).lower() for t in m["tags"]} | {str(t).lower() for r in rows for t in r["tags"]}
        tags -= _TYPE_TAGS
        task_text = " ".join(_one_line(r["title"]) for r in rows)
        text = f"{task_text} {_correction_doc(m)}"
        terms: dict[str, str] = {}
        for w in re.findall(_TERM, text):
            if w.lower() not in stop and not any(ch.isdigit() for ch in w):
                terms.setdefault(_term_key(w), set()).add(w.lower())
        task_terms = {_term_key(w) for w in re.findall(_TERM, task_text) if w.lower() not in stop}
        items.append(_Item(tags, terms, task_terms))
    return items


def _reads_plural(form: str) -> bool:
    """True for a word that reads right after "involves" whatever its part
    of speech: a plural (``passwords``) or an ``-ing`` form (``sorting``)."""
    return (form.endswith("s") and not form.endswith(("ss", "us", "is"))) or (form.endswith("ing") and len(form) > 6)


def _surface(items: list[_Item], key: str) -> str:
    """How ``apply`` writes the word with stem ``key``, after "involves": a
    plural the evidence writes beside a singular (``passwords``, not the
    bare count noun ``password``), else an ``-ing`` form (``sorting``), else
    the shortest form written (``join`` rather than ``joined``). Only forms
    the evidence writes: no inflection is guessed."""
    forms = {w for i in items for w in i.terms.get(key, ())}
    plural = {w for w in forms if _reads_plural(w) and w.endswith("s") and any(not v.endswith("s") for v in forms)}
    pool = plural or {w for w in forms if _reads_plural(w)} or forms
    return min(pool, key=lambda w: (len(w), w))


def _join(words: list[str], last: str) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {last} {words[-1]}"


def _cover(sets: list[set[str]], limit: int) -> list[str] | None:
    """Greedy set cover: at most ``limit`` keys such that every set holds at
    least one of them (ties: alphabetical), or None."""
    left = [s for s in sets]
    chosen: list[str] = []
    while left:
        counts: dict[str, int] = {}
        for s in left:
            for k in s:
                counts[k] = counts.get(k, 0) + 1
        if not counts or len(chosen) == limit:
            return None
        best = min(counts, key=lambda k: (-counts[k], k))
        chosen.append(best)
        left = [s for s in left if best not in s]
    return chosen or None


def apply_condition(members: list[dict], tasks: dict[str, dict]) -> str:
    """When a rule applies, as a condition starting ``"when "``, derived
    from what the evidence has in common: the tags every correction (with
    its tasks) carries, as a kind of work (a tag may be a noun, an adjective
    or a tool's name: "when a task is about tls work"), with up to two words
    every task title uses ("... and involves certificates"); without
    a shared tag, the content words every correction and its task use
    (task-title words first). It never names a narrower class than the
    evidence: a tag or word missing from one piece of evidence is not
    required; when nothing is common to all, a short ``or`` list that
    covers every piece is named instead ("when a task is about ci or
    testing work", "when a task involves exports or imports"). Every word comes
    from the evidence (:func:`_surface`: in a form it writes), so no
    language, system or tool is invented.
    """
    items = _evidence_items(members, tasks)
    if not items:
        return "when a task could repeat the mistake these corrections describe"
    tags = sorted(set.intersection(*(i.tags for i in items)))[:APPLY_TERMS]
    # a word that only repeats a tag ("translate" beside "translation") says nothing more
    near_tag = lambda k: any(k == _term_key(t) for t in tags)  # noqa: E731
    in_titles = set.intersection(*(i.task_terms for i in items)) if all(i.task_terms for i in items) else set()
    common = set.intersection(*(set(i.terms) for i in items))
    # Beside tags, only words of every task title name the kind of work; the
    # corrections' own words (often details of the mistake) only when no tag
    # is shared.
    pool = (in_titles & common) if tags else common
    ranked = sorted((k for k in pool if not near_tag(k)), key=lambda k: (k not in in_titles, k))
    surfaces = [_surface(items, k) for k in ranked]
    # "involves" reads right with a plural or an -ing form; a bare form may
    # be a count noun or a verb ("involves link"), so it is named only when
    # no shared word reads right.
    words = ([w for w in surfaces if _reads_plural(w)] or surfaces)[: 2 if tags else APPLY_TERMS]
    if tags and words:
        return f"when a task is about {_join(tags, 'and')} work and involves {_join(words, 'and')}"
    if tags:
        return f"when a task is about {_join(tags, 'and')} work"
    if words:
        return f"when a task involves {_join(words, 'and')}"
    if all(i.tags for i in items):
        cover = _cover([i.tags for i in items], APPLY_TERMS)
        if cover:
            return f"when a task is about {_join(sorted(cover), 'or')} work"
    # Words shared by at least two pieces of evidence, covering all of them.
    df: dict[str, int] = {}
    for i in items:
        for k in i.terms:
            df[k] = df.get(k, 0) + 1
    sets = [{k for k in i.terms if df[k] >= 2} for i in items]
    cover = _cover(sets, APPLY_TERMS) if all(sets) else None
    if cover:
        return f"when a task involves {_join(sorted(_surface(items, k) for k in cover), 'or')}"
    return "when a task could repeat the mistake these corrections describe"


def _yaml_tags(tags: list[str]) -> str:
    if all(_SIMPLE_TAG.match(t) for t in tags):
        return f"tags: [{', '.join(tags)}]\n"
    return "tags:\n" + "".join(f"  - {render_scalar(t)}\n" for t in tags)


#: How a correction's :func:`rule_similarities` figure is labelled, on a
#: drafted candidate page and in the workbench's Rules pane alike.
RULE_SIMILARITY_LABEL = "similarity to the rule"
#: Encoded texts kept per process, by (embedder name, text): the Rules pane
#: asks for the same rule and correction texts on every read.
_RULE_TEXT_CACHE: dict[tuple[str, str], np.ndarray] = {}
_RULE_TEXT_CACHE_MAX = 20_000


def _evidence_text(correction: dict) -> str:
    return _one_line(correction["fields"].get("correct")) or _one_line(correction["title"])


def rule_similarities(rule_text: str, corrections: list[dict], embedder) -> list[float | None]:
    """Per correction (store rows, ``store.learning.corrections``), the
    cosine of its ``correct`` (its title when it has none) to ``rule_text``,
    both embedded by ``embedder`` (an :class:`brainwork.learn.embed.Embedder`;
    unit rows, so a dot product). How far each piece of evidence supports
    the rule as worded, so one that teaches something else can be dropped
    at approval. None for a correction with no text; all None without a
    rule text. The one measure behind :data:`RULE_SIMILARITY_LABEL`.
    """
    rule_text = _one_line(rule_text)
    own = [_evidence_text(c) for c in corrections]
    if not rule_text:
        return [None] * len(corrections)
    wanted = [t for t in dict.fromkeys([rule_text, *own]) if t and (embedder.name, t) not in _RULE_TEXT_CACHE]
    if wanted:
        if len(_RULE_TEXT_CACHE) + len(wanted) > _RULE_TEXT_CACHE_MAX:
            _RULE_TEXT_CACHE.clear()
        for t, v in zip(wanted, embedder.encode(wanted)):
            _RULE_TEXT_CACHE[(embedder.name, t)] = np.asarray(v, np.float32)
    r = _RULE_TEXT_CACHE[(embedder.name, rule_text)]
    return [float(_RULE_TEXT_CACHE[(embedder.name, t)] @ r) if t else None for t in own]


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
    embedder=None,
) -> Draft:
    """Draft one candidate rule from a cluster (deterministic, no model
    call: the vectors are given).

    - ``rule``: ONE imperative sentence, :func:`rule_sentence` of the
      ``correct`` of the most central member (highest mean cosine of its
      ``correct`` to the others'; ties: id). The rest of that text stays in
      the body.
    - ``title``: :func:`title_from` the rule (a complete phrase).
    - ``why``: the first sentence of that member's ``why``.
    - ``apply``: :func:`apply_condition` of the members and their tasks.
    - the body states the true counts (corrections, distinct tasks) and,
      given an ``embedder``, each member's :func:`rule_similarities` figure,
      so the person can drop a correction that teaches something else when
      approving.

    Args:
        members: correction rows (``store.learning.corrections``) of the cluster.
        vecs: their clustering vectors, same order (unit rows).
        tasks: task rows by id (``store.learning.tasks``), for the task class.
        today: the ``created`` date; path: where the page goes.
        supersedes: an active rule id this candidate proposes to replace.
        correct_vecs: embeddings of the members' ``correct`` texts; they
            choose the central member. Without them, ``vecs`` decide.
        embedder: encodes the rule sentence and the members' ``correct``
            for the evidence figures; without it the lines have none.
    """
    n = len(members)
    basis = correct_vecs if correct_vecs is not None and len(correct_vecs) == n else vecs
    sims = basis @ basis.T
    centrality = (sims.sum(axis=1) - 1.0) / max(1, n - 1)
    order = sorted(range(n), key=lambda i: (-round(float(centrality[i]), 6), members[i]["id"]))
    central = members[order[0]]
    cf = central["fields"]
    original = _one_line(cf.get("correct")) or _one_line(central["title"])
    rule_text = rule_sentence(original) or _sentence(central["title"])
    task_ids = sorted({t for m in members for t in m["tasks"]})
    unlinked = sum(1 for m in members if not m["tasks"])
    counts = counts_text(n, len(task_ids), unlinked)
    terms = shared_terms([_correction_doc(m) for m in members])
    tags = ["rule"] + _shared_tags([m["tags"] for m in members])
    why = _sentence(_first_sentence(cf.get("why"), semicolon=False)) or _sentence(central["title"])
    apply_ = apply_condition(members, tasks)
    title = title_from(rule_text)
    support = rule_similarities(rule_text, members, embedder) if embedder is not None else [None] * n

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
        f"Drafted by `brainwork consolidate` on {today}{sim_txt}. Evidence: {counts}. "
        "Edit the title, rule, why and apply, choose the corrections that support the rule, "
        "then approve it, or reject it with a reason.",
        "",
        "How it was drafted:",
        "",
        f"{CENTRAL_LINE}[[{central['id']}]] "
        f"(mean similarity to the others {float(centrality[order[0]]):.2f}): “{original}”",
        "- Applies: what every correction and its task have in common (tags, words).",
    ]
    if terms:
        body.append(f"- Shared terms: {', '.join(terms)}.")
    if supersedes:
        body.append(f"- Teaches the same lesson as the active rule [[{supersedes}]] and says what it prescribes was "
                    "wrong: suggested to supersede it (approving alone does not retire it).")
    for r in rejected_before:
        body.append(f"- An earlier candidate from some of these corrections was rejected: [[{r}]]; new corrections have joined since.")
    body += ["", EVIDENCE_HEADING, ""]
    index = {m["id"]: i for i, m in enumerate(members)}
    for m in sorted(members, key=lambda m: m["id"]):
        f = m["fields"]
        src = f" (task [[{m['tasks'][0]}]])" if m["tasks"] else ""
        s = support[index[m["id"]]]
        sim = f" ({RULE_SIMILARITY_LABEL} {s:.2f})" if s is not None else ""
        body.append(f"- [[{m['id']}]]{src}{sim}: wrong: {_one_line(f.get('wrong'))} Correct: {_one_line(f.get('correct'))}")
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


def _both_texts(rows: list[dict]) -> list[dict]:
    """The rows with both a ``wrong`` and a ``correct`` text."""
    return [m for m in rows if _one_line(m["fields"].get("wrong")) and _one_line(m["fields"].get("correct"))]


def _newest(rows: list[dict]) -> list[dict]:
    return sorted(rows, key=lambda m: (m["created"] or "", m["id"]), reverse=True)[:CONTRADICTION_SAMPLE]


def _contradiction_texts(rule: Rule, members: list[dict], evidence: list[dict]) -> list[str]:
    out = [_one_line(rule.text) or _one_line(rule.title)]
    for m in _after(rule, members) + _newest(_both_texts(evidence)):
        out += [_one_line(m["fields"].get("wrong")), _one_line(m["fields"].get("correct"))]
    return [t for t in out if t]


def _contradiction_margins(rule: Rule, members: list[dict], evidence: list[dict],
                           texts: "_TextVectors") -> list[dict[str, float]]:
    """Per member made after ``rule`` became active (the newest
    :data:`CONTRADICTION_SAMPLE` of them, with both texts), how far it says
    the rule's prescription was wrong, by each test that applies (cosine
    differences; positive: it calls wrong what the rule prescribes):

    - by the rule's text: how much closer the text is to the member's
      ``wrong`` than to its ``correct``;
    - by the rule's evidence (``evidence``: its promoted corrections, the
      newest :data:`CONTRADICTION_SAMPLE` with both texts; none: no such
      test): how much more what the agent did (the member's ``wrong``)
      looks like what the evidence calls correct than like what it calls
      wrong, the mean cosine to the evidence's ``correct`` texts minus the
      mean to their ``wrong`` texts.

    The text test alone reads a repeat of the rule's lesson as against it:
    the repeat's ``wrong`` names the very mistake the rule warns about, so
    it is close to the rule's text (on sample_vault/, a repeat of the
    certificate-chain rule: +0.20), but closer still to the evidence's
    ``wrong`` (-0.11). The evidence test alone reads a ``wrong`` that names
    the prescribed tool as what it prescribes (a rephrased repeat that
    says ansible undid a hand edit, beside evidence saying "roll it out with
    ansible": +0.05)."""
    text = _one_line(rule.text) or _one_line(rule.title)
    after = _both_texts(_after(rule, members))
    ev = _newest(_both_texts(evidence))
    if not after or not text:
        return []
    texts.need(_contradiction_texts(rule, after, ev))
    did = texts.matrix([_one_line(m["fields"].get("wrong")) for m in after])
    r = texts.vector(text)
    by_text = did @ r - texts.matrix([_one_line(m["fields"].get("correct")) for m in after]) @ r
    out = [{m["id"]: float(d) for m, d in zip(after, by_text)}]
    if ev:
        to_right = did @ texts.matrix([_one_line(e["fields"].get("correct")) for e in ev]).T
        to_wrong = did @ texts.matrix([_one_line(e["fields"].get("wrong")) for e in ev]).T
        out.append({m["id"]: float(d) for m, d in zip(after, to_right.mean(axis=1) - to_wrong.mean(axis=1))})
    return out


def _contradicting(rule: Rule, members: list[dict], evidence: list[dict], margin: float,
                   texts: "_TextVectors") -> set[str]:
    """The members that contradict ``rule``: all of them when the group does
    (by every test of :func:`_contradiction_margins`, the mean over the
    members at least ``margin``: a cluster saying the rule's prescription
    was wrong), else each member whose own margins all reach it. A
    correction against the rule is never its evidence, whatever the others
    in its group say. ``evidence``: the rule's evidence corrections other
    than the members."""
    tests = _contradiction_margins(rule, members, evidence, texts)
    if not tests:
        return set()
    if all(sum(t.values()) / len(t) >= margin for t in tests):
        return {m["id"] for m in members}
    return {i for i in tests[0] if all(t[i] >= margin for t in tests)}


def _lesson_match(rule: Rule, members: list[dict], row_of: dict[str, int], evidence_col: dict[str, int],
                  sims: np.ndarray, th, texts: "_TextVectors") -> tuple[float | None, bool, list[str]]:
    """Whether a group of corrections teaches active ``rule``'s lesson:
    ``(similarity, matches, strays)``.

    The rule's evidence is promoted, so outside the clustering; the group is
    compared with it as clustering would have compared them had it been
    clustered too (:func:`lesson_matrices`; ``sims``: the unresolved
    corrections then the evidence, rows and columns by ``row_of`` and
    ``evidence_col``, the latter offset by the unresolved count): the group
    and the evidence meet when their mean similarity is at least
    ``cluster_similarity`` (the linkage), and then each member must pass
    the member check in the merged cluster — its mean similarity to the
    other members and the evidence at least ``cluster_member_similarity``;
    a single correction beside the evidence is held to more, as a pair is,
    ``cluster_pair_similarity`` to the evidence. When the person approved
    evidence looser than that, its loosest correction's mean similarity to
    the rest is the bar instead (never below the linkage): on sample_vault/
    the sourcing rule's loosest correction has 0.14 and a rephrased repeat
    0.27. A rephrased repeat in a vault of generated corrections has 0.55
    to its rule's evidence, a one-off about date formats beside "put every
    log in UTC" 0.25. (Two corrections asking for the customer's own time
    zone in customer reports have 0.33-0.35 to that UTC evidence: a
    neighbouring lesson that clustering itself would join, and which the
    contradiction check does not catch either.)

    A rule without such evidence is compared by what it states: the group
    teaches its lesson when :func:`_same_lesson` (the rule's text+why
    against the centroid of the members' drafted lessons) is at least
    ``supersede_similarity``; no member is judged alone then.

    ``strays`` are the members that fail; ``similarity`` is the group's mean
    similarity to the evidence (to the rule's text without evidence). The
    rule's page is not compared: a rephrased repeat shares its lesson, not
    the page's wording, and a correction about another lesson in the same
    kind of work shares the wording."""
    if rule.status != "active":
        return None, False, []
    n = len(row_of)
    cols = [n + evidence_col[i] for i in rule.evidence if i in evidence_col]
    if not cols:
        if not _rule_lesson(rule):
            return None, False, []
        texts.need([_rule_lesson(rule)] + _member_lessons(members))
        score = _same_lesson(rule, members, texts)
        return score, score >= th.supersede_similarity, []
    rows = [row_of[m["id"]] for m in members]
    to_evidence = np.asarray(sims[np.ix_(rows, cols)], dtype=np.float64)
    score = float(to_evidence.mean())
    if score < th.cluster_similarity:
        return score, False, []
    among = np.asarray(sims[np.ix_(rows, rows)], dtype=np.float64)
    own = np.asarray(sims[np.ix_(cols, cols)], dtype=np.float64)
    loosest = (min((own[k].sum() - own[k, k]) / (len(cols) - 1) for k in range(len(cols)))
               if len(cols) > 1 else 1.0)
    if len(rows) == 1:
        fits = to_evidence.mean(axis=1)
        need = th.cluster_pair_similarity
    else:
        fits = (to_evidence.sum(axis=1) + among.sum(axis=1) - np.diag(among)) / (len(cols) + len(rows) - 1)
        need = th.cluster_member_similarity
    need = max(th.cluster_similarity, min(need, float(loosest)))
    keep = [k for k, v in enumerate(fits) if float(v) >= need]
    if not keep:
        return score, False, []
    return score, True, [m["id"] for k, m in enumerate(members) if k not in keep]


def _lesson(rule: str, why: str) -> str:
    """The text a lesson is compared by: its instruction and its reason."""
    return f"{_one_line(rule)} {_one_line(why)}".strip()


def _member_lesson(member: dict) -> str:
    """The lesson a draft from ``member`` would state: :func:`rule_sentence`
    of its ``correct`` and the first sentence of its ``why`` ("" for none)."""
    f = member["fields"]
    return _lesson(rule_sentence(_one_line(f.get("correct"))), _sentence(_first_sentence(f.get("why"), semicolon=False)))


def _member_lessons(members: list[dict]) -> list[str]:
    """Per member, :func:`_member_lesson` (empty ones left out)."""
    return [t for t in map(_member_lesson, members) if t]


def _rule_lesson(rule: Rule) -> str:
    return _lesson(rule.text or rule.title, rule.why)


def _same_lesson(rule: Rule, members: list[dict], texts: "_TextVectors") -> float:
    """Cosine between ``rule``'s text+why and the centroid of the lessons
    its cluster would draft (:func:`_member_lessons`): how far the cluster
    teaches the same lesson as the rule, whatever it says of its
    prescription. 0.0 when either side is empty."""
    lessons = _member_lessons(members)
    own = _rule_lesson(rule)
    if not lessons or not own:
        return 0.0
    cen = centroid(list(texts.matrix(lessons)))
    return float(cen @ texts.vector(own)) if cen is not None else 0.0


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
        if row["reason"] == DECLINED_EVIDENCE:
            continue  # corrections taken out of a rule at approval: not a rejected lesson
        page = by_id.get(row["rule"])
        if page is None or page.status == "rejected":
            out.setdefault(row["rule"], set()).update(row["corrections"])
    return out


def _declined_sets(store: Store, rules: list[Rule]) -> dict[str, set[str]]:
    """Per active rule, the corrections the person took out of its evidence
    when approving it (:func:`brainwork.learn.rules.approve`, recorded as a
    ``RejectedCluster`` row with reason :data:`DECLINED_EVIDENCE`): none of
    them is proposed for that rule again, alone or beside new corrections
    (neither as its evidence nor in a draft superseding it); each stays free
    to join another rule or a new candidate. A rule no longer active (the
    approval undone, the rule retired) makes its row inert."""
    active = {r.id for r in rules if r.status == "active"}
    return {row["rule"]: set(row["corrections"]) for row in q.rejections(store)
            if row["reason"] == DECLINED_EVIDENCE and row["rule"] in active}


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
    corr_by_id = {c["id"]: c for c in all_corrections}
    unresolved = [c for c in all_corrections if c["status"] in UNRESOLVED]
    seen = q.seen_corrections(store)
    rules = list_rules(store)
    live_rules = [r for r in rules if r.status in ("candidate", "active")]
    active_rules = [r for r in live_rules if r.status == "active"]
    task_rows = {t["id"]: t for t in q.tasks(store)}
    # Page vectors: a cluster's centroid is matched against the candidates' pages.
    vecs = page_vectors(config, store, [c["id"] for c in unresolved] + [r.id for r in live_rules if r.status == "candidate"],
                        progress)
    # An active rule's evidence (promoted, so outside the clustering) is what
    # a repeat of its lesson is compared with, in the lesson similarity
    # clustering uses: appended to the clustered rows, compared in one matrix.
    unresolved_ids = {c["id"] for c in unresolved}
    evidence_ids = sorted({i for r in active_rules for i in r.evidence if i in corr_by_id and i not in unresolved_ids})

    report(0, len(unresolved), "clustering")
    # Clustered by the lesson (correct + why, specifics dropped), not by the
    # page text: the same mistake on another system reads differently, and
    # two different lessons about one situation read alike.
    texts = _TextVectors(config)
    from brainwork.learn.embed import get_embedder

    emb = get_embedder(config) if unresolved else None
    cache_file = Path(config.store) / LESSON_FILE if config.store else None
    weights = (1.0, th.cluster_why_weight, th.cluster_wrong_weight)
    lessons, all_sims = (lesson_matrices(unresolved + [corr_by_id[i] for i in evidence_ids], emb.encode, emb.name,
                                         th.cluster_why_weight, weights, cache_file)
                         if emb else (matrix([]), np.zeros((0, 0), np.float32)))
    n_unresolved = len(unresolved)
    lessons, lesson_sims = lessons[:n_unresolved], all_sims[:n_unresolved, :n_unresolved]
    row_of = {c["id"]: k for k, c in enumerate(unresolved)}
    evidence_col = {cid: k for k, cid in enumerate(evidence_ids)}
    has = [i for i, c in enumerate(unresolved) if c["id"] in vecs and float(np.abs(lessons[i]).sum()) > 0]
    items = [unresolved[i] for i in has]
    raw = matrix([vecs[c["id"]] for c in items])
    mixed = lessons[has] if has else matrix([])
    sims = lesson_sims[np.ix_(has, has)] if has else None
    groups = cluster_lessons(mixed, th.cluster_similarity, th.cluster_member_similarity, th.cluster_pair_similarity, sims)
    # Corrections without a vector (empty text) stay singletons.
    groups += [[len(items) + i] for i in range(len(unresolved) - len(items))]
    clustered_ids = {c["id"] for c in items}
    items += [c for c in unresolved if c["id"] not in clustered_ids]

    rejected = _rejected_sets(store, rules)
    declined = _declined_sets(store, rules)
    rule_vecs = {r.id: vecs[r.id] for r in live_rules if r.status == "candidate" and r.id in vecs}
    # Candidates whose evidence is among the corrections clustered here: the
    # linkage and member check have already compared every group with that
    # evidence, so a group that did not join it teaches something else
    # (a look-alike, a one-off) and is not matched to it by similarity to
    # the page. Active rules' evidence is promoted, outside the clustering:
    # similarity is how a repeat of their lesson is found.
    item_ids = {c["id"] for c in items}
    judged = {r.id for r in live_rules if r.status == "candidate" and item_ids.intersection(r.evidence)}
    used_paths: set[str] = set()
    edits = Edits(config)
    clusters: list[Cluster] = []
    drafts: list[Draft] = []
    suppressed: list[dict] = []
    to_cluster: set[str] = set()
    # Pass 1: match every group to the existing rules and note which texts
    # the drafts need, so the model encodes them all in one call (a
    # contradiction check encodes its rule's and members' texts at once: it
    # decides how the group is split).
    plans: list[dict] = []
    # (group, rules it may not be matched to, rule it is matched to): a
    # group matched to an active rule gives up the corrections the person
    # took out of that rule's evidence at approval, those that do not teach
    # its lesson and those that contradict it; they are matched again as a
    # group of their own — barred from that rule, or, when they contradict
    # it, held to it so that a draft may propose to supersede it.
    work: list[tuple[list[int], frozenset[str], Rule | None]] = [(g, frozenset(), None) for g in groups]

    def recheck(part: list[int]) -> list[list[int]]:
        # A part of a split group is held to clustering's member check
        # again: a member may have stayed only beside those that left.
        if len(part) < 2 or any(i >= len(raw) for i in part):
            return [part]
        return member_check(mixed, [part], th.cluster_member_similarity, th.cluster_pair_similarity, sims)
    for group, barred, held_to in work:
        if not group:
            continue
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

        match: Rule | None = held_to  # an existing candidate or active rule: by shared evidence, else by similarity
        strays: list[str] = []  # members that do not teach the active rule's lesson
        overlap = [(len(idset & set(r.evidence)), r) for r in live_rules if r.id not in barred]
        overlap = [(n, r) for n, r in overlap if n]
        if match is not None:
            cluster.rule_similarity = _lesson_match(match, members, row_of, evidence_col, all_sims, th, texts)[0]
        elif overlap:
            overlap.sort(key=lambda x: (-x[0], x[1].status != "candidate", x[1].id))
            match = overlap[0][1]
            cluster.rule_similarity = (float(cen @ rule_vecs[match.id]) if cen is not None and match.id in rule_vecs
                                       else _lesson_match(match, members, row_of, evidence_col, all_sims, th, texts)[0])
        else:
            # An active rule: the group teaches its lesson (as the rule's
            # evidence teaches it, else as the rule states it). A candidate:
            # the group's centroid is near its page.
            lesson = [(_lesson_match(r, members, row_of, evidence_col, all_sims, th, texts), r)
                      for r in active_rules if r.id not in barred]
            lesson = sorted(((m, r) for m, r in lesson if m[0] is not None and m[1]), key=lambda x: (-x[0][0], x[1].id))
            if lesson:
                (score, _ok, strays), match = lesson[0]
                cluster.rule_similarity = score
            elif cen is not None and rule_vecs:
                scored = sorted(((float(cen @ v), rid) for rid, v in rule_vecs.items() if rid not in barred and rid not in judged),
                                key=lambda x: (-x[0], x[1]))
                if scored and scored[0][0] >= th.rule_match_similarity:
                    match = next(r for r in live_rules if r.id == scored[0][1])
                    cluster.rule_similarity = scored[0][0]
        sent_back = (declined.get(match.id, set()) | set(strays)) & idset if match is not None else set()
        if sent_back:
            # Neither evidence for that rule nor in a draft that would
            # supersede it: the rest is matched again on its own centroid.
            work += [(g, barred, held_to) for g in recheck([i for i in group if items[i]["id"] not in sent_back])]
            work += [(g, barred | {match.id}, None) for g in recheck([i for i in group if items[i]["id"] in sent_back])]
            continue
        # Every group matched to an active rule is checked, new or not: a
        # correction left out for contradicting it must not come back as its
        # evidence at the next pass.
        check = match is not None and match.status == "active"
        contradicting = (_contradicting(match, members, [corr_by_id[i] for i in match.evidence if i in corr_by_id and i not in idset],
                                        th.rule_contradiction_margin, texts) if check else set())
        if contradicting and contradicting != idset:
            # Each correction is judged on its own: one that contradicts the
            # rule is never its evidence, whatever the others say.
            work += [(g, barred, held_to) for g in recheck([i for i in group if items[i]["id"] not in contradicting])]
            work += [(g, barred, match) for g in recheck([i for i in group if items[i]["id"] in contradicting])]
            continue
        if contradicting and not recurs:
            continue  # one correction against the rule: not evidence, and no lesson of its own yet
        if match is None and not recurs:
            continue
        # A group the person rejected stays rejected whatever it would be
        # proposed as — a new candidate, a replacement, or evidence for a
        # look-alike rule — until a new correction joins it. A candidate that
        # already lists all of it holds it (someone put it there since).
        covering = [rid for rid, s in rejected.items() if idset <= s]
        held = match is not None and match.status == "candidate" and idset <= set(match.evidence)
        if covering and not held:
            suppressed.append({"corrections": ids, "rejected": sorted(covering)})
            continue
        draft = match is None or bool(contradicting)
        if contradicting:
            texts.need([_rule_lesson(match)] + _member_lessons(members))
        if draft:
            texts.need([_one_line(m["fields"].get("correct")) for m in members])
        plans.append({"cluster": cluster, "members": members, "group": group, "match": match,
                      "contradicts": bool(contradicting), "in_vec": in_vec, "gmat": gmat})

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
            cluster.added = missing
            if missing:
                rows = [corr_by_id[i] for i in dict.fromkeys(match.evidence + missing) if i in corr_by_id]
                edits.edit(match.path, lambda t, missing=missing, rows=rows: restate_counts(
                    add_items(t, EVIDENCE_KEY, [link(i) for i in missing]), rows))
        elif match is not None:
            cluster.rule = match.id
            if plan["contradicts"]:
                if _same_lesson(match, members, texts) >= th.supersede_similarity:
                    supersede = match
                else:
                    # Closer to the rule's "wrong" side but about another
                    # lesson: a rule of its own, not a replacement.
                    cluster.rule, cluster.rule_similarity = None, None
            else:
                cluster.action = "evidence"
        if cluster.action == "new" or supersede is not None:
            earlier = sorted(rid for rid, s in rejected.items() if idset & s)
            draft_vecs = gmat if len(in_vec) == len(members) else matrix(
                [mixed[i] if i < len(raw) else np.zeros(mixed.shape[1], np.float32) for i in sorted(plan["group"], key=lambda i: items[i]["id"])]
            )
            corrects = [_one_line(m["fields"].get("correct")) for m in members]
            d = draft_rule(members, draft_vecs, task_rows, today=day, path="", supersedes=supersede.id if supersede else None,
                           similarity=cluster.similarity, rejected_before=earlier,
                           correct_vecs=texts.matrix(corrects) if all(corrects) else None, embedder=emb)
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
        at = datetime.now(timezone.utc).replace(microsecond=0).isoformat()
        read, found = [c["id"] for c in unresolved], [c.to_json() for c in clusters]
        if changes:
            # The pass is recorded by the operation (a store action): undoing
            # it makes the corrections it read new again, so the next pass
            # reports what the first one did.
            summary = f"consolidate: {counted(len(drafts), 'candidate rule')}, {counted(len(clusters), 'cluster')}"
            op = changeset.apply(
                config, store, "consolidate", summary, changes,
                store_actions=[{"do": "consolidation-pass", "id": q.next_pass_id(store), "at": at, "corrections": read,
                                "clusters": found, "candidates_created": len(drafts)}],
                details={"candidates": [d.path[:-3] for d in drafts], "clusters": len(clusters)},
            )
            out.operation = op.id
        else:
            q.record_pass(store, at, read, found, len(drafts))
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
