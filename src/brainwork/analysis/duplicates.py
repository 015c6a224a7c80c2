"""Suspected duplicate pages: block cheaply, then score candidate pairs.

Scores are 0..1: ``names`` (best ratio between the pages' titles, aliases
and file names), ``body`` (token-sort ratio of their words), ``lexical =
w * names + (1 - w) * body`` with ``w`` = ``Thresholds.duplicate_name_weight``,
and, when the store holds both pages' embeddings, ``score = (lexical +
semantic) / 2`` (else ``score = lexical``). A pair is a duplicate from
``Thresholds.duplicate_similarity`` on, a merge candidate from
``Thresholds.merge_candidate_similarity``. Only pairs sharing a block are
scored: shared rare body terms (a bottom-k MinHash sketch) or a name equal
once reduced to letters and digits. docs/findings.md (``duplicate``) has
the walkthrough and the limitation that follows from blocking.

Invariant: words are hashed with a stable 64-bit hash (blake2b), so the
findings are the same in every run.
"""

from __future__ import annotations

import hashlib

import re
from itertools import combinations
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from rapidfuzz import fuzz, process, utils

from brainwork.vault.links import MDLINK_DEST, WIKILINK_PARTS

#: Size of each page's bottom-k sketch of body words.
DUPLICATE_SKETCH = 16
#: Pages sharing at least this many sketch values become candidates.
SKETCH_MIN_SHARED = 3
#: A name shared by more pages than this is generic ("Weekly sync") and is not
#: used for blocking (such pages still meet through their bodies).
MAX_BLOCK = 20
#: A term on more pages than this is common and not used for blocking.
MAX_POSTING = 25

_SQUASH = re.compile(r"[\W_]+")


@dataclass(frozen=True)
class DupDoc:
    """What the detector needs of one page: ``id``, ``names`` (title,
    aliases, file name) and ``body`` (Markdown after the frontmatter)."""

    id: str
    names: tuple[str, ...]
    body: str


@dataclass(frozen=True)
class DuplicatePair:
    """Two suspected duplicates (``a`` < ``b`` by id) and how alike they are
    (0..1): ``score`` (what the threshold is compared with), ``lexical``,
    ``names``, ``body`` and ``semantic`` (None without embeddings); ``merge``
    marks a merge candidate."""

    a: str
    b: str
    score: float
    lexical: float
    names: float
    body: float
    semantic: float | None
    merge: bool


def _body_words(body: str) -> str:
    """The body's words, case-folded, separated by single spaces, links
    reduced to what they show (rapidfuzz's C ``default_process`` does the
    case-folding and punctuation)."""
    text = WIKILINK_PARTS.sub(lambda m: " " + (m.group(2) or m.group(1)) + " ", body) if "[[" in body else body
    if "](" in text:
        text = MDLINK_DEST.sub("] ", text)
    return " ".join(utils.default_process(text).split())


def _stable_hashes(words: list[str]) -> list[int]:
    """A signed 64-bit hash of each of ``words`` that does not change between
    runs (Python's ``hash`` is salted per process): its 8-byte BLAKE2b digest
    read as a little-endian int64, the digests of all ``words`` joined and
    read as one array (one call per page, not per word)."""
    blake2b = hashlib.blake2b
    digests = b"".join([blake2b(w.encode("utf-8"), digest_size=8).digest() for w in words])
    return np.frombuffer(digests, dtype="<i8").tolist()


