"""Fuzzy page search for the command palette and page pickers.

Every page is found by its title, aliases and id (the best of them counts),
each lower-cased and split into words by rapidfuzz's ``default_process``
after Unicode NFC normalisation (the query too: "café" typed or stored as
"e" plus a combining accent is the same word as with "é"). A query with no
words ("[[", "--") matches nothing; an empty one lists the first pages
(a picker's view before anything is typed). A
name ranks by how the query meets its words, in tiers:

1. the whole name (``certbot`` for the page titled "certbot");
2. every query word a whole word of the name (``EDI`` in "Renew EDI
   endpoint certificate"); in an id (folder and file name) a whole word
   counts as a word start;
3. every query word the start of a word (``cert chain`` in "Verify the full
   certificate chain"), in any order;
4. the query the start of the name's initials (``rtc`` for "Renew TLS
   certificate for api");
5. a fuzzy match anywhere, inside words too and with typos (``certbto``,
   ``mediate`` in "intermediate"): rapidfuzz ``partial_ratio`` of at least
   :data:`brainwork.thresholds.SEARCH_FUZZY_CUTOFF` (a query shorter than
   :data:`~brainwork.thresholds.SEARCH_TYPO_MIN_CHARS` only as it is written).

Within a tier the name the query covers most of ranks first (the shortest).
Scores are 0-100: 100 for the whole name, tiers 2-4 in the bands of
:data:`TIER_BANDS`, fuzzy matches below 70. A page matching none of these is
not returned, so a type filter with nothing that matches gives nothing.

Cost: one rapidfuzz ``cdist`` over every name (C, no Python per name) and a
literal regular-expression scan of all names joined in one string per
query word; Python work is per matching name only (10,000 pages, 20,308
names: 14 ms CPU a keystroke, median, for the palette's 50 ms target).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
from rapidfuzz import fuzz, process, utils

from brainwork.thresholds import SEARCH_FUZZY_CUTOFF, SEARCH_TYPO_MIN_CHARS

if TYPE_CHECKING:
    from brainwork.store.graph import PageRow

#: Score band (low, high) of each word tier; the fuzzy tier lies below the
#: lowest (50 up to 70), the whole name scores 100.
TIER_BANDS = {"word": (90.0, 99.0), "prefix": (80.0, 89.0), "initials": (70.0, 79.0)}
_FUZZY_BAND = (50.0, 69.0)


def _words(text: str) -> str:
    """``text`` as the matcher compares it: NFC, then rapidfuzz's
    ``default_process`` (lower case, non-alphanumerics to spaces, trimmed).
    NFC first because ``default_process`` drops a combining accent as a
    non-word character: a decomposed "café" would become "cafe"."""
    return utils.default_process(unicodedata.normalize("NFC", text))


def has_words(query: str) -> bool:
    """Whether ``query`` has anything to match: a letter or digit."""
    return bool(_words(query))


@dataclass(frozen=True)
class Hit:
    """One match: page ``id``, its ``title``, ``type``, and ``score`` (0-100)."""

    id: str
    title: str
    type: str | None
    score: float


class PageSearch:
    """An in-memory index of page names.

    Args:
        pages: the page list as :func:`brainwork.store.graph.list_pages`
            returns it (its ``id``, ``title``, ``type`` and ``aliases``).
    """

    def __init__(self, pages: "list[PageRow]"):
        self._pages = pages
        keys: list[str] = []
        owner: list[int] = []
        is_id: list[bool] = []
        for i, p in enumerate(pages):
            names = (p.title, *(p.aliases or []), p.id)
            for j, name in enumerate(names):
                key = _words(name) if name else ""
                if key:
                    keys.append(key)
                    owner.append(i)
                    is_id.append(j == len(names) - 1)
        self._keys = keys
        self._owner = np.asarray(owner, dtype=np.int64)
        self._is_id = np.asarray(is_id, dtype=bool)
        self._length = np.fromiter((len(k) for k in keys), dtype=np.int64, count=len(keys))
        self._exact: dict[str, list[int]] = {}
        for k, key in enumerate(keys):
            self._exact.setdefault(key, []).append(k)
        # All names in one string, one a line, each word after a space (the
        # line's first too), so that finding a word start is a scan for the
        # literal " word" (re's fast literal search, ~1 ms over 20,000
        # names); _starts maps a match's offset to its name.
        self._joined = "".join(f" {k}\n" for k in keys)
        self._starts = np.concatenate(([0], np.cumsum(self._length[:-1] + 2))) if keys else self._length

    @cached_property
    def _initials(self) -> tuple[str, np.ndarray, np.ndarray]:
        """Every name's initials, one a line (``"\nrtcfa"``), the offset of
        each line and each name's word count. Built at the first query that
        needs them rather than with the index, which the workbench builds
        during its first paint (~25 ms CPU of the index's ~60 ms at 10,000
        pages)."""
        initials = ["".join(w[0] for w in key.split()) for key in self._keys]
        nwords = np.fromiter((len(i) for i in initials), dtype=np.int64, count=len(initials))
        starts = np.concatenate(([0], np.cumsum(nwords[:-1] + 1))) if initials else nwords
        return "".join(f"\n{i}" for i in initials), starts, nwords

    def _names_at(self, pattern: str, text: str, starts: np.ndarray) -> np.ndarray:
        """Indices of the names (lines of ``text``) where ``pattern`` matches."""
        offsets = [m.start() for m in re.finditer(pattern, text)]
        if not offsets:
            return np.zeros(0, dtype=np.int64)
        return np.unique(np.searchsorted(starts, offsets, side="right") - 1)

    def _word_levels(self, words: list[str]) -> np.ndarray:
        """Per name: 2 when every query word is a whole word of it, 1 when
        every one at least starts a word, else 0."""
        level = None
        for w in words:
            lead = " " + re.escape(w)
            mine = np.zeros(len(self._keys), dtype=np.int8)
            mine[self._names_at(lead, self._joined, self._starts)] = 1
            mine[self._names_at(lead + r"(?=[ \n])", self._joined, self._starts)] = 2
            level = mine if level is None else np.minimum(level, mine)
        return level if level is not None else np.zeros(len(self._keys), dtype=np.int8)

    def search(self, query: str, limit: int = 20, cutoff: float = SEARCH_FUZZY_CUTOFF) -> list[Hit]:
        """Best pages for ``query``, best first, at most ``limit``.

        ``cutoff``: least rapidfuzz ``partial_ratio`` (0-100) of a fuzzy
        match, the last tier; word matches need none.
        """
        q = _words(query)
        if not q:
            if query.strip():
                return []  # characters but no word to match ("[[")
            return [Hit(p.id, p.title, p.type, 0.0) for p in self._pages[:limit]]
        if not self._keys:
            return []
        n = len(self._keys)
        if len(q) < SEARCH_TYPO_MIN_CHARS:
            cutoff = 100.0
        cover = np.minimum(len(q) / self._length, 1.0)
        score = np.zeros(n, dtype=np.float64)

        fuzzy = process.cdist([q], self._keys, scorer=fuzz.partial_ratio, processor=None,
                              score_cutoff=cutoff, dtype=np.float32)[0].astype(np.float64)
        short = np.nonzero(self._length < len(q))[0]
        if len(short):
            # partial_ratio finds a short name inside the query ("r" inside
            # "certbot" scores 100): a name shorter than the query is
            # compared whole.
            fuzzy[short] = process.cdist([q], [self._keys[k] for k in short], scorer=fuzz.ratio, processor=None,
                                         score_cutoff=cutoff, dtype=np.float32)[0]
        hit = fuzzy > 0
        low, high = _FUZZY_BAND
        span = max(100.0 - cutoff, 1.0)
        score[hit] = low + (high - low) * (0.8 * (fuzzy[hit] - cutoff) / span + 0.2 * cover[hit])

        level = self._word_levels(q.split())
        # An id's words are its folder and file name, written for the file
        # system: a whole word there counts as a word start in a title.
        level[self._is_id & (level == 2)] = 1
        compact = q.replace(" ", "")
        if len(compact) >= 2:
            initials = np.zeros(n, dtype=bool)
            joined, starts, nwords = self._initials
            initials[self._names_at("\n" + re.escape(compact), joined, starts)] = True
            initials &= level == 0
            low, high = TIER_BANDS["initials"]
            score[initials] = low + (high - low) * np.minimum(len(compact) / nwords[initials], 1.0)
        for tier, lvl in (("prefix", 1), ("word", 2)):
            at = level == lvl
            low, high = TIER_BANDS[tier]
            score[at] = low + (high - low) * cover[at]
        for k in self._exact.get(q, ()):
            score[k] = 100.0

        best = np.zeros(len(self._pages), dtype=np.float64)
        np.maximum.at(best, self._owner, score)
        found = np.nonzero(best > 0)[0]
        if len(found) > limit:
            # Only the pages scoring at least the limit-th best are sorted
            # (with their ties, which the title orders).
            floor = np.partition(best[found], len(found) - limit)[len(found) - limit]
            found = found[best[found] >= floor]
        ranked = sorted(found.tolist(), key=lambda i: (-best[i], self._pages[i].title))[:limit]
        return [Hit(self._pages[i].id, self._pages[i].title, self._pages[i].type, float(best[i])) for i in ranked]
