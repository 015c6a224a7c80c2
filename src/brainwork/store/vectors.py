"""Queries over the embeddings cache.

One ``PageVec`` row per page (DDL in :mod:`brainwork.store.schema`):
``id, key, model, type, vec FLOAT[384]``; ``key`` is the embedder's content
hash (model + type + text), so callers re-embed only rows whose key changed.
Vectors are L2-normalised: cosine similarity is a dot product. Search is brute
force below ``thresholds.vector_index_min_rows``, else Kùzu's HNSW index;
the Kùzu 0.11.3 quirks that shapes (no SET of an indexed vector, an emptied
indexed table, slow COPY, DDL only in auto-transaction mode, hence
:meth:`Store.exclusive`) are handled here (docs/learning-loop.md,
"Embeddings", Search). :func:`nearest` skips ids that are no longer pages, so
a search between a sync and the next embedding pass never names a deleted page.
"""

from __future__ import annotations

from typing import Callable, Iterable

import numpy as np

from brainwork.store.db import Store
from brainwork.store.schema import VECTOR_DIM, VECTOR_TABLES, vector_table_ddl

INDEX_NAME = "vec_hnsw"
SENTINEL_ID = "#sentinel"
SENTINEL_MODEL = "#sentinel"
_META_TABLE = "vector_table"
_META_MODEL = "vector_model"
#: With an HNSW index present, a batch larger than this rebuilds the table
#: instead of inserting row by row (COPY into an indexed table costs ~16 ms a
#: row; a rebuild of 10k rows ~20 s, measured here on 2 cores).
REBUILD_ROWS = 500

_SCHEMA = None


def vec_schema():
    """The Arrow schema of a vector table's rows (id, key, model, type,
    vec FLOAT[384]). pyarrow is imported on first use, not with this module:
    the workbench imports this module at start-up (through the learning
    loop), and pyarrow's import costs ~0.1-0.2 s of CPU before the first paint."""
    global _SCHEMA
    if _SCHEMA is None:
        import pyarrow as pa

        _SCHEMA = pa.schema(
            [
                ("id", pa.string()),
                ("key", pa.string()),
                ("model", pa.string()),
                ("type", pa.string()),
                ("vec", pa.list_(pa.float32(), VECTOR_DIM)),
            ]
        )
    return _SCHEMA


def __getattr__(name: str):
    if name == "VEC_SCHEMA":  # the schema under its former constant's name
        return vec_schema()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

Progress = Callable[[int, int, str], None]


# -- table bookkeeping --------------------------------------------------------
def current_table(store: Store) -> str:
    """The name of the live embeddings table (``PageVec`` or ``PageVecB``)."""
    name = store.meta(_META_TABLE)
    return name if name in VECTOR_TABLES else VECTOR_TABLES[0]


def current_model(store: Store) -> str | None:
    """The embedder name of the last embedding pass (``Meta.vector_model``)."""
    return store.meta(_META_MODEL)


def set_current_model(store: Store, model: str) -> None:
    store.set_meta(_META_MODEL, model)


def has_index(store: Store, table: str | None = None) -> bool:
    """Whether the live table has its HNSW index."""
    table = table or current_table(store)
    for row in store.execute("CALL SHOW_INDEXES() RETURN *"):
        if row[0] == table and row[1] == INDEX_NAME:
            return True
    return False


def count(store: Store, model: str | None = None) -> int:
    """Number of embedded pages (of ``model`` if given; the sentinel never counts)."""
    t = current_table(store)
    if model is None:
        return store.scalar(f"MATCH (v:{t}) WHERE v.model <> $s RETURN count(v)", {"s": SENTINEL_MODEL}) or 0
    return store.scalar(f"MATCH (v:{t}) WHERE v.model = $m RETURN count(v)", {"m": model}) or 0


def vector_state(store: Store) -> dict[str, str]:
    """``{page id: key}`` for every embedded page (sentinel left out)."""
    t = current_table(store)
    tbl = store.arrow(f"MATCH (v:{t}) WHERE v.model <> $s RETURN v.id AS id, v.key AS key", {"s": SENTINEL_MODEL})
    return dict(zip(tbl.column("id").to_pylist(), tbl.column("key").to_pylist()))


def _table(rows: list[tuple[str, str, str, str | None, np.ndarray]]) -> "pa.Table":
    import pyarrow as pa

    if rows:
        mat = np.stack([np.asarray(r[4], dtype=np.float32) for r in rows])
    else:
        mat = np.zeros((0, VECTOR_DIM), dtype=np.float32)
    if mat.shape[1] != VECTOR_DIM:
        raise ValueError(f"vectors must have {VECTOR_DIM} dimensions, got {mat.shape[1]}")
    vec = pa.FixedSizeListArray.from_arrays(pa.array(mat.ravel(), pa.float32()), VECTOR_DIM)
    return pa.table(
        {
            "id": pa.array([r[0] for r in rows], pa.string()),
            "key": pa.array([r[1] for r in rows], pa.string()),
            "model": pa.array([r[2] for r in rows], pa.string()),
            "type": pa.array([r[3] for r in rows], pa.string()),
            "vec": vec,
        },
        schema=vec_schema(),
    )


