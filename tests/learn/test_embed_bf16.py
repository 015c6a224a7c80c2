"""The bf16 path for bulk embedding: the same model as the fp32 ONNX graph
(within 1e-3 cosine, same name, so neither path re-embeds the other's
store), used for large jobs on CPUs with native bf16, ONNX Runtime fp32
elsewhere and for small jobs."""

from __future__ import annotations

from contextlib import contextmanager
from types import SimpleNamespace

import numpy as np
import pytest

from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.learn import bf16_embed, embed
from brainwork.learn.embed import Bf16Embedder, OnnxEmbedder
from brainwork.store import Store
from brainwork.store import vectors as vstore

#: Short, empty, whitespace, unicode and over-the-window texts.
TEXTS = [
    "", " ", "x", "renew the TLS certificate", "  leading and trailing spaces  ",
    "Überprüfe die Zertifikatskette vor dem Ablauf.", "証明書チェーンを確認してください。",
    "emoji 🎉🔐✅ and symbols ™©®", "supercalifragilisticexpialidocious" * 20,
    " ".join(f"Step {i}: rotate the key, reload HAProxy, then check the chain." for i in range(40)),
]


@pytest.fixture(scope="module")
def onnx(exported_template):
    """The fp32 ONNX graph as ``brainwork`` serves it from a store with the export."""
    emb = embed._load(load_config(exported_template))
    assert isinstance(emb, OnnxEmbedder) and emb._encoder.precision == "fp32"
    return emb


@pytest.fixture(scope="module")
def bf16(onnx):
    """The bf16 embedder of the same model (loaded whether or not this CPU
    has native bf16: the arithmetic is the same, only slower when emulated)."""
    emb = embed._bf16(None, onnx, native=False)
    assert isinstance(emb, Bf16Embedder), onnx.bulk_problem
    return emb


@pytest.fixture
def fresh_cache(monkeypatch):
    """The process's embedder cache as it is, restored after the test."""
    monkeypatch.setattr(embed, "_cache", dict(embed._cache))
    return embed._cache


def test_bf16_vectors_agree_with_onnx_fp32_on_every_sample_page(bf16, onnx, embedded_sample):
    _, store = embedded_sample
    texts = [embed.page_text(r) for r in embed._page_rows(store, None)]
    assert len(texts) > 100
    got, want = bf16.encode(texts), onnx.encode(texts)
    assert got.shape == want.shape == (len(texts), 384) and got.dtype == np.float32
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    gaps = 1.0 - np.sum(got * want, axis=1)
    worst = int(np.argmax(gaps))
    assert gaps[worst] <= 1e-3, f"page text {worst} ({texts[worst][:40]!r}) differs by {gaps[worst]:.2e}"
    assert bf16.name == onnx.name == f"{embed.BUNDLED_NAME}@256" and bf16.gap <= 1e-3
    # varied texts (empty, unicode, over the window) too
    short = 1.0 - np.sum(bf16.encode(TEXTS) * onnx.encode(TEXTS), axis=1)
    assert float(np.max(short)) <= 1e-3
    # batched by word pieces: a text's vector hardly depends on its batch mates
    order = np.random.default_rng(0).permutation(len(texts))
    shuffled = bf16.encode([texts[i] for i in order])
    assert float(np.min(np.sum(shuffled * got[order], axis=1))) >= 1 - 1e-4
    assert float(bf16.encode_one(texts[3]) @ got[3]) >= 1 - 1e-4
    assert bf16.encode([]).shape == (0, 384)
    assert bf16._encoder._tokenizer.encode(texts[0]).ids.__len__() <= 256


