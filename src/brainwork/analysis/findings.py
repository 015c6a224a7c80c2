"""The quality bar: read-only findings about a vault.

:func:`check` reads the store (which the caller has synced with the vault)
and returns :class:`~brainwork.analysis.finding.Finding` records, dismissed
ones left out unless asked for; nothing here writes to the vault. What each
code means, its threshold and how to fix or dismiss it is in
docs/findings.md; the checks themselves are in
:mod:`brainwork.analysis.checks`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from brainwork.analysis import checks
from brainwork.analysis.finding import CODES, DESCRIPTIONS, Finding
from brainwork.config import Config
from brainwork.store import Store
from brainwork.store.dismissals import dismissed_keys

__all__ = ["CODES", "DESCRIPTIONS", "Finding", "check", "summary"]

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