def _sketch_pairs(bodies: Sequence[str]) -> set[tuple[int, int]]:
    """Pairs of pages sharing at least ``SKETCH_MIN_SHARED`` values of their
    sketches: each page's ``DUPLICATE_SKETCH`` smallest hashes among its
    *shared rare* terms (found on 2 to ``MAX_POSTING`` pages). Terms are the
    whitespace-separated, case-folded words and each pair of adjacent words
    (pairs are rare even where words are not, as in repetitive agent
    prose); everything after the split runs in numpy, as this touches every
    word of every body."""
    # A stable 64-bit hash per distinct word (blake2b), so blocking is the
    # same in every run; hashing only distinct words keeps it cheap. Each
    # page's words become hashes at once: holding every page's words as
    # Python strings cost ~25 kB a page (1.3 GB at 50,000 pages). Its terms
    # are the hashes of adjacent word pairs (rarer than single words in
    # repetitive text), each once, sorted: ``np.unique`` of one page's few
    # thousand terms is cheaper than sorting all pages' terms by page and term.
    # Each page's terms are made unique with a sort and a neighbour
    # comparison (what ``np.unique`` returns, without its per-call overhead).
    table: dict[str, int] = {}
    arrays = []
    for body in bodies:
        ws = body.casefold().split()
        new = list(set(ws).difference(table))
        if new:
            table.update(zip(new, _stable_hashes(new)))
        words = np.fromiter(map(table.__getitem__, ws), dtype=np.int64, count=len(ws))
        with np.errstate(over="ignore"):
            terms = words[:-1] * np.int64(1_000_003) + words[1:]
        terms.sort()
        if len(terms) > 1:
            keep = np.empty(len(terms), dtype=bool)
            keep[0] = True
            np.not_equal(terms[1:], terms[:-1], out=keep[1:])
            terms = terms[keep]
        arrays.append(terms)
    del table
    if not arrays:
        return set()
    lengths = np.fromiter((len(a) for a in arrays), dtype=np.int64, count=len(arrays))
    hashes = np.concatenate(arrays)
    del arrays
    if not len(hashes):
        return set()
    # One stable sort by term serves both the document frequencies and the
    # postings below; ties keep page order.
    # The document-frequency filter is kept as one bool per term (not an
    # int64 frequency per term), and the sorted copy is dropped once its
    # run bounds are known: at 50,000 pages there are ~25 million terms, so
    # each int64 array of them is ~200 MB of peak memory.
    order = np.argsort(hashes, kind="stable")
    sorted_hashes = hashes[order]
    bounds = np.concatenate(([0], np.flatnonzero(sorted_hashes[1:] != sorted_hashes[:-1]) + 1, [len(hashes)]))
    del sorted_hashes
    counts = np.diff(bounds)
    rare = np.empty(len(hashes), dtype=bool)
    rare[order] = np.repeat((counts >= 2) & (counts <= MAX_POSTING), counts)
    del counts, bounds
    kept = np.flatnonzero(rare)
    del rare
    docs = np.repeat(np.arange(len(lengths), dtype=np.int32), lengths)  # ordered by (page, term)
    # Bottom-k per page: still ordered by (page, term), keep each page's first k.
    kept_docs = docs[kept]
    rank = np.arange(len(kept)) - np.searchsorted(kept_docs, kept_docs, side="left")
    chosen = np.zeros(len(hashes), dtype=bool)
    chosen[kept[rank < DUPLICATE_SKETCH]] = True
    # Postings: pages per sketch value (the sort above, restricted to the sketches).
    order = order[chosen[order]]
    hashes, docs = hashes[order], docs[order]
    bounds = np.concatenate(([0], np.flatnonzero(np.diff(hashes)) + 1, [len(hashes)]))
    # Every pair of pages within each posting, as one int64 code a * n + b
    # (a < b: postings keep page order), counted with one sort; postings of
    # one size are expanded together (an index matrix and the upper
    # triangle of its columns) instead of a tuple per pair in Python.
    n = np.int64(len(lengths))
    sizes = np.diff(bounds)
    codes = []
    for size in np.unique(sizes[sizes > 1]).tolist():  # only values on several pages
        starts = bounds[:-1][sizes == size]
        block = docs[starts[:, None] + np.arange(size)].astype(np.int64)
        i, j = np.triu_indices(size, 1)
        codes.append((block[:, i] * n + block[:, j]).ravel())
    if not codes:
        return set()
    values, counts = np.unique(np.concatenate(codes), return_counts=True)
    values = values[counts >= SKETCH_MIN_SHARED]
    return set(zip((values // n).tolist(), (values % n).tolist()))


def _name_pairs(squashed: list[list[str]]) -> set[tuple[int, int]]:
    """Pairs of pages sharing a name once squashed to letters and digits."""
    blocks: dict[str, set[int]] = {}
    for i, names in enumerate(squashed):
        for key in names:
            if key:
                blocks.setdefault(key, set()).add(i)
    pairs: set[tuple[int, int]] = set()
    for docs in blocks.values():
        if 1 < len(docs) <= MAX_BLOCK:
            pairs.update(combinations(sorted(docs), 2))
    return pairs


def find_duplicates(
    docs: Sequence[DupDoc],
    threshold: float,
    merge_threshold: float,
    name_weight: float = 0.4,
    vectors: dict[str, np.ndarray] | None = None,
) -> list[DuplicatePair]:
    """Suspected duplicate pairs among ``docs``, best first.

    Args:
        docs: the pages.
        threshold: ``Thresholds.duplicate_similarity`` (0..1).
        merge_threshold: ``Thresholds.merge_candidate_similarity`` (0..1).
        name_weight: ``Thresholds.duplicate_name_weight`` (0..1).
        vectors: optional ``{page id: L2-normalised embedding}``; a pair with
            both vectors is scored ``(lexical + cosine) / 2``.
    """
    vectors = vectors or {}
    names = [[utils.default_process(x) for x in d.names if x] for d in docs]
    names = [[x for x in dict.fromkeys(ns) if x] for ns in names]
    squashed = [[_SQUASH.sub("", x) for x in ns] for ns in names]
    out: list[DuplicatePair] = []
    body_w = 1.0 - name_weight
    body_text: dict[int, str] = {}

    def text(i: int) -> str:
        if i not in body_text:
            body_text[i] = _body_words(docs[i].body)
        return body_text[i]

    # Stage 1 (per pair, cheap): semantic score, names score, bounds.
    todo: list[tuple[int, int, float | None, float, float]] = []  # i, j, semantic, names, body needed
    for i, j in sorted(_sketch_pairs([d.body for d in docs]) | _name_pairs(squashed)):
        va, vb = vectors.get(docs[i].id), vectors.get(docs[j].id)
        semantic = float(np.dot(va, vb)) if va is not None and vb is not None else None
        # Smallest lexical score that can still reach the threshold.
        need = threshold if semantic is None else 2 * threshold - semantic
        if need > 1.0:
            continue
        name_score = max((fuzz.ratio(x, y) for x in names[i] for y in names[j]), default=0.0) / 100
        if name_weight * name_score + body_w < need:
            continue
        ta, tb = text(i), text(j)
        la, lb = len(ta), len(tb)
        if la + lb and body_w * (2 * min(la, lb) / (la + lb)) + name_weight * name_score < need:
            continue
        body_needed = max(0.0, (need - name_weight * name_score) / body_w) if body_w > 0 else 0.0
        todo.append((i, j, semantic, name_score, body_needed))
    if not todo:
        return []
    # Stage 2 (all pairs at once, in C on every core): body scores. Below the
    # smallest needed score rapidfuzz answers 0, and such a pair fails anyway.
    cutoff = min(t[4] for t in todo) * 100 - 1e-9
    bodies = process.cpdist([text(t[0]) for t in todo], [text(t[1]) for t in todo], scorer=fuzz.token_sort_ratio,
                            processor=None, score_cutoff=max(0.0, cutoff), workers=-1)
    for (i, j, semantic, name_score, _), body in zip(todo, bodies):
        a, b = docs[i], docs[j]
        body_score = 1.0 if not body_text[i] and not body_text[j] else float(body) / 100
        lexical = name_weight * name_score + body_w * body_score
        score = lexical if semantic is None else (lexical + semantic) / 2
        if score >= threshold:
            x, y = (a.id, b.id) if a.id < b.id else (b.id, a.id)
            out.append(
                DuplicatePair(x, y, round(score, 4), round(lexical, 4), round(name_score, 4), round(body_score, 4),
                              None if semantic is None else round(semantic, 4), score >= merge_threshold)
            )
    out.sort(key=lambda p: (-p.score, p.a, p.b))
    return out
