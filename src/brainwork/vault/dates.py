"""Dates as the vault format writes them: ISO 8601 dates or dates and times
(``2026-09-02``, ``2026-09-02T14:03Z``), as YAML's timestamps and Obsidian's
date properties write them. Such dates sort as text, so everything that
compares ``created``, ``activated`` or ``retired`` values checks them here
first: ``2026-13-45`` or ``yesterday`` is no date (docs/vault-format.md)."""

from __future__ import annotations

from datetime import datetime


def date_problem(value: str) -> str | None:
    """Why ``value`` is not an ISO 8601 date or date and time on the
    calendar, as one short phrase ("not a date (month must be in 1..12)"),
    or None when it is one."""
    v = value.strip()
    if len(v) < 10 or v[4:5] != "-" or v[7:8] != "-":
        return "not a date"
    try:
        datetime.fromisoformat(v.replace("z", "Z"))
    except ValueError as exc:
        reason = str(exc)
        return f"not a date ({reason})" if " must be in " in reason or "day is out of range" in reason else "not a date"
    return None


def iso_date(value) -> str | None:
    """``value`` (stripped) when it is such a date, else None."""
    text = str(value or "").strip()
    return text if text and date_problem(text) is None else None
