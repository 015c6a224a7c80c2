"""Fuzzy page search for the command palette and page pickers.

Scores with rapidfuzz's ``WRatio`` over each page's title, aliases and id
(the best of the three counts), so "cert chain" finds "Verify the full
certificate chain" and "tasks/2026-09-14-renew-cert".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rapidfuzz import fuzz, process, utils

if TYPE_CHECKING:
    from brainwork.store.graph import PageRow


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
        self._keys: list[str] = []
        self._owner: list[int] = []
        self._pages = pages
        for i, p in enumerate(pages):
            for name in (p.title, *(p.aliases or []), p.id):
                if name:
                    self._keys.append(utils.default_process(name))
                    self._owner.append(i)

    def search(self, query: str, limit: int = 20, cutoff: float = 50) -> list[Hit]:
        """Best pages for ``query``, best first, at most ``limit``."""
        q = utils.default_process(query)
        if not q:
            return [Hit(p.id, p.title, p.type, 0.0) for p in self._pages[:limit]]
        best: dict[int, float] = {}
        for key, score, idx in process.extract(
            q, self._keys, scorer=fuzz.WRatio, processor=None, limit=limit * 8, score_cutoff=cutoff
        ):
            if len(key) < len(q):
                # WRatio's partial match also finds a short name inside the
                # query: a page titled "r" scored 90 for "certbot" and came
                # 4th. A name shorter than the query is compared whole.
                score = fuzz.QRatio(q, key, processor=None)
                if score < cutoff:
                    continue
            owner = self._owner[idx]
            if score > best.get(owner, -1):
                best[owner] = score
        ranked = sorted(best.items(), key=lambda kv: (-kv[1], self._pages[kv[0]].title))[:limit]
        return [Hit(self._pages[i].id, self._pages[i].title, self._pages[i].type, s) for i, s in ranked]