def test_big_jobs_use_bf16_small_ones_onnx_and_neither_re_embeds_the_other(
    bf16, onnx, sample_config, sample_store, fresh_cache, monkeypatch
):
    config, store = sample_config, sample_store
    monkeypatch.delenv("BRAINWORK_EMBEDDER", raising=False)
    monkeypatch.setattr(bf16_embed, "native_bf16", lambda import_torch=True: True)
    fresh_cache[embed._bulk_key(config)] = bf16
    calls = {"bf16": 0, "onnx": 0}
    for emb, label in ((bf16, "bf16"), (onnx, "onnx")):
        real = type(emb).encode

        def counted(self, texts, real=real, label=label):
            calls[label] += len(texts)
            return real(self, texts)

        monkeypatch.setattr(type(emb), "encode", counted)
    pages = store.scalar("MATCH (p:Page) WHERE p.kind = 'page' RETURN count(p)")
    monkeypatch.setattr(embed, "BULK_MIN_PAGES", 50)
    assert embed.bulk_embedder(config, onnx, 49) is onnx and embed.bulk_embedder(config, onnx, 50) is bf16
    progress = []
    assert embed.embed_pages(config, store, embedder=onnx, progress=lambda d, t, p: progress.append((d, t))) == pages
    assert calls == {"bf16": pages, "onnx": 0} and progress[0] == (0, pages) and progress[-1] == (pages, pages)
    assert vstore.current_model(store) == onnx.name and vstore.count(store, onnx.name) == pages
    ids, mat = vstore.all_vectors(store)
    assert mat.dtype == np.float32 and np.allclose(np.linalg.norm(mat, axis=1), 1.0, atol=1e-5)
    rows = {r["id"]: r for r in embed._page_rows(store, None)}
    want = onnx.encode([embed.page_text(rows[i]) for i in ids])
    assert float(np.min(np.sum(mat * want, axis=1))) >= 1 - 1e-3
    calls.update(bf16=0, onnx=0)
    # an ONNX process (no bulk path) finds the bf16-made store complete
    monkeypatch.setattr(embed, "BULK_MIN_PAGES", 10**9)
    assert embed.embed_pages(config, store, embedder=onnx) == 0
    # one page changed: only it is embedded again, by ONNX (a small job)
    path = config.vault / "tasks/2026-09-14-renew-cert-billing.md"
    path.write_text(path.read_text(encoding="utf-8") + "\nAlso rotated the HAProxy key.\n", encoding="utf-8")
    sync(config, store)
    assert embed.embed_pages(config, store, embedder=onnx) == 1
    assert calls == {"bf16": 0, "onnx": 1}
    # and a bulk-enabled pass finds nothing left either
    monkeypatch.setattr(embed, "BULK_MIN_PAGES", 1)
    assert embed.embed_pages(config, store, embedder=onnx) == 0 and calls["bf16"] == 0


def test_a_store_embedded_by_fp32_is_not_re_embedded_by_a_bulk_pass(bf16, onnx, embedded_vault_copy, fresh_cache, monkeypatch):
    config = load_config(embedded_vault_copy)
    monkeypatch.delenv("BRAINWORK_EMBEDDER", raising=False)
    monkeypatch.setattr(embed, "BULK_MIN_PAGES", 1)
    fresh_cache[embed._bulk_key(config)] = bf16
    with Store(config.store) as store:
        assert embed.embed_pages(config, store, embedder=onnx) == 0


def test_fallback_to_onnx_without_native_bf16(onnx, sample_config, sample_store, fresh_cache, monkeypatch):
    """On a CPU without native bf16 the bulk job runs on ONNX fp32, and the
    bf16 path is not tried again for that embedder."""
    config = sample_config
    monkeypatch.delenv("BRAINWORK_EMBEDDER", raising=False)
    monkeypatch.setattr(bf16_embed, "native_bf16", lambda import_torch=True: False)
    monkeypatch.setattr(embed, "BULK_MIN_PAGES", 1)
    fresh_cache.pop(embed._bulk_key(config), None)
    fallback = embed._load_onnx(onnx.path, embed.model_folder(None)[0], embed.BUNDLED_NAME)
    assert embed.bulk_embedder(config, fallback, 10_000) is fallback
    assert "no native bf16" in fallback.bulk_problem
    assert embed._bulk_key(config) not in fresh_cache
    ids = [r["id"] for r in embed._page_rows(sample_store, None)][:5]
    assert embed.embed_pages(config, sample_store, ids=ids, embedder=fallback) == 5
    assert vstore.count(sample_store, fallback.name) == 5


