"""The sentence model in bfloat16 through torch, for bulk embedding on CPUs
that multiply bf16 matrices natively (Intel AMX / AVX512-BF16).

It is the same model as the fp32 ONNX graph (:mod:`brainwork.learn.onnx_embed`):
the weights rounded to bf16, activations in bf16 with fp32 accumulation in
oneDNN's matrix kernels, pooling and normalisation in fp32. Its vectors are
kept within :data:`MAX_COSINE_GAP` of the fp32 graph's (measured on this
model: at most 1.2e-4 over 10,000 page texts), so they share its name and
cache keys; measured at 2.7-3.7x less CPU per page than ONNX Runtime fp32
on a Sapphire Rapids core (docs/performance.md). It costs a torch import
(~3.2-3.8 s CPU with the weights) and ~330 MB resident, so
:mod:`brainwork.learn.embed` uses it only for jobs of at least
``embed.BULK_MIN_PAGES`` texts.

Invariants:

- Texts are tokenised by the model's ``tokenizer.json`` exactly as the ONNX
  path does (same window, same lower-casing), batched by word pieces longest
  first, pad tokens masked out of attention and pooling.
- An encoder is kept only if it agrees with the fp32 reference on
  :data:`brainwork.learn.onnx_embed.PROBES` within :data:`MAX_COSINE_GAP`.
"""

from __future__ import annotations

import inspect
import json
import sys
import threading
from pathlib import Path

import numpy as np

from brainwork.learn import onnx_embed

#: Largest cosine distance (1 - cos) allowed between a bf16 vector and the
#: fp32 graph's vector of the same text: the rule for two computations of one
#: model. Measured on all-MiniLM-L6-v2: at most 1.2e-4 on 10,000 page texts.
MAX_COSINE_GAP = 1e-3
#: Padded word pieces per forward pass (as ONNX Runtime's batches). Measured
#: on 300 synthetic page texts, one thread, AMX, load ~4: 1,024 -> 14.5-15.0,
#: 2,048 -> 14.2-14.5, 4,096 -> 15.5 ms CPU per page, while each doubling
#: added ~140 MB of peak RSS (activations).
BATCH_TOKENS = 1024
#: Batch widths (word pieces) are padded up to a multiple of this (see ``Bf16Encoder._run``).
WIDTH_STEP = 32
#: CPU flags (``/proc/cpuinfo``) of native bf16 matrix multiplication on x86.
_FLAGS = ("amx_bf16", "avx512_bf16")


class Bf16Unavailable(Exception):
    """The bf16 path cannot serve; the message says why in one line."""