def _sentinel() -> tuple[str, str, str, None, np.ndarray]:
    v = np.zeros(VECTOR_DIM, dtype=np.float32)
    v[0] = 1.0
    return (SENTINEL_ID, SENTINEL_ID, SENTINEL_MODEL, None, v)


# -- writing ------------------------------------------------------------------
def write_vectors(
    store: Store,
    rows: list[tuple[str, str, str, str | None, np.ndarray]],
    delete_ids: Iterable[str] = (),
    model: str | None = None,
) -> None:
    """Replace the embeddings of some pages.

    Args:
        rows: ``(page id, key, model, type, vector[384] float32)`` to insert;
            an existing row with the same id is replaced (delete + insert, as
            an indexed vector cannot be SET).
        delete_ids: further page ids whose rows go (pages that are gone).
        model: if given, recorded as the current embedder (``Meta.vector_model``).

    With an HNSW index and more than :data:`REBUILD_ROWS` rows to insert,
    the table is rebuilt instead (docs/learning-loop.md, "Embeddings").
    Raises ValueError for vectors of the wrong dimension.
    """
    t = current_table(store)
    drop = sorted({r[0] for r in rows} | set(delete_ids))
    drop = [i for i in drop if i != SENTINEL_ID]
    if has_index(store, t) and len(rows) > REBUILD_ROWS:
        _rebuild(store, rows, drop, model)
        return
    data = _table(rows)
    with store.write():
        if drop:
            store.execute(f"UNWIND $ids AS i MATCH (v:{t} {{id: i}}) DELETE v", {"ids": drop})
        store.copy(t, data)
        if model is not None:
            set_current_model(store, model)


def _rebuild(store: Store, rows, drop: list[str], model: str | None) -> None:
    """Copy the live rows (minus ``drop``) plus ``rows`` into the other
    table, index it, switch to it, then drop the old index and table."""
    old = current_table(store)
    new = VECTOR_TABLES[1] if old == VECTOR_TABLES[0] else VECTOR_TABLES[0]
    gone = set(drop)
    keep = store.arrow(
        f"MATCH (v:{old}) WHERE v.model <> $s RETURN v.id AS id, v.key AS key, v.model AS model, "
        "v.type AS type, v.vec AS vec",
        {"s": SENTINEL_MODEL},
    )
    if keep.num_rows:
        import pyarrow as pa

        mask = pa.array([i not in gone for i in keep.column("id").to_pylist()])
        keep = keep.filter(mask).cast(vec_schema())
    with store.exclusive():
        store.execute(f"DROP TABLE IF EXISTS {new}")
        store.execute(vector_table_ddl(new))
        store.copy(new, keep)
        store.copy(new, _table(list(rows) + [_sentinel()]))
        store.execute(f"CALL CREATE_VECTOR_INDEX('{new}', '{INDEX_NAME}', 'vec', metric := 'cosine')")
        store.set_meta(_META_TABLE, new)
        if model is not None:
            set_current_model(store, model)
        store.execute(f"CALL DROP_VECTOR_INDEX('{old}', '{INDEX_NAME}')")
        store.execute(f"DROP TABLE {old}")


def ensure_index(store: Store, min_rows: int, progress: Progress | None = None) -> bool:
    """Build the HNSW index once the live table holds ``min_rows`` vectors.

    Returns True when the table is (now) indexed. Building takes ~2 s per
    1,000 rows on 2 cores (measured); ``progress(0, 1, "building vector
    index")`` is called before it starts.
    """
    t = current_table(store)
    if has_index(store, t):
        return True
    if count(store) < min_rows:
        return False
    if progress:
        progress(0, 1, "building vector index")
    with store.exclusive():
        if not store.scalar(f"MATCH (v:{t} {{id: $i}}) RETURN count(v)", {"i": SENTINEL_ID}):
            store.copy(t, _table([_sentinel()]))
        store.execute(f"CALL CREATE_VECTOR_INDEX('{t}', '{INDEX_NAME}', 'vec', metric := 'cosine')")
    if progress:
        progress(1, 1, "building vector index")
    return True


def clear(store: Store) -> None:
    """Forget every embedding (e.g. after a model change). An indexed table
    keeps its sentinel row so the index keeps working."""
    t = current_table(store)
    with store.write():
        store.execute(f"MATCH (v:{t}) WHERE v.id <> $s DELETE v", {"s": SENTINEL_ID})


# -- reading ------------------------------------------------------------------
def _model_filter(store: Store, model: str | None) -> str | None:
    return model if model is not None else current_model(store)


