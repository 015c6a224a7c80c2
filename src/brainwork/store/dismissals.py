"""Dismissed findings: the person's "this is fine" for one finding.

A dismissal is a ``Dismissal`` node (DDL in :mod:`brainwork.store.schema`,
``HISTORY_DDL``) keyed by the finding's stable key
(:attr:`brainwork.analysis.findings.Finding.key`, e.g. ``"duplicate:a|b"``).
It belongs to the store's own history, not to the vault: re-indexing never
touches it, so a dismissal survives every sync. A dismissal whose finding no
longer occurs simply matches nothing.

The undoable ``dismiss`` operation (:func:`brainwork.ops.fixes.dismiss`) runs
:func:`dismiss` and :func:`undismiss` as store actions
(:data:`brainwork.ops.store_actions.STORE_ACTIONS`), so each function
is one self-contained statement that may also run inside a caller's
``store.write()`` block.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from brainwork.store.db import Store


@dataclass(frozen=True, slots=True)
class Dismissal:
    """One dismissed finding: its stable ``key``, the person's ``reason``
    (``""`` when none was given) and ``created`` (ISO 8601 UTC, seconds)."""

    key: str
    reason: str
    created: str


def _now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def dismiss(store: Store, key: str, reason: str = "") -> None:
    """Record that the finding ``key`` is dismissed, with the person's reason.

    Dismissing an already dismissed key replaces its reason and time.

    Raises:
        ValueError: ``key`` is empty.
    """
    if not key:
        raise ValueError("a dismissal needs a finding key")
    with store.exclusive():
        store.execute(
            "MERGE (d:Dismissal {key: $key}) SET d.reason = $reason, d.created = $created",
            {"key": key, "reason": reason or "", "created": _now()},
        )


def undismiss(store: Store, key: str) -> None:
    """Forget the dismissal of ``key`` (nothing happens if there is none)."""
    with store.exclusive():
        store.execute("MATCH (d:Dismissal {key: $key}) DELETE d", {"key": key})


def dismissed_keys(store: Store) -> set[str]:
    """Every dismissed finding key."""
    return {row[0] for row in store.execute("MATCH (d:Dismissal) RETURN d.key")}


def dismissals(store: Store) -> list[Dismissal]:
    """Every dismissal, by key."""
    return [
        Dismissal(*r)
        for r in store.execute(
            "MATCH (d:Dismissal) RETURN d.key AS key, d.reason AS reason, d.created AS created ORDER BY d.key"
        )
    ]
