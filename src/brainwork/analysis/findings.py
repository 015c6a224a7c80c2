"""The quality bar: read-only findings about a vault (issue 3 §1).

:func:`check` reads the store (which the caller has synced with the vault)
and returns :class:`Finding` objects; nothing here writes to the vault. What
each code means, its threshold and how to fix or dismiss it is in
docs/findings.md; the checks themselves are in
:mod:`brainwork.analysis.checks`.

For the workbench's Findings pane (and any other caller)::

    from brainwork.analysis.findings import check, summary, CODES
    findings = check(config, store)                 # dismissed ones left out
    everything = check(config, store, include_dismissed=True)
    counts = summary(findings)                      # {code: n}, in CODES order
    f.key                                           # -> brainwork.store.dismissals.dismiss(store, f.key, reason)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Iterable

from brainwork.config import Config

if TYPE_CHECKING:  # the command line imports the codes without the store
    from brainwork.store import Store

#: Every finding code, in the order the checks run and summaries list them.
CODES: tuple[str, ...] = (
    "parse-error",
    "orphan",
    "dead-link",
    "ambiguous-link",
    "untyped",
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
    "stub": "a page with too little body text",
    "diary-title": "a title that names an event (a date, a ticket, too long) rather than a thing",
    "duplicate": "two pages that look like the same page",
    "oversize": "a page too large to review or extract from well",
    "secret": "a credential, private key or token in a page",
}


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
      of an untyped page; else None.
    - ``score``: the figure compared with the threshold — similarity (0..1)
      for ``duplicate`` and a dead link's best suggestion, characters for
      ``stub``, bytes for ``oversize``, title characters for ``diary-title``;
      else None.
    - ``other``: the other page involved — the duplicate's partner, the best
      retarget of a dead link, the page an ambiguous link goes to, the thing
      page a diary title resembles; else None.
    - ``evidence``: everything behind the finding (scores, thresholds,
      candidates, suggestions), JSON-serialisable.
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
    evidence: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    key: str = ""
    dismissed: bool = False

    def to_json(self) -> dict[str, Any]:
        """The ``brainwork check --format json`` object (issue 3 §1):
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


def check(
    config: Config,
    store: Store,
    codes: Iterable[str] | None = None,
    include_dismissed: bool = False,
) -> list[Finding]:
    """Run the quality checks over the store's view of the vault.

    The caller syncs the store first (``brainwork.index.sync.sync``); the
    vault's files are read only for the ``secret`` scan (frontmatter
    included) and to place a few findings on their frontmatter line.

    Args:
        config: the vault's configuration (thresholds, page types).
        store: an open store, synced with the vault.
        codes: only these codes (default: all of :data:`CODES`).
        include_dismissed: also return dismissed findings (``dismissed=True``).

    Returns:
        Findings sorted by path, line, code.

    Raises:
        ValueError: an unknown code (the message lists the known ones).
    """
    from brainwork.analysis import checks
    from brainwork.store.dismissals import dismissed_keys

    wanted = list(CODES) if codes is None else list(dict.fromkeys(codes))
    unknown = [c for c in wanted if c not in CODES]
    if unknown:
        raise ValueError(f"unknown finding code {', '.join(unknown)} (known: {', '.join(CODES)})")
    ctx = checks.Context(config, store)
    found: list[Finding] = []
    for code in CODES:
        if code in wanted:
            found.extend(checks.CHECKS[code](ctx))
    dismissed = dismissed_keys(store)
    out = []
    for f in found:
        if f.key in dismissed:
            if not include_dismissed:
                continue
            f = replace(f, dismissed=True)
        out.append(f)
    out.sort(key=lambda f: (f.path, f.line, CODES.index(f.code), f.key))
    return out


def summary(findings: Iterable[Finding]) -> dict[str, int]:
    """``{code: count}`` for the codes present, in :data:`CODES` order."""
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.code] = counts.get(f.code, 0) + 1
    return {c: counts[c] for c in CODES if c in counts}