def _cpuinfo_flags() -> set[str] | None:
    """The CPU flags the Linux kernel reports, or None where there is no
    ``/proc/cpuinfo`` (then only torch can tell)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[-1].split())
    return set()


def native_bf16(import_torch: bool = True) -> bool:
    """True when this CPU multiplies bf16 matrices natively, so that the bf16
    path is faster than fp32 (elsewhere oneDNN emulates bf16, slower than
    fp32).

    Decided by ``torch.cpu.get_capabilities()`` (public since torch 2.6:
    cpuinfo's view of the running CPU; ``amx_bf16`` or ``avx512_bf16``). The
    kernel's ``/proc/cpuinfo`` flags are read first, so that a CPU without
    them does not pay a torch import (~2-3 s CPU) to be told so; where torch
    is not imported yet and ``import_torch`` is False, the flags decide.
    """
    flags = _cpuinfo_flags()
    if flags is not None and not flags & set(_FLAGS):
        return False
    if "torch" not in sys.modules and not import_torch:
        return flags is not None
    try:
        import torch

        caps = torch.cpu.get_capabilities()
    except Exception:  # torch missing or broken, or too old for get_capabilities
        return False
    return any(bool(caps.get(flag)) for flag in _FLAGS) and torch.backends.mkldnn.is_available()


def _sentence_config(folder: Path) -> tuple[Path, int | None, bool]:
    """``(transformer folder, max_seq_length, do_lower_case)`` of a
    sentence-transformers folder (the Transformer module's path and its
    ``sentence_bert_config.json``)."""
    modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
    sub = folder / (modules[0].get("path") or "")
    cfg: dict = {}
    for candidate in (sub / "sentence_bert_config.json", folder / "sentence_bert_config.json"):
        if candidate.is_file():
            cfg = json.loads(candidate.read_text(encoding="utf-8"))
            break
    seq = cfg.get("max_seq_length")
    return sub, int(seq) if seq else None, bool(cfg.get("do_lower_case", False))


class Bf16Encoder:
    """A Hugging Face model in bf16 + the model's tokenizer.

    Args:
        folder: the sentence-transformers folder (Transformer + mean pooling;
            :func:`brainwork.learn.onnx_embed.unsupported` is None for it).
        window: word pieces per text (truncation), as the fp32 path uses.

    Raises:
        Bf16Unavailable: torch/transformers/tokenizers missing, or the model
            does not load.
    """

    def __init__(self, folder: Path, window: int):
        problem = onnx_embed.unsupported(folder)
        if problem:
            raise Bf16Unavailable(problem)
        try:
            import torch
            from tokenizers import Tokenizer
            from transformers import AutoModel
            from transformers.utils import logging as hf_logging
        except Exception as exc:  # ImportError, or a broken native library
            raise Bf16Unavailable(f"torch/transformers cannot be imported: {exc.__class__.__name__}: {exc}") from exc
        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
        sub, _seq, self.lowercase = _sentence_config(folder)
        try:
            model = AutoModel.from_pretrained(str(sub), dtype=torch.bfloat16, local_files_only=True)
        except Exception as exc:
            first = (str(exc).strip().splitlines() or [""])[0]
            raise Bf16Unavailable(f"model {sub} cannot be loaded in bf16: {exc.__class__.__name__}: {first}"[:300]) from exc
        self._torch = torch
        self._model = model.eval()
        self.max_seq = int(window)
        self._types = "token_type_ids" in inspect.signature(model.forward).parameters
        self._positions = int(getattr(model.config, "max_position_embeddings", 0) or self.max_seq)
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.enable_truncation(self.max_seq)
        self._tokenizer.no_padding()
        # Any id serves as padding (masked out of attention and pooling); the
        # model's own keeps the arithmetic as sentence-transformers pads.
        self.pad_id = int(getattr(model.config, "pad_token_id", None) or 0)
        self._lock = threading.Lock()

    def _run(self, encs: list) -> np.ndarray:
        """Pooled fp32 unit rows of tokenised, unpadded texts (padded here to the longest)."""
        torch = self._torch
        width = max(len(e.ids) for e in encs)
        # Padded up to a multiple of :data:`WIDTH_STEP` (pad tokens are
        # masked, so the vectors are the same): oneDNN keeps kernels per
        # shape, and with every width from 2 to 256 the process grew by
        # ~40 MB per 256 texts (measured: 1,536 page texts 476 -> 876 MB;
        # padded, flat at ~570 MB, and no slower: 14.1 against 14.2 ms/page).
        width = min(-(-width // WIDTH_STEP) * WIDTH_STEP, max(self._positions, width))
        ids = torch.full((len(encs), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(encs), width), dtype=torch.long)
        types = torch.zeros((len(encs), width), dtype=torch.long)
        for row, e in enumerate(encs):
            n = len(e.ids)
            ids[row, :n] = torch.tensor(e.ids, dtype=torch.long)
            mask[row, :n] = 1
            types[row, :n] = torch.tensor(e.type_ids, dtype=torch.long)
        feed = {"input_ids": ids, "attention_mask": mask}
        if self._types:
            feed["token_type_ids"] = types
        hidden = self._model(**feed).last_hidden_state.float()  # (B, S, D), pooled in fp32
        weights = mask.unsqueeze(-1).float()
        pooled = (hidden * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)
        pooled = pooled / pooled.norm(dim=1, keepdim=True).clamp(min=1e-12)
        return pooled.numpy().astype(np.float32)

    def encode(self, texts: list[str]) -> np.ndarray:
        """Shape (len(texts), D) float32 unit rows, in the order given;
        batched by word pieces, longest first (a text's vector does not depend
        on its batch beyond bf16 rounding: pad tokens are masked)."""
        torch = self._torch
        texts = [t.lower() if self.lowercase else t for t in texts]
        out: np.ndarray | None = None
        with self._lock:
            threads = torch.get_num_threads()
            # As many intra-op threads as ONNX Runtime uses here (half the
            # cores): the other half is the workbench's.
            torch.set_num_threads(onnx_embed._threads())
            try:
                encs = self._tokenizer.encode_batch(texts)
                lengths = [len(e.ids) for e in encs]
                order = sorted(range(len(texts)), key=lambda i: -lengths[i])
                with torch.inference_mode():
                    for idx in _batches(order, lengths):
                        mat = self._run([encs[i] for i in idx])
                        if out is None:
                            out = np.zeros((len(texts), mat.shape[1]), dtype=np.float32)
                        out[idx] = mat
            finally:
                torch.set_num_threads(threads)
        return out if out is not None else np.zeros((0, 0), dtype=np.float32)


def _batches(order: list[int], lengths: list[int]) -> list[list[int]]:
    """``order`` (longest first) cut into batches of at most
    :data:`BATCH_TOKENS` padded word pieces and :data:`onnx_embed.BATCH` texts."""
    out: list[list[int]] = []
    for i in order:
        if out and len(out[-1]) < onnx_embed.BATCH and (len(out[-1]) + 1) * lengths[out[-1][0]] <= BATCH_TOKENS:
            out[-1].append(i)
        else:
            out.append([i])
    return out


def check(encoder: Bf16Encoder, reference) -> float:
    """The largest cosine distance between ``encoder`` and ``reference`` (an
    fp32 encoder of the same model: ``encode(texts) -> unit rows``) on
    :data:`brainwork.learn.onnx_embed.PROBES`.

    Raises:
        Bf16Unavailable: the distance exceeds :data:`MAX_COSINE_GAP`.
    """
    probes = [p for p in onnx_embed.PROBES if p.strip()]
    got = encoder.encode(probes)
    want = np.asarray(reference.encode(probes), dtype=np.float32)
    gap = float(np.max(1.0 - np.sum(got * want, axis=1)))
    if not gap <= MAX_COSINE_GAP:
        raise Bf16Unavailable(f"bf16 vectors differ from the fp32 model's by up to {gap:.2e} cosine")
    return gap
