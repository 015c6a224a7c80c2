"""A finding: its code, where it is, and the typed evidence behind it.

Every check (:mod:`brainwork.analysis.checks`) returns :class:`Finding`
records whose ``evidence`` is the code's own evidence class below. An
evidence record is also a read-only mapping of its field names, so it
compares equal to the plain dict of the same items and prints as one; a
test or a view may build a finding with a plain dict of the same keys.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

#: Every finding code, in the order the checks run and summaries list them.
CODES: tuple[str, ...] = (
    "parse-error",
    "orphan",
    "dead-link",
    "ambiguous-link",
    "untyped",
    "invalid-field",
    "stub",
    "diary-title",
    "duplicate",
    "oversize",
    "secret",
)

#: One line per code, for help texts and pane headers.
DESCRIPTIONS: dict[str, str] = {
    "parse-error": "a file that could not be read or parsed completely",
    "orphan": "a page with no live link to or from another page",
    "dead-link": "a link whose target does not exist",
    "ambiguous-link": "a link whose name fits several pages",
    "untyped": "a page without a type, or with a type outside the vocabulary",
    "invalid-field": "a created/updated that is not a date, or a field value outside the vocabulary",
    "stub": "a page with too little body text",
    "diary-title": "a title that names an event (a date, a ticket, too long) rather than a thing",
    "duplicate": "two pages that look like the same page",
    "oversize": "a page too large to review or extract from well",
    "secret": "a credential, private key or token in a page",
}


class Evidence(Mapping):
    """Base of the evidence records: a frozen dataclass read as a mapping of
    its fields (``ev["chars"]``, ``dict(ev)``, ``ev == {"chars": 3, ...}``)."""

    def __getitem__(self, key: str) -> Any:
        if key not in self._names():
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def __repr__(self) -> str:
        return repr(dict(self))

    def to_json(self) -> dict[str, Any]:
        """The fields as plain JSON values (nested records as dicts)."""
        return {k: _plain(v) for k, v in self.items()}

    @classmethod
    def _names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))


def _plain(value: Any) -> Any:
    if isinstance(value, Evidence):
        return value.to_json()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _record(cls):
    """Frozen dataclass whose equality and hash come from :class:`Evidence`."""
    return dataclass(frozen=True, eq=False)(cls)


@_record
class Suggestion(Evidence):
    """A page a dead link might have meant: ``similarity`` 0..1."""

    page: str
    similarity: float


@_record
class SplitPoint(Evidence):
    """A ``## `` heading an oversize page could be split at (1-based file line)."""

    line: int
    heading: str


@_record
class ParseErrorEvidence(Evidence):
    line: int | None


@_record
class InvalidFieldEvidence(Evidence):
    """The frontmatter ``field``, its ``value`` as written (None when a list
    or mapping), and what it should be: ``allowed`` the vocabulary's values
    (empty for a date) and ``expected`` in words."""

    field: str
    value: str | None
    allowed: list[str]
    expected: str


@_record
class OrphanEvidence(Evidence):
    """Links the orphan has that do not connect it: dead ones, to attachments."""

    dead_links: int
    attachment_links: int


@_record
class DeadLinkEvidence(Evidence):
    """``place`` ``"body"`` or ``"frontmatter"``; ``suggestions`` best first,
    each at least ``retarget_similarity``."""

    place: str
    suggestions: list[Suggestion]
    retarget_similarity: float


@_record
class AmbiguousLinkEvidence(Evidence):
    """``candidates``: every page id the name fits."""

    candidates: list[str]
    place: str


@_record
class UntypedEvidence(Evidence):
    """``type`` the page's (None: none); ``suggestion`` a type of ``allowed``
    and ``why`` it was chosen, or None."""

    type: str | None
    allowed: list[str]
    suggestion: str | None
    why: str | None


@_record
class StubEvidence(Evidence):
    """Visible characters of body text, and the threshold."""

    chars: int
    stub_chars: int


@_record
class DiaryTitleEvidence(Evidence):
    """Why a title names an event (dates found, its length against
    ``diary_title_chars``), the thing title suggested, and an existing page
    it resembles (with the similarity, 0..1)."""

    title: str
    dates: list[str]
    length: int
    diary_title_chars: int
    suggestion: str | None
    resembles: str | None
    resembles_similarity: float | None


@_record
class DuplicateEvidence(Evidence):
    """Each part of the similarity (0..1; ``semantic`` None without
    embeddings), the thresholds and the formula that combined them."""

    similarity: float
    lexical: float
    names: float
    body: float
    semantic: float | None
    merge_candidate: bool
    duplicate_similarity: float
    merge_candidate_similarity: float
    name_weight: float
    formula: str


@_record
class OversizeEvidence(Evidence):
    bytes: int
    oversize_bytes: int
    split_points: list[SplitPoint]


@_record
class SecretEvidence(Evidence):
    """The kind found (and every kind on that line), the masked value and a
    digest that keys the finding; never the secret itself."""

    kind: str
    kinds: list[str]
    masked: str
    digest: str


@dataclass(frozen=True)
class Finding:
    """One problem found in the vault.

    - ``code``: one of :data:`CODES`.
    - ``path``: vault-relative file path (POSIX); ``page``: the page id
      (path without ``.md``).
    - ``line``: 1-based file line the finding applies to (1 when it concerns
      the whole page).
    - ``message``: one line for a person.
    - ``target``: what a fix would point at — the written target of a dead or
      ambiguous link, the suggested title of a diary title, the suggested type
      of an untyped page, the field of an invalid field; else None.
    - ``score``: the figure compared with the threshold — similarity (0..1)
      for ``duplicate`` and a dead link's best suggestion, characters for
      ``stub``, bytes for ``oversize``, title characters for ``diary-title``;
      else None.
    - ``other``: the other page involved — the duplicate's partner, the best
      retarget of a dead link, the page an ambiguous link goes to, the thing
      page a diary title resembles; else None.
    - ``evidence``: everything behind the finding, the code's evidence
      record above (a mapping; :meth:`Evidence.to_json` for JSON).
    - ``key``: stable identity for dismissal (``"duplicate:a|b"``,
      ``"dead-link:page|target"``); it does not change when lines move.
    - ``dismissed``: True when the key is dismissed (only returned with
      ``include_dismissed``).
    """

    code: str
    path: str
    page: str
    line: int
    message: str
    target: str | None = None
    score: float | None = None
    other: str | None = None
    evidence: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    key: str = ""
    dismissed: bool = False

    def suggested_pages(self) -> list[tuple[str, float | None]]:
        """Pages a fix could point the link at, ``[(page id, similarity or
        None)]``: a dead link's suggestions, an ambiguous link's candidates;
        none for other evidence (each code has its own record)."""
        ev = self.evidence
        if isinstance(ev, DeadLinkEvidence):
            return [(s.page, s.similarity) for s in ev.suggestions]
        if isinstance(ev, AmbiguousLinkEvidence):
            return [(c, None) for c in ev.candidates]
        return []

    def to_json(self) -> dict[str, Any]:
        """The ``brainwork check --format json`` object:
        ``code, path, line, message, target, score, other``."""
        return {
            "code": self.code,
            "path": self.path,
            "line": self.line,
            "message": self.message,
            "target": self.target,
            "score": self.score,
            "other": self.other,
        }

    def to_text(self) -> str:
        """The ``brainwork check`` line: ``path:line: code message``."""
        return f"{self.path}:{self.line}: {self.code} {self.message}"
