"""The Kùzu schema: every node and relationship table, in one place.

Pages (and attachments, ``kind = 'attachment'``) are ``Page`` nodes keyed by
page id (vault-relative path without ``.md``). Each edge type of
:mod:`brainwork.vocabulary` is its own relationship table (``USED``,
``CITED``, ...), from ``Page`` to ``Page`` or, for a dead link, from ``Page``
to ``Missing`` (keyed by the normalised target). Every edge row is one link
occurrence and carries where it was written (``file``, ``line``, ``where``).

Bump :data:`SCHEMA_VERSION` when a table changes: a store with another
version is rebuilt from the vault (history tables are kept where possible).
"""

from __future__ import annotations

from brainwork.vocabulary import EDGE_TYPES

SCHEMA_VERSION = "1"

PAGE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("id", "STRING"),
    ("path", "STRING"),
    ("kind", "STRING"),  # 'page' | 'attachment'
    ("title", "STRING"),
    ("type", "STRING"),
    ("status", "STRING"),
    ("created", "STRING"),
    ("updated", "STRING"),
    ("aliases", "STRING[]"),
    ("tags", "STRING[]"),
    ("fields", "STRING"),  # frontmatter as JSON, scalars as text
    ("body", "STRING"),
    ("body_line", "INT64"),
    ("hash", "STRING"),  # SHA-256 hex of the file's bytes
    ("size", "INT64"),  # bytes
    ("mtime_ns", "INT64"),
    ("links", "STRING"),  # the page's raw links as JSON, for re-resolution
)

EDGE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("file", "STRING"),  # page id of the file the link is written in
    ("line", "INT64"),  # 1-based
    ("place", "STRING"),  # 'body' | 'frontmatter'
    ("target", "STRING"),  # as written
    ("label", "STRING"),
    ("heading", "STRING"),
    ("embed", "BOOLEAN"),
    ("ambiguous", "BOOLEAN"),
)

EDGE_TABLES: tuple[str, ...] = tuple(e.table for e in EDGE_TYPES)


def _cols(cols) -> str:
    return ", ".join(f"{n} {t}" for n, t in cols)


def ddl() -> list[str]:
    """The CREATE statements, idempotent (``IF NOT EXISTS``)."""
    stmts = [
        f"CREATE NODE TABLE IF NOT EXISTS Page({_cols(PAGE_COLUMNS)}, PRIMARY KEY (id))",
        "CREATE NODE TABLE IF NOT EXISTS Missing(id STRING, PRIMARY KEY (id))",
        "CREATE NODE TABLE IF NOT EXISTS ParseError(id SERIAL, path STRING, line INT64, message STRING, PRIMARY KEY (id))",
        "CREATE NODE TABLE IF NOT EXISTS Meta(key STRING, value STRING, PRIMARY KEY (key))",
    ]
    for table in EDGE_TABLES:
        stmts.append(
            f"CREATE REL TABLE IF NOT EXISTS {table}(FROM Page TO Page, FROM Page TO Missing, {_cols(EDGE_COLUMNS)})"
        )
    stmts.extend(HISTORY_DDL)
    return stmts


#: Tables that hold the store's own history (not derived from the vault).
#: Later features add their tables here.
HISTORY_DDL: list[str] = []
