"""Counts in messages: ``1 correction``, ``2 corrections``, never
``correction(s)``. A leaf module, so that every layer words its counts
alike. The nouns in messages take ``s`` (rule, correction, cluster, task,
link, file, argument, field); pass ``plural`` otherwise."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``"1 correction"`` / ``"0 corrections"`` / ``"2 corrections"``
    (``plural``: the plural when it is not ``noun + "s"``)."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def noun(n: int, singular: str, plural: str | None = None) -> str:
    """The noun alone, agreeing with ``n``: ``argument`` / ``arguments``."""
    return singular if n == 1 else (plural or singular + "s")
