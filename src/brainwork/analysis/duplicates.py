"""Suspected duplicate pages: block cheaply, then score candidate pairs.

Scores are 0..1: ``names`` (best ratio between the pages' titles, aliases
and file names), ``body`` (token-sort ratio of their words), ``lexical =
w * names + (1 - w) * body`` with ``w`` = ``Thresholds.duplicate_name_weight``,
and, when the store holds both pages' embeddings, ``score = (lexical +
semantic) / 2`` (else ``score = lexical``). A pair is a duplicate from
``Thresholds.duplicate_similarity`` on, a merge candidate from
``Thresholds.merge_candidate_similarity``. ``body`` compares what each page
says of its own: a line found on more than :data:`BOILERPLATE_PAGES` pages
(a template's footer, its "do not edit" comments, its empty fields) is left
out of both bodies, as pages made from one template share those lines
whatever they are about. Only pairs sharing a block are
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
from typing import Callable, Iterable, Iterator, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from rapidfuzz import fuzz, process, utils

from brainwork.vault.links import MDLINK_DEST, WIKILINK_PARTS
from brainwork.vault.parse import is_template_text

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

#: A line found on more pages than this is boilerplate (a template's, the
#: vault's footer) and says nothing of a page: the bound a term of the
#: blocking has (a line on that many pages is not what one page is about).
BOILERPLATE_PAGES = MAX_POSTING
#: A URL, left out of a line's key: a footer line linking to its own page
#: ("Edit in GitHub" with the page's path) is the same line on every page.
#: The same pattern in RE2 (Arrow) and ``re``: explicit ASCII classes only.
_LINE_URL = r"https?://[^ \t\n\r\f)>\]]*"
_LINE_URL_RE = re.compile(_LINE_URL)
#: What ``pc.ascii_trim_whitespace`` trims.
_ASCII_SPACE = " \t\n\v\f\r"


def comparable_names(names: Iterable[str]) -> list[str]:
    """The names two pages can be same-named through: each non-empty one of
    ``names`` that is not a template placeholder (``{{title}}``, ``<%
    tp.file.title %>``: every page made from one template carries it, so it
    says nothing of what the page is), through rapidfuzz's
    ``default_process``."""
    return [utils.default_process(x) for x in names if x and not is_template_text(x)]


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


def _line_key(line: str) -> str:
    """A line as boilerplate is recognised by: without URLs, trimmed
    (the Python side of :func:`_distinct_lines`' Arrow code)."""
    if "://" in line:
        line = _LINE_URL_RE.sub("", line)
    return line.strip(_ASCII_SPACE)


def _distinct_lines(texts: list[str]) -> np.ndarray:
    """The stable hashes of each of ``texts``' distinct non-empty line keys
    (:func:`_line_key`), the texts' joined (a hash once per text that has
    the line). In Arrow: the split, the URLs' removal (RE2) and the trim
    run in C, and each distinct line of the batch is hashed once."""
    pool = pa.system_memory_pool()
    lines = pc.split_pattern(pa.array(texts, type=pa.large_string(), memory_pool=pool), "\n", memory_pool=pool)
    per_text = np.diff(lines.offsets.to_numpy().astype(np.int64))
    flat = pc.ascii_trim_whitespace(pc.replace_substring_regex(lines.flatten(), _LINE_URL, "", memory_pool=pool),
                                    memory_pool=pool)
    encoded = pc.dictionary_encode(flat, memory_pool=pool)
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    vocabulary = encoded.dictionary.to_pylist()
    del lines, flat, encoded
    if not vocabulary:
        return np.empty(0, dtype=np.int64)
    text_of = np.repeat(np.arange(len(texts), dtype=np.int64), per_text)
    pairs = np.unique(text_of * len(vocabulary) + codes)  # each (text, line) once
    codes = pairs % len(vocabulary)
    if "" in vocabulary:
        codes = codes[codes != vocabulary.index("")]
    return np.asarray(_stable_hashes(vocabulary), dtype=np.int64)[codes]


def _own_text(body: str, boilerplate: np.ndarray, known: dict[str, bool]) -> str:
    """``body`` without its boilerplate lines (``boilerplate``: the sorted
    hashes of the line keys on more than :data:`BOILERPLATE_PAGES` pages;
    ``known``: key -> boilerplate or not, of the keys met so far, so a
    template's lines are hashed once however many pages carry them).
    ``body`` itself when it has none."""
    if not len(boilerplate) or not body:
        return body
    lines = body.split("\n")
    keys = [_line_key(x) for x in lines]
    new = [k for k in dict.fromkeys(keys) if k and k not in known]
    if new:
        hashes = np.asarray(_stable_hashes(new), dtype=np.int64)
        at = np.minimum(np.searchsorted(boilerplate, hashes), len(boilerplate) - 1)
        known.update(zip(new, (boilerplate[at] == hashes).tolist()))
    drop = [bool(k) and known[k] for k in keys]
    if not any(drop):
        return body
    return "\n".join(x for x, d in zip(lines, drop) if not d)


def _stable_hashes(words: list[str]) -> list[int]:
    """A signed 64-bit hash of each of ``words`` that does not change between
    runs (Python's ``hash`` is salted per process): its 8-byte BLAKE2b digest
    read as a little-endian int64, the digests of all ``words`` joined and
    read as one array (one call per page, not per word)."""
    blake2b = hashlib.blake2b
    digests = b"".join([blake2b(w.encode("utf-8"), digest_size=8).digest() for w in words])
    return np.frombuffer(digests, dtype="<i8").tolist()


#: Pages whose term arrays are joined into one array as they are read.
_PAGE_BATCH = 1_024
#: Sorted terms scanned per step when counting document frequencies.
_COUNT_SLICE = 1 << 20
#: Terms are counted in 2 ** (64 - _PART_SHIFT) parts of the hash range.
_PART_SHIFT = 61
#: Low bits of a term indexing the rare-term bitmap (1 MB).
_BITMAP_MASK = (1 << 20) - 1


def _page_terms(body: str, table: dict[str, int]) -> np.ndarray:
    """One page's distinct terms, ascending: the hashes of its adjacent word
    pairs (``table`` caches each distinct word's stable hash)."""
    words = _hashes_of(body.casefold().split(), table)
    with np.errstate(over="ignore"):
        terms = words[:-1] * np.int64(1_000_003) + words[1:]
    terms.sort()
    if len(terms) > 1:
        # unique: a sort and a neighbour comparison (what ``np.unique``
        # returns, without its per-call overhead)
        keep = np.empty(len(terms), dtype=bool)
        keep[0] = True
        np.not_equal(terms[1:], terms[:-1], out=keep[1:])
        terms = terms[keep]
    return terms


#: Characters ``str.split()`` splits ASCII text at besides Arrow's ASCII
#: whitespace (space, tab, LF, VT, FF, CR): the information separators.
_PY_ONLY_SPACE = re.compile("[\x1c-\x1f]")


def _hashes_of(words: list[str], table: dict[str, int]) -> np.ndarray:
    """The stable hashes of ``words`` (``table`` caches them; each word not
    in it is hashed once however often it occurs), as int64."""
    new = list(set(words).difference(table))
    if new:
        table.update(zip(new, _stable_hashes(new)))
    return np.fromiter(map(table.__getitem__, words), dtype=np.int64, count=len(words))


def _plain_terms(texts: list[str], table: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """What :func:`_page_terms` gives for each of ``texts`` (ASCII, none of
    :data:`_PY_ONLY_SPACE`), joined, and the number of terms per text.

    In Arrow and numpy, not word by word in Python: lower-casing and the
    whitespace split (``ascii_lower``, ``ascii_split_whitespace``; the same
    words as ``str.casefold().split()`` for such texts, apart from the empty
    words Arrow keeps at leading and trailing whitespace, dropped here), the
    distinct words of the batch (``dictionary_encode``) hashed once, the
    adjacent pairs within each text, and each text's terms sorted in place
    and made unique with one neighbour comparison for the batch."""
    # Arrow's default pool (mimalloc) keeps what it freed: ~20 MB more peak memory.
    pool = pa.system_memory_pool()
    text = pa.array(texts, type=pa.large_string(), memory_pool=pool)
    lists = pc.ascii_split_whitespace(pc.ascii_lower(text, memory_pool=pool), memory_pool=pool)
    offsets = lists.offsets.to_numpy().astype(np.int64)
    encoded = pc.dictionary_encode(lists.flatten(), memory_pool=pool)
    codes = encoded.indices.to_numpy(zero_copy_only=False)
    vocabulary = encoded.dictionary.to_pylist()
    del text, lists, encoded
    if "" in vocabulary:
        empty = vocabulary.index("")
        vocabulary[empty] = "\x00"  # hashed, never used: its words are dropped
        real = codes != empty
        codes = codes[real]
        offsets = np.concatenate(([0], np.cumsum(real)))[offsets]
    words = _hashes_of(vocabulary, table)[codes]
    per_text = np.diff(offsets)
    n_terms = np.maximum(per_text - 1, 0)
    if not len(words):
        return np.empty(0, dtype=np.int64), n_terms
    with np.errstate(over="ignore"):
        pairs = words[:-1] * np.int64(1_000_003) + words[1:]
    across = offsets[1:-1] - 1  # a pair of one text's last word and the next text's first
    across = across[(across >= 0) & (across < len(pairs))]
    if len(across):
        inside = np.ones(len(pairs), dtype=bool)
        inside[across] = False
        pairs = pairs[inside]
    ends = np.cumsum(n_terms)
    starts = ends - n_terms
    for a, b in zip(starts[n_terms > 1].tolist(), ends[n_terms > 1].tolist()):
        pairs[a:b].sort()
    keep = np.ones(len(pairs), dtype=bool)
    if len(pairs) > 1:
        np.not_equal(pairs[1:], pairs[:-1], out=keep[1:])
    keep[starts[n_terms > 0]] = True
    kept = np.concatenate(([0], np.cumsum(keep)))
    return pairs[keep], kept[ends] - kept[starts]


def _batch_terms(texts: list[str], table: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """Each of ``texts``' distinct terms (:func:`_page_terms`), joined in
    order, and the number of terms per text: the plain ASCII texts through
    :func:`_plain_terms`, any other one on its own."""
    plain = [i for i, t in enumerate(texts) if t.isascii() and not _PY_ONLY_SPACE.search(t)]
    if len(plain) == len(texts):
        return _plain_terms(texts, table)
    parts: list[np.ndarray | None] = [None] * len(texts)
    if plain:
        terms, lengths = _plain_terms([texts[i] for i in plain], table)
        for i, part in zip(plain, np.split(terms, np.cumsum(lengths)[:-1])):
            parts[i] = part
    for i, t in enumerate(texts):
        if parts[i] is None:
            parts[i] = _page_terms(t, table)
    return np.concatenate(parts), np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))


def _repeated(ordered: np.ndarray, least: int, most: int | None = None) -> np.ndarray:
    """The distinct values found ``least`` to ``most`` (None: any number of)
    times in ``ordered`` (ascending), ascending. Counted a slice at a time,
    each slice ending at the end of a run of equal values, so the run bounds
    never take more than a slice's worth of memory (one int64 per distinct
    value at once would be ~50 MB for the terms of 50,000 pages)."""
    out = [ordered[:0]]
    n = len(ordered)
    a = 0
    while a < n:
        b = min(a + _COUNT_SLICE, n)
        if b < n:
            b = int(np.searchsorted(ordered, ordered[b - 1], side="right"))
        part = ordered[a:b]
        starts = np.flatnonzero(np.concatenate(([True], part[1:] != part[:-1])))
        counts = np.diff(np.append(starts, len(part)))
        ok = counts >= least if most is None else (counts >= least) & (counts <= most)
        out.append(part[starts[ok]])
        a = b
    return np.concatenate(out)


def _sketch_pairs(bodies: Iterable[str]) -> set[tuple[int, int]]:
    """Pairs of pages sharing at least ``SKETCH_MIN_SHARED`` values of their
    sketches: each page's ``DUPLICATE_SKETCH`` smallest hashes among its
    *shared rare* terms (found on 2 to ``MAX_POSTING`` pages). Terms are the
    whitespace-separated, case-folded words and each pair of adjacent words
    (pairs are rare even where words are not, as in repetitive agent
    prose); everything after the split runs in numpy, as this touches every
    word of every body. ``bodies`` is read once, in page order.

    Memory: two int64 per term (~8 million terms at 50,000 pages: the terms
    by page and one sorted copy for the document frequencies), then
    per-batch arrays; the sketches themselves are ``DUPLICATE_SKETCH``
    values per page."""
    # A stable 64-bit hash per distinct word (blake2b), so blocking is the
    # same in every run; hashing only distinct words keeps it cheap. Each
    # page's words become hashes at once: holding every page's words as
    # Python strings cost ~25 kB a page (1.3 GB at 50,000 pages).
    table: dict[str, int] = {}
    batches: list[np.ndarray] = []  # each page's distinct terms (ascending), pages of one batch joined
    batch_lengths: list[np.ndarray] = []  # terms per page of each batch
    pending: list[str] = []
    for body in bodies:
        pending.append(body)
        if len(pending) == _PAGE_BATCH:
            terms, lengths = _batch_terms(pending, table)
            batches.append(terms)
            batch_lengths.append(lengths)
            pending = []
    if pending:
        terms, lengths = _batch_terms(pending, table)
        batches.append(terms)
        batch_lengths.append(lengths)
    del table, pending
    if not batches or not sum(len(b) for b in batches):
        return set()
    # Document frequencies: the terms on 2 to MAX_POSTING pages. Counted
    # by sorting (a plain sort; an argsort to keep track of pages would
    # cost ~15x more), one part of the hash range at a time (its top bits),
    # so the sorted copy is an eighth of all terms (~8 MB, not ~63 MB at
    # 50,000 pages); the parts, in order, are ascending.
    parts = [(b >> _PART_SHIFT).astype(np.int8) for b in batches]
    rare_parts = []
    for part in range(-(1 << (63 - _PART_SHIFT)), 1 << (63 - _PART_SHIFT)):
        ordered = np.concatenate([b[k == part] for b, k in zip(batches, parts)])
        ordered.sort()
        rare_parts.append(_repeated(ordered, 2, MAX_POSTING))
    del parts, ordered
    rare = np.concatenate(rare_parts)
    del rare_parts
    if not len(rare):
        return set()
    # Bottom-k per page: each page's terms are ascending, so its sketch is
    # its first DUPLICATE_SKETCH rare terms.
    # Membership in ``rare``: a bitmap of the low bits first (one gather per
    # term), the binary search only for the terms it lets through (at
    # 50,000 pages ~80,000 rare values in 2 ** 20 slots: ~8% false hits).
    bitmap = np.zeros(_BITMAP_MASK + 1, dtype=bool)
    bitmap[rare & _BITMAP_MASK] = True
    values, docs = [], []
    first_doc = 0
    for terms, lengths in zip(batches, batch_lengths):
        maybe = np.flatnonzero(bitmap[terms & _BITMAP_MASK])
        at = np.searchsorted(rare, terms[maybe])
        np.minimum(at, len(rare) - 1, out=at)
        kept = maybe[rare[at] == terms[maybe]]
        del at, maybe
        kept_docs = np.searchsorted(np.cumsum(lengths), kept, side="right")
        rank = np.arange(len(kept)) - np.searchsorted(kept_docs, kept_docs, side="left")
        chosen = rank < DUPLICATE_SKETCH
        values.append(terms[kept[chosen]])
        docs.append((kept_docs[chosen] + first_doc).astype(np.int32))
        first_doc += len(lengths)
    del batches, rare
    n = np.int64(first_doc)
    # Postings: pages per sketch value, in page order within each value (a
    # stable sort of the page-ordered sketches).
    hashes, docs = np.concatenate(values), np.concatenate(docs)
    order = np.argsort(hashes, kind="stable")
    hashes, docs = hashes[order], docs[order]
    bounds = np.concatenate(([0], np.flatnonzero(np.diff(hashes)) + 1, [len(hashes)]))
    # Every pair of pages within each posting, as one int64 code a * n + b
    # (a < b: postings keep page order), counted with one sort; postings of
    # one size are expanded together (an index matrix and the upper
    # triangle of its columns) instead of a tuple per pair in Python.
    sizes = np.diff(bounds)
    codes = []
    for size in np.unique(sizes[sizes > 1]).tolist():  # only values on several pages
        starts = bounds[:-1][sizes == size]
        block = docs[starts[:, None] + np.arange(size)].astype(np.int64)
        i, j = np.triu_indices(size, 1)
        codes.append((block[:, i] * n + block[:, j]).ravel())
    if not codes:
        return set()
    ordered = np.concatenate(codes)
    del codes
    ordered.sort()  # in place: no second copy of the ~4 million codes at 50,000 pages
    values = _repeated(ordered, SKETCH_MIN_SHARED)
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
    return find_duplicates_streamed(
        [d.id for d in docs], [comparable_names(d.names) for d in docs], (d.body for d in docs),
        lambda rows: {i: docs[i].body for i in rows}, threshold, merge_threshold, name_weight, vectors,
    )


def find_duplicates_streamed(
    ids: Sequence[str],
    names: Sequence[Sequence[str]],
    bodies: Iterable[str],
    bodies_of: Callable[[set[int]], dict[int, str]],
    threshold: float,
    merge_threshold: float,
    name_weight: float = 0.4,
    vectors: dict[str, np.ndarray] | None = None,
) -> list[DuplicatePair]:
    """:func:`find_duplicates` without holding every body: ``ids`` and
    ``names`` (title, aliases, file name, through
    :func:`comparable_names`) per page, ``bodies`` every page's
    body in the same order (read once, for the sketch), ``bodies_of`` the
    bodies of the given rows (those of the candidate pairs that pass the
    name bound, for scoring)."""
    vectors = vectors or {}
    line_hashes: list[np.ndarray] = []

    def counted(texts: Iterable[str]) -> Iterator[str]:
        # Each body passes through once, for the sketch: its lines are
        # counted on the way, a batch at a time.
        batch: list[str] = []
        for text in texts:
            batch.append(text)
            if len(batch) == _PAGE_BATCH:
                line_hashes.append(_distinct_lines(batch))
                batch = []
            yield text
        if batch:
            line_hashes.append(_distinct_lines(batch))

    names = [[x for x in dict.fromkeys(ns) if x] for ns in names]
    squashed = [[_SQUASH.sub("", x) for x in ns] for ns in names]
    out: list[DuplicatePair] = []
    body_w = 1.0 - name_weight

    # Stage 1 (per pair, cheap): semantic score, names score, bounds.
    named: list[tuple[int, int, float | None, float, float]] = []  # i, j, semantic, names, lexical needed
    candidates = _sketch_pairs(counted(bodies)) | _name_pairs(squashed)
    ordered = np.concatenate(line_hashes) if line_hashes else np.empty(0, dtype=np.int64)
    ordered.sort()
    boilerplate = _repeated(ordered, BOILERPLATE_PAGES + 1)
    del line_hashes, ordered
    for i, j in sorted(candidates):
        va, vb = vectors.get(ids[i]), vectors.get(ids[j])
        semantic = float(np.dot(va, vb)) if va is not None and vb is not None else None
        # Smallest lexical score that can still reach the threshold.
        need = threshold if semantic is None else 2 * threshold - semantic
        if need > 1.0:
            continue
        name_score = max((fuzz.ratio(x, y) for x in names[i] for y in names[j]), default=0.0) / 100
        if name_weight * name_score + body_w < need:
            continue
        named.append((i, j, semantic, name_score, need))
    if not named:
        return []
    # The words of each page still in a pair, sorted once per page:
    # token-sort ratio is the plain ratio of the sorted words, so cpdist
    # need not sort both sides of every pair again. Each page's own words
    # (its boilerplate lines left out) and all of them: two pages with no
    # line of their own (both the bare template) are compared whole.
    own_text: dict[int, str] = {}
    full_text: dict[int, str] = {}
    known: dict[str, bool] = {}
    for i, b in bodies_of({k for t in named for k in t[:2]}).items():
        own = _own_text(b, boilerplate, known)
        own_text[i] = " ".join(sorted(_body_words(own).split(" ")))
        if not own_text[i]:  # all of them only where they are compared: no words of its own
            full_text[i] = own_text[i] if own is b else " ".join(sorted(_body_words(b).split(" ")))
    todo: list[tuple[int, int, float | None, float, float, dict[int, str]]] = []  # i, j, semantic, names, body needed, texts
    for i, j, semantic, name_score, need in named:
        body_text = own_text if own_text[i] or own_text[j] else full_text
        la, lb = len(body_text[i]), len(body_text[j])
        if la + lb and body_w * (2 * min(la, lb) / (la + lb)) + name_weight * name_score < need:
            continue
        body_needed = max(0.0, (need - name_weight * name_score) / body_w) if body_w > 0 else 0.0
        todo.append((i, j, semantic, name_score, body_needed, body_text))
    if not todo:
        return []
    # Stage 2 (all pairs at once, in C on every core): body scores. Below the
    # smallest needed score rapidfuzz answers 0, and such a pair fails anyway.
    cutoff = min(t[4] for t in todo) * 100 - 1e-9
    scores = process.cpdist([t[5][t[0]] for t in todo], [t[5][t[1]] for t in todo], scorer=fuzz.ratio,
                            processor=None, score_cutoff=max(0.0, cutoff), workers=-1)
    for (i, j, semantic, name_score, _, body_text), body in zip(todo, scores):
        body_score = 1.0 if not body_text[i] and not body_text[j] else float(body) / 100
        lexical = name_weight * name_score + body_w * body_score
        score = lexical if semantic is None else (lexical + semantic) / 2
        if score >= threshold:
            x, y = (ids[i], ids[j]) if ids[i] < ids[j] else (ids[j], ids[i])
            out.append(
                DuplicatePair(x, y, round(score, 4), round(lexical, 4), round(name_score, 4), round(body_score, 4),
                              None if semantic is None else round(semantic, 4), score >= merge_threshold)
            )
    out.sort(key=lambda p: (-p.score, p.a, p.b))
    return out
