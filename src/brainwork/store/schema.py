"""The Kùzu schema: every node and relationship table, in one place.

Pages (and attachments, ``kind = 'attachment'``) are ``Page`` nodes keyed by
page id (vault-relative path without ``.md``); a page's body is its
``PageBody`` row under the same id, with its raw links (see :data:`PAGE_NODE_COLUMNS`). Each edge type of
:mod:`brainwork.vocabulary` is its own relationship table (``USED``,
``CITED``, ...), from ``Page`` to ``Page`` or, for a dead link, from ``Page``
to ``Missing`` (keyed by the normalised target). Every edge row is one link
occurrence and carries where it was written (``file``, ``line``, ``where``).

Bump :data:`SCHEMA_VERSION` when a table changes: a store with another
version is rebuilt from the vault (history tables are kept where possible).
"""

from __future__ import annotations

from brainwork.vocabulary import EDGE_TYPES

SCHEMA_VERSION = "6"  # 2: edges carry `reverse`; 3: absent page text columns are '' (no NULLs); 4: ReviewProposal; 5: bodies in PageBody; 6: links in PageBody

#: Page columns that may be absent (no ``type:`` etc.). They are stored as
#: ``''``, never NULL: Kùzu 0.11.3 corrupts a STRING column when a row with a
#: NULL in it is inserted (CREATE or COPY) after values of that column were
#: SET in place and checkpointed (reproduced here; the partial sync SETs
#: changed columns). :class:`~brainwork.store.db.Store` reads ``''`` in these
#: columns back as None.
ABSENT_TEXT_COLUMNS: frozenset[str] = frozenset({"type", "status", "created", "updated"})

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

#: Columns of a page row kept in its ``PageBody`` row (keyed by the page id)
#: instead of ``Page``: the long texts that change only when the file's
#: bytes do. Kùzu 0.11.3's commit checkpoint rewrites the whole of a STRING
#: column of a table whenever one value of it is SET (measured at 50,000
#: pages: ~2 s CPU for the body column, 50 MB of text, for 1 or 900 rows;
#: 1.0-1.7 s for the links JSON of 1,000 pages), while deleting and
#: re-creating 1,000 rows of a small table costs ~0.1 s: so these are never
#: SET, a page's ``PageBody`` row is replaced whenever one of them changes.
TEXT_COLUMNS: tuple[str, ...] = ("body", "links")

#: Columns of the ``Page`` node table: a page row (:data:`PAGE_COLUMNS`)
#: without its :data:`TEXT_COLUMNS`.
PAGE_NODE_COLUMNS: tuple[tuple[str, str], ...] = tuple(c for c in PAGE_COLUMNS if c[0] not in TEXT_COLUMNS)

#: Columns of the ``PageBody`` node table: the page id and :data:`TEXT_COLUMNS`.
PAGE_BODY_COLUMNS: tuple[tuple[str, str], ...] = tuple(c for c in PAGE_COLUMNS if c[0] == "id" or c[0] in TEXT_COLUMNS)

#: A read of page ``p``'s body: ``{BODY_MATCH}RETURN ..., {BODY}`` (``body``
#: is '' for a page without a PageBody row; every page row writes one).
#: Kùzu joins ``{id: p.id}`` by scanning the whole PageBody table (a hash
#: join: ~24 ms CPU at 50,000 pages), fine for a read of many pages; a read
#: of one page by its id uses BODY_MATCH_ID, a primary-key lookup (~0.6 ms).
BODY_MATCH = "OPTIONAL MATCH (b:PageBody {id: p.id}) "
BODY_MATCH_ID = "OPTIONAL MATCH (b:PageBody {id: $id}) "
BODY = "coalesce(b.body, '') AS body"

EDGE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("file", "STRING"),  # page id of the file the link is written in
    ("line", "INT64"),  # 1-based
    ("place", "STRING"),  # 'body' | 'frontmatter'
    ("target", "STRING"),  # as written
    ("label", "STRING"),
    ("heading", "STRING"),
    ("embed", "BOOLEAN"),
    ("ambiguous", "BOOLEAN"),
    ("reverse", "BOOLEAN"),  # written with an inverse key (corrects:); for a dead link the edge would run Missing -> Page
)