def vectors(store: Store, ids: Iterable[str], model: str | None = None) -> dict[str, np.ndarray]:
    """``{page id: vector}`` (float32, shape (384,)) for those of ``ids`` that
    are embedded with ``model`` (default: the current embedder, ``Meta.vector_model``)."""
    ids = list(ids)
    if not ids:
        return {}
    t = current_table(store)
    m = _model_filter(store, model)
    tbl = store.arrow(
        f"MATCH (v:{t}) WHERE v.id IN $ids AND v.model = $m RETURN v.id AS id, v.vec AS vec",
        {"ids": ids, "m": m or ""},
    )
    return dict(zip(tbl.column("id").to_pylist(), _matrix(tbl.column("vec"))))


def all_vectors(store: Store, type: str | None = None, model: str | None = None) -> tuple[list[str], np.ndarray]:
    """Every embedded page (of ``type`` if given) as ``(ids, matrix)``,
    matrix float32 shape (n, 384), rows in ``ids`` order, sorted by id.
    For clustering: cosine similarity of two rows is their dot product."""
    t = current_table(store)
    m = _model_filter(store, model)
    params = {"m": m or ""}
    where = "v.model = $m"
    if type is not None:
        where += " AND v.type = $t"
        params["t"] = type
    tbl = store.arrow(f"MATCH (v:{t}) WHERE {where} RETURN v.id AS id, v.vec AS vec ORDER BY v.id", params)
    return tbl.column("id").to_pylist(), _matrix(tbl.column("vec"))


def _matrix(col) -> np.ndarray:
    if len(col) == 0:
        return np.zeros((0, VECTOR_DIM), dtype=np.float32)
    arr = col.combine_chunks() if hasattr(col, "combine_chunks") else col
    # flatten() honours a slice's offset (``.values`` would not); nulls are not expected.
    flat = arr.flatten().to_numpy(zero_copy_only=False)
    return np.asarray(flat, dtype=np.float32).reshape(len(col), VECTOR_DIM)


def nearest(
    store: Store,
    vector,
    k: int = 10,
    type: str | None = None,
    model: str | None = None,
    exclude: Iterable[str] = (),
    method: str = "auto",
) -> list[tuple[str, float]]:
    """The ``k`` embedded pages most cosine-similar to ``vector``.

    Args:
        vector: shape (384,), L2-normalised (as :class:`~brainwork.learn.embed.Embedder` gives).
        type: only pages of this page type (e.g. ``"task"``).
        model: only vectors from this embedder (default: the current one,
            ``Meta.vector_model``; vectors of another model are not comparable).
        exclude: page ids to leave out.
        method: ``"auto"`` (HNSW when the table is indexed, else brute
            force), ``"brute"`` or ``"hnsw"`` (ValueError without an index).

    Returns:
        ``[(page id, cosine similarity)]``, most similar first; fewer than
        ``k`` when fewer match. Ids whose page no longer exists are skipped.
    """
    q = np.asarray(vector, dtype=np.float32).reshape(-1)
    if q.shape[0] != VECTOR_DIM:
        raise ValueError(f"query vector must have {VECTOR_DIM} dimensions, got {q.shape[0]}")
    m = _model_filter(store, model)
    if not m:
        return []
    excluded = set(exclude)
    t = current_table(store)
    want = k + len(excluded) + 5
    params: dict = {"q": q.tolist(), "m": m, "n": want}
    type_cond = ""
    if type is not None:
        type_cond = " AND v.type = $t"
        params["t"] = type
    if method not in ("auto", "brute", "hnsw"):
        raise ValueError(f"unknown search method {method!r}")
    use_index = has_index(store, t) if method != "brute" else False
    if method == "hnsw" and not use_index:
        raise ValueError(f"{t} has no HNSW index")
    if use_index:
        # HNSW returns the nearest of all rows; filter afterwards, so ask for more.
        params["kk"] = min(max(want * 10, 200), 5000)
        rows = store.execute(
            f"CALL QUERY_VECTOR_INDEX('{t}', '{INDEX_NAME}', $q, $kk) WITH node AS v, distance "
            f"WHERE v.model = $m{type_cond} RETURN v.id, 1.0 - distance AS s ORDER BY s DESC LIMIT $n",
            params,
        )
    else:
        rows = store.execute(
            f"MATCH (v:{t}) WHERE v.model = $m{type_cond} "
            f"WITH v, array_cosine_similarity(v.vec, CAST($q AS FLOAT[{VECTOR_DIM}])) AS s "
            "RETURN v.id, s ORDER BY s DESC LIMIT $n",
            params,
        )
    ids = [r[0] for r in rows if r[0] not in excluded]
    live = set()
    if ids:
        live = {r[0] for r in store.execute("UNWIND $ids AS i MATCH (p:Page {id: i}) RETURN p.id", {"ids": ids})}
    return [(r[0], float(r[1])) for r in rows if r[0] in live][:k]
