"""Vector helpers shared by consolidation, effect and pruning.

Vectors come from the embeddings cache (:mod:`brainwork.learn.embed`):
L2-normalised float32 rows of 384, so cosine similarity is a dot product.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from brainwork.config import Config
from brainwork.learn import embed
from brainwork.store import Store

DIM = embed.DIM


def page_vectors(config: Config, store: Store, ids: Iterable[str], progress=None, *, refresh: bool = True) -> dict[str, np.ndarray]:
    """``{page id: vector}`` for ``ids``. Pages with empty text are left out.

    ``refresh=True`` first embeds any page whose text changed since it was
    last embedded (cached by content hash; loads the model). ``refresh=False``
    reads the cache and embeds only pages that have no vector at all, so it
    does not load the model when everything was embedded before (figures
    like before/after effects tolerate a vector from an older text).
    """
    ids = sorted(set(ids))
    if not ids:
        return {}
    if refresh:
        embed.embed_pages(config, store, ids=ids, progress=progress)
        out = embed.vectors(store, ids)
    else:
        out = embed.vectors(store, ids)
        missing = [i for i in ids if i not in out]
        if missing:
            embed.embed_pages(config, store, ids=missing, progress=progress)
            out.update(embed.vectors(store, missing))
    return {k: v for k, v in out.items() if float(np.linalg.norm(v)) > 0}


def unit(v: np.ndarray) -> np.ndarray:
    """``v`` scaled to length 1 (a zero vector stays zero)."""
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else v


def centroid(vectors: list[np.ndarray]) -> np.ndarray | None:
    """The normalised mean of ``vectors`` (None for none)."""
    if not vectors:
        return None
    return unit(np.mean(np.stack(vectors), axis=0).astype(np.float32))


def matrix(vectors: list[np.ndarray]) -> np.ndarray:
    """Stack into shape (n, 384) float32 (an empty list gives (0, 384))."""
    if not vectors:
        return np.zeros((0, DIM), dtype=np.float32)
    return np.stack(vectors).astype(np.float32)


def mean_pairwise(mat: np.ndarray) -> float:
    """Mean cosine over distinct pairs of the rows of ``mat`` (1.0 for one row)."""
    n = len(mat)
    if n < 2:
        return 1.0
    sims = mat @ mat.T
    return float((sims.sum() - np.trace(sims)) / (n * (n - 1)))
