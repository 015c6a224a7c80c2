"""The sentence-transformers model run by ONNX Runtime, without torch.

A process that loads torch anyway exports the model once to
``STORE/models/<model>-<digest>/`` (:func:`export`: the fp32 graph, fused);
the int8 graph is made from that when asked for (:func:`quantize`); later processes
encode with ONNX Runtime and ``tokenizers`` (~0.2 s to load instead of ~5 s
for torch). How and why: docs/learning-loop.md section 2; figures:
docs/performance.md.

Invariants:

- The fp32 export is kept only within :data:`MAX_COSINE_GAP` of
  sentence-transformers on :data:`PROBES`, the int8 graph only within
  :data:`MAX_INT8_GAP` of the fp32 one; each is written under a temporary
  name and renamed into place, so no reader sees half of one.
- Folders are named by the model files' digest (:func:`model_digest`);
  another digest's folders of the same model are removed.
- Encoding pools as sentence-transformers does (truncation to the exported
  window, mean over real tokens, L2 norm), and a text's vector does not
  depend on the batch it is in.
- What the run side needs beyond the graph and tokenizer.json (window, pad
  token, lower-casing, graph kind, precision) is in the ONNX metadata.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
import warnings
from pathlib import Path

import numpy as np

#: Folder of the derived model cache inside the store.
MODELS_DIR = "models"
#: Largest cosine distance (1 - cos) allowed between an ONNX vector and the
#: sentence-transformers vector of the same text when the export is checked
#: (measured on all-MiniLM-L6-v2, 36 varied texts: at most 7e-13).
MAX_COSINE_GAP = 1e-4
#: Texts an export is checked on: short, empty, padded in one batch, unicode,
#: and one longer than the 256-token window (truncation).
PROBES = (
    "renew the TLS certificate",
    "",
    "x",
    "Überprüfe die Zertifikatskette — 証明書チェーンを確認 🎉",
    "  leading and trailing spaces  ",
    "The billing API served only the leaf certificate; clients without the intermediate failed. " * 12,
)
#: Word pieces per ONNX Runtime call (texts x the longest text's length):
#: four full 256-piece pages, or up to :data:`BATCH` short texts. Small
#: batches keep a layer's activations in the core's cache: measured on this
#: machine's 2 MB L2, 128 page texts cost 48 ms CPU each in batches of 32,
#: 45 ms in 16s, 42 ms in 8s and 38 ms in 4s or 1s, and peak RSS fell from
#: 650 MB to 250 MB (ONNX Runtime keeps its largest activations in its arena).
BATCH_TOKENS = 1024
#: At most this many texts per call (short texts: lessons, queries).
BATCH = 64
#: Files of a model folder that decide its vectors (weights, configs,
#: tokenizer), hashed by :func:`model_digest`; other files (README, other
#: runtimes' exports) are not read.
_DIGEST_GLOBS = ("*.safetensors", "pytorch_model.bin", "*.json", "vocab.txt", "*.model", "merges.txt", "*/config.json")
_META_PREFIX = "brainwork."
#: Age after which another process's unfinished export folder is removed.
STALE_SECONDS = 3600
#: File names inside one export's folder.
GRAPH_FILE = "model.onnx"
WEIGHTS_FILE = "model.onnx.data"
#: The int8 graph, beside the fp32 one it is made from (weights inside: 22 MB).
INT8_FILE = "model.int8.onnx"
#: Largest cosine distance allowed between the int8 graph's vectors and the
#: fp32 graph's on :data:`PROBES` when the int8 file is made. A guard against
#: a broken quantisation, not an agreement rule: int8 is another model (its
#: own name in cache keys). Measured on 2,000 synthetic page texts: at most
#: 0.016, median 0.007.
MAX_INT8_GAP = 0.05


class OnnxUnavailable(Exception):
    """The ONNX path cannot serve (file missing, runtime not installed, model
    not supported); the message says why in one line."""


def unsupported(folder: Path) -> str | None:
    """Why ``folder``'s sentence-transformers pipeline cannot run as
    transformer + mean pooling (+ normalise), or None if it can. Reads only
    modules.json and the pooling module's config."""
    try:
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return f"modules.json unreadable: {exc}"
    kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
    if kinds not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        return f"pipeline {kinds} is not Transformer, Pooling[, Normalize]"
    if not (folder / "tokenizer.json").is_file():
        return "no tokenizer.json"
    pooling = folder / modules[1].get("path", "") / "config.json"
    try:
        cfg = json.loads(pooling.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return f"pooling config unreadable: {exc}"
    mode = cfg.get("pooling_mode")
    if mode is not None:
        mean_only = mode == "mean" or mode == ["mean"]
    else:
        flags = {k: v for k, v in cfg.items() if k.startswith("pooling_mode_")}
        mean_only = flags.get("pooling_mode_mean_tokens") is True and not any(
            v for k, v in flags.items() if k != "pooling_mode_mean_tokens"
        )
    if not mean_only or cfg.get("include_prompt") is False:
        return "pooling is not plain mean pooling"
    return None


def _digest_files(folder: Path) -> list[Path]:
    found = {p for pattern in _DIGEST_GLOBS for p in folder.glob(pattern) if p.is_file()}
    return sorted(found, key=lambda p: p.relative_to(folder).as_posix())


def _stamp(folder: Path, files: list[Path]) -> list[list]:
    out = []
    for path in files:
        st = path.stat()
        out.append([path.relative_to(folder).as_posix(), st.st_size, st.st_mtime_ns])
    return out


def model_digest(folder: Path, memo_dir: Path | None = None) -> str:
    """SHA-256 hex over the relative path and bytes of each file that decides
    the model's vectors (~0.08 s CPU for the bundled 90 MB of weights).

    With ``memo_dir`` (an existing folder), the digest is remembered in
    ``memo_dir/digests.json`` beside the files' sizes and modification times
    and reused while those are unchanged, as git's index does: a one-shot
    query then stats the files instead of reading them.
    """
    files = _digest_files(folder)
    stamp = _stamp(folder, files)
    memo = Path(memo_dir) / "digests.json" if memo_dir is not None and Path(memo_dir).is_dir() else None
    known: dict = {}
    if memo is not None:
        try:
            known = json.loads(memo.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            known = {}
        entry = known.get(str(folder)) if isinstance(known, dict) else None
        if isinstance(entry, dict) and entry.get("stamp") == stamp and isinstance(entry.get("digest"), str):
            return entry["digest"]
    h = hashlib.sha256()
    for path in files:
        h.update(path.relative_to(folder).as_posix().encode("utf-8") + b"\0")
        with path.open("rb") as fh:
            while chunk := fh.read(1 << 22):
                h.update(chunk)
        h.update(b"\0")
    digest = h.hexdigest()
    if memo is not None:
        known = known if isinstance(known, dict) else {}
        known[str(folder)] = {"stamp": stamp, "digest": digest}
        tmp = memo.with_name(f".{memo.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            tmp.write_text(json.dumps(known, indent=1), encoding="utf-8")
            os.replace(tmp, memo)
        except OSError:  # a read-only store: the digest is only recomputed next time
            tmp.unlink(missing_ok=True)
    return digest


def _slug(name: str) -> str:
    base = name.removeprefix("st:").rstrip("/").rsplit("/", 1)[-1] or "model"
    return re.sub(r"[^A-Za-z0-9._-]+", "-", base)


def cache_path(store_dir: Path, folder: Path, name: str) -> Path:
    """Where the ONNX graph of ``folder``'s model lives under ``store_dir``:
    ``models/<slug>-<first 16 hex of the digest>/model.onnx``, its weights in
    ``model.onnx.data`` beside it (ONNX external data: ONNX Runtime then reads
    them straight into its tensors instead of through a protobuf copy, ~80 MB
    less resident memory). It may not exist."""
    models = Path(store_dir) / MODELS_DIR
    return models / f"{_slug(name)}-{model_digest(folder, models)[:16]}" / GRAPH_FILE


# -- running ----------------------------------------------------------------------
def _threads() -> int:
    """Intra-op threads: half the cores, 1..4. On 2 busy cores a second
    thread cost more CPU and more wall time than it saved (measured: one
    query 4 ms either way; 128 pages 1.8-2.0 s CPU / 1.9-2.3 s wall on one
    thread, 2.2-2.6 s CPU / 3.5-4.4 s wall on two), and the other core is the
    workbench's."""
    return max(1, min(4, (os.cpu_count() or 1) // 2))


def _batches(order: list[int], lengths: list[int], most: int | None = None) -> list[list[int]]:
    """``order`` (longest first) cut into batches of at most ``most``
    (default :data:`BATCH`) texts and :data:`BATCH_TOKENS` padded word pieces
    (the first text of a batch is its longest, so the batch is padded to it)."""
    most = BATCH if most is None else most
    out: list[list[int]] = []
    for i in order:
        if out and len(out[-1]) < most and (len(out[-1]) + 1) * lengths[out[-1][0]] <= BATCH_TOKENS:
            out[-1].append(i)
        else:
            out.append([i])
    return out


class OnnxEncoder:
    """ONNX Runtime session + tokenizer for one exported model.

    Raises:
        OnnxUnavailable: runtime or tokenizers not importable, or the file is
            not one :func:`export` wrote.
    """

    def __init__(self, path: Path, folder: Path):
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except Exception as exc:  # ImportError, or a broken native library
            raise OnnxUnavailable(f"onnxruntime/tokenizers cannot be imported: {exc.__class__.__name__}: {exc}") from exc
        opts = ort.SessionOptions()
        # Spin-waiting threads burn a core each while idle; on a shared, busy
        # machine that made small encodes many times slower (see embed.SMALL_BATCH).
        opts.intra_op_num_threads = _threads()
        opts.inter_op_num_threads = 1
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.add_session_config_entry("session.inter_op.allow_spinning", "0")
        opts.log_severity_level = 3
        try:
            self._session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        except Exception as exc:
            raise OnnxUnavailable(f"{path.name} cannot be loaded: {exc.__class__.__name__}: {str(exc)[:200]}") from exc
        meta = {
            k.removeprefix(_META_PREFIX): v
            for k, v in self._session.get_modelmeta().custom_metadata_map.items()
            if k.startswith(_META_PREFIX)
        }
        try:
            self.max_seq = int(meta["max_seq_length"])
            pad_id, pad_token = int(meta["pad_id"]), meta["pad_token"]
            self.lowercase = meta.get("lowercase") == "1"
        except (KeyError, ValueError) as exc:
            raise OnnxUnavailable(f"{path.name} lacks brainwork metadata ({exc})") from exc
        self.inputs = [i.name for i in self._session.get_inputs()]
        self.pad_id, self.pad_token = pad_id, pad_token
        self.graph = meta.get("graph", "traced")
        self.precision = meta.get("precision", "fp32")
        # The int8 graph quantises activations with one scale per call, taken
        # over the whole (batch, tokens) tensor: a text's vector would then
        # depend on its batch mates and padding (measured: up to 0.027 cosine
        # between a page encoded in a batch and alone). One text per call
        # makes every path compute the same vector, and costs no more CPU.
        self.batch = 1 if self.precision == "int8" else BATCH
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.enable_truncation(self.max_seq)
        self._tokenizer.no_padding()  # padded per batch in _run
        self._lock = threading.Lock()

    def _run(self, encs: list) -> np.ndarray:
        """Pooled unit rows of already tokenised texts (``tokenizers``
        Encodings, truncated, not padded), padded here to the longest."""
        width = max(len(e.ids) for e in encs)
        ids = np.full((len(encs), width), self.pad_id, dtype=np.int64)
        mask = np.zeros((len(encs), width), dtype=np.int64)
        types = np.zeros((len(encs), width), dtype=np.int64)
        for row, e in enumerate(encs):
            n = len(e.ids)
            ids[row, :n] = e.ids
            mask[row, :n] = 1
            types[row, :n] = e.type_ids
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        hidden = self._session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]  # (B, S, D)
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)

    def tokens(self, texts: list[str]) -> list[int]:
        """Word pieces of each text after truncation to the window (what a
        forward pass costs, roughly linearly)."""
        texts = [t.lower() if self.lowercase else t for t in texts]
        return [len(e.ids) for e in self._tokenizer.encode_batch(texts)]

    def encode(self, texts: list[str]) -> np.ndarray:
        """Shape (len(texts), D) float32 unit rows, in the order given.

        Texts are tokenised once, then batched by their number of word
        pieces, so that a batch is padded to nearly its own length (padding
        costs a full forward pass per pad token; sorting by characters, as
        sentence-transformers does, leaves more). A text's vector does not
        depend on its batch: pad tokens are masked out of attention and
        pooling (fp32), or each text is run alone (int8, :attr:`batch`)."""
        texts = [t.lower() if self.lowercase else t for t in texts]
        out: np.ndarray | None = None
        with self._lock:
            encs = self._tokenizer.encode_batch(texts)
            order = sorted(range(len(texts)), key=lambda i: -len(encs[i].ids))
            for idx in _batches(order, [len(e.ids) for e in encs], self.batch):
                mat = self._run([encs[i] for i in idx])
                if out is None:
                    out = np.zeros((len(texts), mat.shape[1]), dtype=np.float32)
                out[idx] = mat
        return out if out is not None else np.zeros((0, 0), dtype=np.float32)


# -- exporting --------------------------------------------------------------------
class _eager_attention:
    """Trace the model with its plain ("eager") attention instead of
    PyTorch's scaled_dot_product_attention: the latter exports with
    ``Where``/``IsNaN`` guards for fully masked rows (~13% of the run time at
    256 tokens) and in a shape ONNX Runtime's attention fusion does not
    recognise. Same arithmetic; the previous setting is restored after."""

    def __init__(self, model):
        self.model = model
        self.before = getattr(getattr(model, "config", None), "_attn_implementation", None)

    def __enter__(self):
        setter = getattr(self.model, "set_attn_implementation", None)
        if setter is not None and self.before not in (None, "eager"):
            try:
                setter("eager")
            except Exception:  # a model without an eager path: trace what it has
                self.before = None
        return self

    def __exit__(self, *exc):
        if self.before not in (None, "eager"):
            self.model.set_attn_implementation(self.before)
        return False


def _fuse(proto, config):
    """``proto`` with ONNX Runtime's transformer fusions (fused Attention,
    SkipLayerNormalization, BiasGelu, EmbedLayerNormalization: fewer passes
    over the activations, same fp32 arithmetic; measured 1e-7 cosine from the
    unfused graph), or None when the fuser is unavailable or fails. Python
    fusions only (``opt_level=0``): no graph specialised to this machine's
    CPU is saved."""
    heads = int(getattr(config, "num_attention_heads", 0) or 0)
    hidden = int(getattr(config, "hidden_size", 0) or 0)
    if getattr(config, "model_type", "") != "bert" or not heads or not hidden:
        return None
    try:
        import logging

        from onnxruntime.transformers import optimizer

        logging.getLogger("onnxruntime.transformers").setLevel(logging.ERROR)
        model = optimizer.optimize_model(proto, model_type="bert", num_heads=heads, hidden_size=hidden, opt_level=0)
        stats = model.get_fused_operator_statistics()
        if not stats.get("Attention"):
            return None
        return model.model
    except Exception:
        return None


def export(st_model, folder: Path, dest: Path, replace: bool = False) -> Path:
    """Write ``st_model`` (a loaded sentence-transformers model of
    ``folder``, its ``max_seq_length`` already set) as ONNX to ``dest``
    (a :func:`cache_path`: ``.../<slug>-<digest>/model.onnx`` and its
    weights file), checked against ``st_model`` on :data:`PROBES`. Needs
    torch (loaded already) and the ``onnx`` package.

    The export is made in a temporary folder beside ``dest``'s and renamed
    into place whole, so readers see all of it or nothing; if another process
    got there first, its export is kept, unless ``replace`` (the existing one
    would not load). Exports of the same model name with another digest are
    then removed.

    Raises:
        OnnxUnavailable: unsupported pipeline, exporter failure, or vectors
            that differ by more than :data:`MAX_COSINE_GAP`; nothing is then
            left behind.
    """
    import inspect
    import shutil

    import torch

    problem = unsupported(folder)
    if problem:
        raise OnnxUnavailable(problem)
    transformer = st_model[0]
    hf_model = transformer.auto_model
    tokenizer = transformer.tokenizer
    names = ["input_ids", "attention_mask"]
    if "token_type_ids" in inspect.signature(hf_model.forward).parameters and "token_type_ids" in getattr(
        tokenizer, "model_input_names", ()
    ):
        names.append("token_type_ids")

    class _Hidden(torch.nn.Module):
        """Keyword call (positional order differs across transformers versions) -> last hidden state."""

        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, *args):
            return self.model(**dict(zip(names, args))).last_hidden_state

    batch = tokenizer(["renew the certificate", "x"], padding=True, return_tensors="pt")
    args = tuple(batch[n] for n in names)
    dest = Path(dest)
    final = dest.parent
    final.parent.mkdir(parents=True, exist_ok=True)
    work = final.with_name(f".{final.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    for stale in final.parent.glob(f".{final.name}.*.tmp"):
        try:  # left by a process killed mid-export (an export takes seconds, not an hour)
            if time.time() - stale.stat().st_mtime > STALE_SECONDS:
                shutil.rmtree(stale, ignore_errors=True)
        except OSError:
            pass
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    axes = {n: {0: "batch", 1: "tokens"} for n in names}
    axes["last_hidden_state"] = {0: "batch", 1: "tokens"}
    try:
        traced = work / "traced.onnx"
        with warnings.catch_warnings(), torch.no_grad(), _eager_attention(hf_model):
            warnings.simplefilter("ignore")  # TracerWarnings about branches that cannot vary here
            torch.onnx.export(
                _Hidden(hf_model).eval(), args, str(traced), dynamo=False, input_names=names,
                output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=17,
            )
        import onnx

        lower = bool(getattr(transformer, "do_lower_case", False))
        meta = {"max_seq_length": str(int(st_model.max_seq_length)), "pad_id": str(int(tokenizer.pad_token_id)),
                "pad_token": str(tokenizer.pad_token), "lowercase": "1" if lower else "0"}
        want = np.asarray(st_model.encode(list(PROBES), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False))
        # Each candidate is loaded afresh: the fuser and onnx.save (external
        # data) both change the proto they are given.
        candidates = (("fused", lambda: _fuse(onnx.load(str(traced)), hf_model.config)),
                      ("traced", lambda: onnx.load(str(traced))))
        gap = float("nan")
        for kind, load in candidates:
            graph = load()
            if graph is None:
                continue
            for key, value in {**meta, "graph": kind}.items():
                entry = graph.metadata_props.add()
                entry.key, entry.value = _META_PREFIX + key, value
            for old in (work / dest.name, work / WEIGHTS_FILE):
                old.unlink(missing_ok=True)
            onnx.save(graph, str(work / dest.name), save_as_external_data=True, all_tensors_to_one_file=True,
                      location=WEIGHTS_FILE, size_threshold=1024)
            try:
                got = OnnxEncoder(work / dest.name, folder).encode(list(PROBES))
            except OnnxUnavailable:
                continue  # the fused graph uses contrib operators this runtime may lack
            gap = float(np.max(1.0 - np.sum(got * want, axis=1)))
            if gap <= MAX_COSINE_GAP:
                break
            del graph
        else:
            raise OnnxUnavailable(f"ONNX vectors differ from the model's by up to {gap:.2e} cosine")
        del graph
        traced.unlink()
        if replace:
            shutil.rmtree(final, ignore_errors=True)
        try:
            os.rename(work, final)
        except OSError:
            if not (final / dest.name).is_file():  # not a concurrent export's finished folder
                raise
    except OnnxUnavailable:
        raise
    except Exception as exc:
        raise OnnxUnavailable(f"export failed: {exc.__class__.__name__}: {str(exc).strip()[:200]}") from exc
    finally:
        shutil.rmtree(work, ignore_errors=True)
    prefix = final.name.rsplit("-", 1)[0] + "-"
    for old in final.parent.glob(f"{prefix}*"):
        if old != final and old.is_dir() and len(old.name) == len(final.name):
            shutil.rmtree(old, ignore_errors=True)
    return dest


# -- quantising -------------------------------------------------------------------
def int8_path(fp32: Path) -> Path:
    """Where the int8 graph made from the fp32 graph ``fp32`` lives."""
    return Path(fp32).with_name(INT8_FILE)


def quantize(fp32: Path, folder: Path) -> Path:
    """Make the int8 graph beside ``fp32`` (an :func:`export`), once, and
    return its path; an existing one is kept. Needs ``onnx`` and
    ``onnxruntime.quantization``, not torch (~5 s of CPU).

    Dynamic quantisation (``quantize_dynamic``): int8 weights, signed, one
    scale per output channel, activations quantised per call; every
    quantisable operator of the fused graph (MatMul, Attention, the embedding
    lookup). Deterministic: the same fp32 graph and onnxruntime version give
    the same bytes. The result is kept only if its vectors are within
    :data:`MAX_INT8_GAP` of the fp32 graph's on :data:`PROBES`; it is written
    to a temporary file and renamed into place.

    Raises:
        OnnxUnavailable: quantiser missing or failing, or vectors beyond the
            guard; nothing is then left behind.
    """
    import logging

    dest = int8_path(fp32)
    if dest.is_file():
        return dest
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic

        graph = onnx.load(str(fp32))
        meta = {p.key: p.value for p in graph.metadata_props}
        # The fuser's contrib operators run without it, but the quantiser's shape inference needs it.
        if not any(o.domain == "com.microsoft" for o in graph.opset_import):
            graph.opset_import.append(onnx.helper.make_opsetid("com.microsoft", 1))
        level = logging.getLogger().level
        logging.getLogger().setLevel(logging.ERROR)  # "consider pre-processing" on the root logger
        try:
            quantize_dynamic(graph, str(tmp), weight_type=QuantType.QInt8, per_channel=True,
                             extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
        finally:
            logging.getLogger().setLevel(level)
        del graph
        quant = onnx.load(str(tmp))
        del quant.metadata_props[:]
        for key, value in {**meta, _META_PREFIX + "precision": "int8"}.items():
            entry = quant.metadata_props.add()
            entry.key, entry.value = key, value
        onnx.save(quant, str(tmp))
        del quant
        want = OnnxEncoder(fp32, folder).encode(list(PROBES))
        got = OnnxEncoder(tmp, folder).encode(list(PROBES))
        gap = float(np.max(1.0 - np.sum(got * want, axis=1)))
        if not gap <= MAX_INT8_GAP:
            raise OnnxUnavailable(f"int8 vectors differ from the fp32 graph's by up to {gap:.2e} cosine")
        os.replace(tmp, dest)
    except OnnxUnavailable:
        raise
    except Exception as exc:
        raise OnnxUnavailable(f"quantisation failed: {exc.__class__.__name__}: {str(exc).strip()[:200]}") from exc
    finally:
        tmp.unlink(missing_ok=True)
    return dest
