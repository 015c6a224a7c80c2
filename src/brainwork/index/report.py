"""The record one sync returns (:class:`SyncReport`), shared by the full
and the partial sync; imports nothing else of ``index/``."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from brainwork.model import ParseError


@dataclass
class SyncReport:
    """What one sync found and did.

    ``pages`` counts Markdown pages, ``attachments`` other files; ``edges``
    live link occurrences per edge type; ``dead_links`` link occurrences whose
    target is missing; ``ambiguous_links`` occurrences that fit several files.
    ``wrote`` is False when the vault was unchanged. ``reread`` lists the
    files a forced sync re-read whose bytes the store already had (a page
    with the stored hash, an attachment with the stored size and time):
    ``changed`` holds only files whose content differs from the store.
    """

    pages: int = 0
    attachments: int = 0
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    moved: list[tuple[str, str]] = field(default_factory=list)
    reread: list[str] = field(default_factory=list)
    edges: dict[str, int] = field(default_factory=dict)
    dead_links: int = 0
    ambiguous_links: int = 0
    parse_errors: list[ParseError] = field(default_factory=list)
    wrote: bool = False
    seconds: float = 0.0

    def to_json(self) -> dict:
        """The shape ``brainwork index --json`` prints."""
        return {
            "pages": self.pages,
            "edges": self.edges,
            "dead_links": self.dead_links,
            "parse_errors": [asdict(e) for e in self.parse_errors],
            "attachments": self.attachments,
            "added": len(self.added),
            "changed": len(self.changed),
            "removed": len(self.removed),
            "reread": len(self.reread),
            "moved": [list(m) for m in self.moved],
            "ambiguous_links": self.ambiguous_links,
            "wrote": self.wrote,
        }