def test_bf16_that_disagrees_is_not_used(onnx, fresh_cache, monkeypatch):
    fallback = embed._load_onnx(onnx.path, embed.model_folder(None)[0], embed.BUNDLED_NAME)
    monkeypatch.setattr(bf16_embed, "MAX_COSINE_GAP", 1e-12)
    assert embed._bf16(None, fallback, native=False) is None
    assert "bf16 vectors differ" in fallback.bulk_problem


def test_forcing_an_embedder(onnx, fresh_cache, monkeypatch):
    """``BRAINWORK_EMBEDDER=bf16`` serves every job on the bf16 path, under
    the fp32 name; ``fp32`` (or any other forced embedder) keeps bulk jobs
    off it; int8 vectors (another model) never go to bf16."""
    monkeypatch.setattr(bf16_embed, "native_bf16", lambda import_torch=True: True)
    monkeypatch.setenv("BRAINWORK_EMBEDDER", "fp32")
    assert embed.bulk_embedder(None, onnx, 10_000) is onnx
    monkeypatch.setenv("BRAINWORK_EMBEDDER", "bf16")
    assert embed.precision() == "fp32"
    fresh_cache.pop(embed._cache_key(None), None)
    forced = embed.get_embedder(None)
    assert isinstance(forced, Bf16Embedder) and forced.name == onnx.name and forced.status.endswith("(bf16)")
    assert embed.bulk_embedder(None, forced, 10_000) is forced
    monkeypatch.delenv("BRAINWORK_EMBEDDER")
    assert embed._bf16(None, OnnxEmbedder(None, onnx.name + embed.INT8_SUFFIX, onnx.path)) is None
    assert embed._bf16(None, embed.LexicalEmbedder("test")) is None


def test_the_detector_reads_the_cpu(monkeypatch):
    """Without the flags in /proc/cpuinfo, no torch is consulted; with them,
    torch's public capability map decides."""
    monkeypatch.setattr(bf16_embed, "_cpuinfo_flags", lambda: {"avx2", "fma"})
    assert bf16_embed.native_bf16() is False
    import torch

    caps = torch.cpu.get_capabilities()
    monkeypatch.setattr(bf16_embed, "_cpuinfo_flags", lambda: {"amx_bf16"})
    assert bf16_embed.native_bf16() == (bool(caps.get("amx_bf16") or caps.get("avx512_bf16")) and torch.backends.mkldnn.is_available())


def test_the_workbench_pass_uses_bf16_and_reports_progress(bf16, onnx, sample_config, sample_store, fresh_cache, monkeypatch):
    """The workbench's pass without holding the store takes the bf16 path for
    a big job and still reports chunk by chunk."""
    from brainwork.tui.learning import LearningController

    config, store = sample_config, sample_store
    monkeypatch.delenv("BRAINWORK_EMBEDDER", raising=False)
    monkeypatch.setattr(bf16_embed, "native_bf16", lambda import_torch=True: True)
    monkeypatch.setattr(embed, "BULK_MIN_PAGES", 50)
    fresh_cache[embed._bulk_key(config)] = bf16
    used = []
    real = Bf16Embedder.encode
    monkeypatch.setattr(Bf16Embedder, "encode", lambda self, texts: used.append(len(texts)) or real(self, texts))

    @contextmanager
    def hold():
        yield store

    app = SimpleNamespace(config=config, store=SimpleNamespace(use=hold, exclusive=hold))
    controller = LearningController.__new__(LearningController)
    controller.app = app
    seen = []
    n = controller.embed_without_holding(onnx, on_chunk=lambda d, t, s: seen.append((d, t)))
    assert n == sum(used) > 100 and seen[0] == (0, n) and seen[-1] == (n, n) and len(seen) >= 2
    assert vstore.count(store, onnx.name) == n