#: Tables derived from the vault: dropped and rebuilt when SCHEMA_VERSION changes.
DERIVED_NODE_TABLES: tuple[str, ...] = ("Page", "PageBody", "Missing", "ParseError")

EDGE_TABLES: tuple[str, ...] = tuple(e.table for e in EDGE_TYPES)


def _cols(cols) -> str:
    return ", ".join(f"{n} {t}" for n, t in cols)


def ddl() -> list[str]:
    """The CREATE statements, idempotent (``IF NOT EXISTS``)."""
    stmts = [
        f"CREATE NODE TABLE IF NOT EXISTS Page({_cols(PAGE_NODE_COLUMNS)}, PRIMARY KEY (id))",
        f"CREATE NODE TABLE IF NOT EXISTS PageBody({_cols(PAGE_BODY_COLUMNS)}, PRIMARY KEY (id))",
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

# Undo log (brainwork.ops.record writes it, queries in store/history.py): one row per
# reversible operation; ``payload`` is the FileChange list (before/after bytes),
# zlib-compressed JSON in base64 (Kùzu 0.11.3 takes no bytes parameters).
HISTORY_DDL.append(
    "CREATE NODE TABLE IF NOT EXISTS UndoOp(id INT64, token STRING, kind STRING, summary STRING, "
    "created STRING, reversible BOOLEAN, state STRING, paths STRING[], store_actions STRING, "
    "details STRING, payload STRING, PRIMARY KEY (id))"
)

# Embeddings cache (brainwork.learn.embed, queries in store/vectors.py): one row
# per embedded page, keyed like the page. ``key`` is SHA-256 of the model name,
# the page type and the embedded text, so only changed text is re-embedded;
# ``model`` names the embedder that made ``vec``. Vectors live in their own
# table because a column under an HNSW index cannot be SET (KUZU-NOTES.md).
# The table's name can alternate with PageVecB when a big change rebuilds an
# HNSW-indexed table (the current name is in Meta 'vector_table').
VECTOR_DIM = 384
VECTOR_TABLES: tuple[str, ...] = ("PageVec", "PageVecB")


def vector_table_ddl(name: str) -> str:
    """CREATE statement of one embeddings table (``name`` in :data:`VECTOR_TABLES`)."""
    if name not in VECTOR_TABLES:
        raise ValueError(f"not a vector table: {name!r}")
    return (
        f"CREATE NODE TABLE IF NOT EXISTS {name}(id STRING, key STRING, model STRING, type STRING, "
        f"vec FLOAT[{VECTOR_DIM}], PRIMARY KEY (id))"
    )


HISTORY_DDL.append(vector_table_ddl("PageVec"))
# Recall hits (brainwork.learn.recall, queries in store/vectors.py): which page
# recall served, when (ISO UTC), as what ('rule', 'task', 'correction', ...).
HISTORY_DDL.append(
    "CREATE NODE TABLE IF NOT EXISTS RecallHit(id SERIAL, page STRING, kind STRING, at STRING, "
    "query STRING, PRIMARY KEY (id))"
)

# Consolidation (brainwork.learn.consolidate, queries in store/learning.py):
# one row per pass: when (ISO UTC), which corrections it read, the clusters it
# proposed (JSON, the shape of ``brainwork consolidate --json`` clusters) and
# how many candidate rules it drafted. The newest row tells which corrections
# are new since the last pass and which cluster each correction is in.
HISTORY_DDL.append(
    "CREATE NODE TABLE IF NOT EXISTS ConsolidationPass(id INT64, at STRING, corrections STRING[], "
    "clusters STRING, candidates_created INT64, PRIMARY KEY (id))"
)
# Rejected clusters (brainwork.learn.rules.reject): the corrections a rejected
# candidate rule was drafted from, with the reason. The rejected rule page
# (status rejected, its evidence links) is the primary memory; this row keeps
# the cluster suppressed if that page is later deleted.
HISTORY_DDL.append(
    "CREATE NODE TABLE IF NOT EXISTS RejectedCluster(rule STRING, corrections STRING[], reason STRING, "
    "at STRING, PRIMARY KEY (rule))"
)

# Dismissed findings (brainwork.analysis.findings, queries in store/dismissals.py):
# one row per dismissed finding, keyed by the finding's stable key
# ("duplicate:a|b", "orphan:notes/x", ...), with the person's reason and when
# (ISO UTC). Never touched by indexing, so dismissals survive every re-index.
HISTORY_DDL.append(
    "CREATE NODE TABLE IF NOT EXISTS Dismissal(key STRING, reason STRING, created STRING, PRIMARY KEY (key))"
)

# Review queue (brainwork.learn.dream, queries in store/review.py): one row per
# proposal a nightly `brainwork dream` gathered for a person to accept or
# decline. ``kind`` is one of brainwork.learn.dream.KINDS; ``key`` identifies
# what is proposed ("retitle:topics/x", "merge:a|b") so a declined proposal is
# not raised again; ``payload`` the JSON the accept step needs; ``state``
# 'pending' | 'accepted' | 'declined'; ``operation`` the undo-log id an
# accepted proposal produced (0: irreversible or none). Times ISO UTC.
HISTORY_DDL.append(
    "CREATE NODE TABLE IF NOT EXISTS ReviewProposal(id INT64, kind STRING, key STRING, summary STRING, "
    "payload STRING, state STRING, created STRING, decided STRING, operation INT64, PRIMARY KEY (id))"
)


# -- what a rebuild keeps (brainwork.index.rebuild) ------------------------------
def _columns_of(stmt: str) -> tuple[str, list[tuple[str, str]]]:
    """``(table, [(column, type), ...])`` of one ``CREATE NODE TABLE``
    statement above (``PRIMARY KEY`` left out)."""
    import re

    m = re.match(r"CREATE NODE TABLE IF NOT EXISTS (\w+)\((.*)\)$", stmt, re.S)
    if m is None:
        raise ValueError(f"not a node table statement: {stmt[:60]}")
    body = re.sub(r",\s*PRIMARY KEY \(\w+\)", "", m.group(2))
    cols = []
    for part in re.split(r",\s*(?![^\[]*\])", body):
        name, _, typ = part.strip().partition(" ")
        cols.append((name, typ.strip()))
    return m.group(1), cols


#: Every table a rebuild carries over from the old store to the new one:
#: the history tables, both names of the embeddings table and ``Meta``
#: (whose ``schema_version`` and ``vector_table`` the new store sets itself).
KEPT_TABLES: dict[str, list[tuple[str, str]]] = dict(
    _columns_of(s) for s in [*HISTORY_DDL, vector_table_ddl("PageVecB"),
                             "CREATE NODE TABLE IF NOT EXISTS Meta(key STRING, value STRING, PRIMARY KEY (key))"]
)
#: Meta key set in the first transaction of a cold index written in several
#: transactions (``brainwork.index.cold``) and deleted in its last: while it
#: is there the derived tables hold part of the vault, and the next sync
#: indexes it again from nothing.
COLD_INDEX_KEY = "cold_index_incomplete"
#: Meta keys the new store sets itself rather than taking from the old one
#: (a rebuild indexes the vault whole, so an old store's unfinished cold
#: index says nothing about the new one).
META_NOT_KEPT: frozenset[str] = frozenset({"schema_version", "vector_table", COLD_INDEX_KEY})


def history_columns(table: str) -> list[str]:
    """The columns a rebuild exports from ``table`` and loads into the new
    store: all but ``SERIAL`` ones (the new store numbers those again; no
    other table refers to them)."""
    return [name for name, typ in KEPT_TABLES[table] if typ != "SERIAL"]
