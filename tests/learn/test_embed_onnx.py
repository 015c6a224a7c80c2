"""The ONNX Runtime path of the embedder: exported once by a process that
loads torch, then serving without importing torch, also in a one-shot
``brainwork recall``: the fp32 graph with torch's vectors (within 1e-4
cosine, same name; the default), the int8 graph (``BRAINWORK_EMBEDDER=int8``)
under a name of its own, made reproducibly and giving every path the same
vector."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from brainwork.config import load_config
from brainwork.learn import embed, onnx_embed
from brainwork.learn.embed import OnnxEmbedder

LONG_EN = " ".join(f"Step {i}: rotate the key, reload HAProxy, then check the chain served on port 443." for i in range(40))
LONG_DE = "Die Zertifikatskette muss vollständig ausgeliefert werden, sonst scheitern ältere Clients. " * 25
#: Varied texts: short, empty, whitespace, case, code, numbers, unicode
#: (accents, CJK, Arabic, Cyrillic, emoji, combining marks), and texts far
#: over the 256-token window (truncation).
TEXTS = [
    "", " ", "x", "TLS", "renew the TLS certificate", "RENEW THE TLS CERTIFICATE",
    "  leading and trailing spaces  ", "tabs\tand\nnewlines\n\nhere",
    "Serve fullchain.pem, not cert.pem, from the billing API.",
    "Why: clients without the intermediate CA fail the handshake.",
    "openssl s_client -connect edi.acme.example:443 -showcerts </dev/null",
    "def encode(self, texts: list[str]) -> np.ndarray: return self._model(texts)",
    "SELECT count(*) FROM invoices WHERE currency IS NULL;",
    "Invoice 2026-09-14 #4711: EUR 1.234,56 vs USD 1,234.56 (±0.5%)",
    "café naïve résumé façade coöperate",
    "Überprüfe die Zertifikatskette vor dem Ablauf.",
    "証明書チェーンを確認してください。",
    "检查证书链是否完整",
    "인증서 체인을 확인하세요",
    "تحقق من سلسلة الشهادات",
    "Проверьте цепочку сертификатов",
    "emoji 🎉🔐✅ and symbols ™©®",
    "e\u0301 combining acute, a\u0308 combining diaeresis",
    "\u200bzero\u200bwidth\u200bspaces",
    "supercalifragilisticexpialidocious" * 20,
    "a " * 300,
    "!!! ??? ... --- ***",
    "[[tasks/renew-cert|Renew certificate]] tags: tls, billing",
    "Chain order\nwrong: leaf last\ncorrect: leaf first\nwhy: clients\ntags: tls",
    "Read the CI log first before re-running the pipeline.",
    "Ask the customer which currency column they expect in the export.",
    LONG_EN,
    LONG_DE,
    LONG_EN[:1500],
    "日本語のテキスト " * 120,
    "mixed English und Deutsch 和日本語 " * 40,
]


@pytest.fixture(scope="module")
def exported(tmp_path_factory, embedder):
    """``(config, first, second)``: ``first`` is what ``_load`` returns on a
    store without an ONNX file (it loads torch, exports the model and then
    serves the export), ``second`` what it returns once the file exists."""
    root = tmp_path_factory.mktemp("onnx")
    (root / "vault").mkdir()
    config = load_config(root / "vault", root / "store")
    first = embed._load(config)
    second = embed._load(config)
    return config, first, second


@pytest.fixture(scope="module")
def fp32(exported):
    """The fp32 graph as the default serves it (also ``BRAINWORK_EMBEDDER=fp32``)."""
    return exported[2]


@pytest.fixture(scope="module")
def int8(exported):
    """The int8 graph as ``BRAINWORK_EMBEDDER=int8`` serves it: made from the
    export on first use, then loaded."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BRAINWORK_EMBEDDER", "int8")
        first = embed._load(exported[0])
        second = embed._load(exported[0])
    assert first.path == second.path
    return second


def test_torch_load_exports_once_and_the_next_load_serves_onnx(exported, embedder):
    config, first, second = exported
    folder, name, _ = embed.model_folder(config)
    path = onnx_embed.cache_path(config.store, folder, name)
    assert embed.PRECISION == "fp32"
    assert isinstance(first, OnnxEmbedder) and first.path == path  # torch only made the export
    models = config.store / onnx_embed.MODELS_DIR
    assert path.is_file() and path.parent.parent == models
    assert path.parent.name.startswith("all-MiniLM-L6-v2-")
    assert {onnx_embed.GRAPH_FILE, onnx_embed.WEIGHTS_FILE} <= {p.name for p in path.parent.iterdir()}
    assert {p.name for p in path.parent.iterdir()} <= {onnx_embed.GRAPH_FILE, onnx_embed.WEIGHTS_FILE, onnx_embed.INT8_FILE}
    # no temporary folder left; the digest is remembered beside the export
    assert sorted(p.name for p in models.iterdir()) == sorted([path.parent.name, "digests.json"])
    assert isinstance(second, OnnxEmbedder) and second.path == path and second._encoder.precision == "fp32"
    # same name, so vectors cached by either path stay valid for the other
    assert first.name == second.name == embedder.name == f"{embed.BUNDLED_NAME}@256"
    assert not second.lexical and second.reason is None and second.status == first.status


def test_the_int8_graph_has_a_name_of_its_own(exported, int8):
    """int8 is another model: its vectors are cached and searched under
    their own name, never mixed with the fp32 ones."""
    config, _, fp32 = exported
    assert isinstance(int8, OnnxEmbedder) and int8.path == onnx_embed.int8_path(fp32.path)
    assert int8._encoder.precision == "int8" and int8._encoder.batch == 1 and int8.onnx_problem is None
    assert int8.name == f"{embed.BUNDLED_NAME}@256+int8" != fp32.name
    assert int8.path.is_file() and not list(int8.path.parent.glob(".*.tmp"))


def test_onnx_vectors_match_sentence_transformers(fp32, embedder):
    onnx = fp32
    want = embedder.encode(TEXTS)
    got = onnx.encode(TEXTS)
    assert got.shape == want.shape == (len(TEXTS), 384) and got.dtype == np.float32
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    gaps = 1.0 - np.sum(got * want, axis=1)
    worst = int(np.argmax(gaps))
    assert gaps[worst] <= 1e-4, f"text {worst} ({TEXTS[worst][:40]!r}) differs by {gaps[worst]:.2e}"
    # texts over the window really were truncated: only their start counts
    assert onnx._encoder._tokenizer.encode(LONG_EN).ids.__len__() == 256
    # one at a time (no padding) gives the same as in a padded batch
    for i in (0, 4, 16, len(TEXTS) - 1):
        assert float(onnx.encode_one(TEXTS[i]) @ got[i]) >= 1 - 1e-5
    assert onnx.encode([]).shape == (0, 384)


def test_a_changed_model_gets_another_file(tmp_path):
    bundled, _, _ = embed.model_folder(None)
    copy = tmp_path / "model"
    shutil.copytree(bundled, copy)
    models = tmp_path / "store" / onnx_embed.MODELS_DIR
    models.mkdir(parents=True)
    before = onnx_embed.cache_path(tmp_path / "store", copy, "st:/x/my-model")
    assert before.parent.name.startswith("my-model-") and before.name == onnx_embed.GRAPH_FILE
    assert (models / "digests.json").is_file()
    assert onnx_embed.cache_path(tmp_path / "store", copy, "st:/x/my-model") == before  # remembered
    cfg = copy / "config.json"
    cfg.write_text(cfg.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # another size: hashed again
    after = onnx_embed.cache_path(tmp_path / "store", copy, "st:/x/my-model")
    assert after != before
    assert after.parent.name.endswith("-" + onnx_embed.model_digest(copy)[:16])  # the memo is not trusted blindly


def test_unsupported_pipelines_are_named(tmp_path):
    bundled, _, _ = embed.model_folder(None)
    assert onnx_embed.unsupported(bundled) is None
    copy = tmp_path / "model"
    shutil.copytree(bundled, copy)
    pooling = copy / "1_Pooling" / "config.json"
    cfg = json.loads(pooling.read_text(encoding="utf-8"))
    cfg.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    pooling.write_text(json.dumps(cfg), encoding="utf-8")
    assert "mean" in onnx_embed.unsupported(copy)
    (copy / "tokenizer.json").unlink()
    assert onnx_embed.unsupported(copy) == "no tokenizer.json"


def test_the_int8_graph_is_made_once_reproducibly_and_checked(fp32, int8, tmp_path, monkeypatch):
    """Quantising the same fp32 export again gives the same bytes; the int8
    vectors stay near the fp32 ones (another model, so only a guard); a
    quantisation beyond the guard leaves nothing and the fp32 graph serves
    under its own name."""
    path = fp32.path
    folder = embed.model_folder(None)[0]
    before = int8.path.stat().st_mtime_ns
    assert onnx_embed.quantize(path, folder) == int8.path and int8.path.stat().st_mtime_ns == before  # made once
    copy = tmp_path / path.parent.name
    copy.mkdir()
    for name in (onnx_embed.GRAPH_FILE, onnx_embed.WEIGHTS_FILE):
        shutil.copy2(path.parent / name, copy / name)
    again = onnx_embed.quantize(copy / onnx_embed.GRAPH_FILE, folder)
    assert again.read_bytes() == int8.path.read_bytes()
    got, ref = int8.encode(TEXTS), fp32.encode(TEXTS)
    gaps = 1.0 - np.sum(got * ref, axis=1)
    assert float(np.max(gaps)) <= onnx_embed.MAX_INT8_GAP
    assert float(np.median(gaps)) <= 0.02  # measured on page texts: median 0.007
    again.unlink()
    monkeypatch.setattr(onnx_embed, "MAX_INT8_GAP", 1e-9)
    with pytest.raises(onnx_embed.OnnxUnavailable, match="int8 vectors differ"):
        onnx_embed.quantize(copy / onnx_embed.GRAPH_FILE, folder)
    assert sorted(p.name for p in copy.iterdir()) == sorted([onnx_embed.GRAPH_FILE, onnx_embed.WEIGHTS_FILE])
    monkeypatch.setenv("BRAINWORK_EMBEDDER", "int8")
    served = embed._load_onnx(copy / onnx_embed.GRAPH_FILE, folder, embed.BUNDLED_NAME)
    assert served.name == fp32.name and "int8 vectors differ" in served.onnx_problem


def test_forcing_torch_ignores_the_onnx_file(exported, monkeypatch):
    config, _, _ = exported
    folder, name, _ = embed.model_folder(config)
    assert embed._onnx_file(config, folder, name) is not None
    default_key = embed._cache_key(config)
    monkeypatch.setenv("BRAINWORK_EMBEDDER", "torch")
    assert embed._onnx_file(config, folder, name) is None
    assert embed._cache_key(config) == "#torch-forced:" + default_key.split(":", 1)[1]  # never shares the cached ONNX embedder
    assert embed.precision() == "fp32"
    monkeypatch.setenv("BRAINWORK_EMBEDDER", "int8")
    assert embed._cache_key(config) not in (default_key, "#torch-forced:" + default_key.split(":", 1)[1])
    assert embed._onnx_file(config, folder, name) is not None


def test_a_broken_export_falls_back_to_torch_and_is_replaced(exported, tmp_path):
    _, _, onnx = exported
    config = load_config(exported[0].vault, tmp_path / "store")
    folder, name, _ = embed.model_folder(config)
    path = onnx_embed.cache_path(config.store, folder, name)
    shutil.copytree(onnx.path.parent, path.parent)
    path.write_bytes(b"not an onnx model")  # e.g. a disk error
    assert embed._load_onnx(path, folder, name) is None
    served = embed._load(config)
    assert isinstance(served, OnnxEmbedder) and served.path == path  # re-exported by torch, then served
    assert onnx_embed.OnnxEncoder(path, folder).max_seq == 256
    again = embed._load(config)
    assert isinstance(again, OnnxEmbedder) and again.path == path


#: Runs the CLI in-process and reports, at exit, which heavy modules were imported.
ONE_SHOT = """
import atexit, sys
heavy = ("torch", "sentence_transformers", "transformers", "sklearn", "scipy", "onnx", "textual")
atexit.register(lambda: print("HEAVY", sorted(m for m in sys.modules if m.split(".")[0] in heavy), file=sys.stderr))
sys.argv = ["brainwork", *sys.argv[1:]]
from brainwork.cli import main
main()
"""


def test_one_shot_recall_does_not_import_torch(exported, embedded_template, tmp_path):
    config, _, onnx = exported
    vault = tmp_path / "sample_vault"
    shutil.copytree(embedded_template, vault)
    models = load_config(vault).store / onnx_embed.MODELS_DIR
    models.mkdir()
    shutil.copytree(onnx.path.parent, models / onnx.path.parent.name)
    args = [sys.executable, "-c", ONE_SHOT, "recall", "renew the TLS certificate for billing",
            "--vault", str(vault), "--json", "--no-record"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "HEAVY []" in proc.stderr, proc.stderr[-2000:]
    answer = json.loads(proc.stdout)
    assert answer["embedder"] == onnx.name and answer["vectors"] is True
    assert any("renew-cert" in t["id"] for t in answer["tasks"])


# -- the batch path (embedding a vault) ----------------------------------------
def test_the_export_is_the_fused_graph(exported, fp32):
    _, first, second = exported
    assert first._encoder.graph == second._encoder.graph == fp32._encoder.graph == "fused"


def test_onnx_batch_vectors_match_torch_on_real_pages(fp32, embedded_sample, embedder):
    """Every page of sample_vault as the embedding pass sends it: the ONNX
    batch (sorted by word pieces, padded per batch) against
    sentence-transformers' own batching, within 1e-3 cosine (measured: ~1e-7)."""
    onnx = fp32
    _, store = embedded_sample
    texts = [embed.page_text(r) for r in embed._page_rows(store, None)]
    assert len(texts) > 100
    got, want = onnx.encode(texts), embedder.encode(texts)
    gaps = 1.0 - np.sum(got * want, axis=1)
    worst = int(np.argmax(gaps))
    assert gaps[worst] <= 1e-3, f"page text {worst} ({texts[worst][:40]!r}) differs by {gaps[worst]:.2e}"
    # a text's vector does not depend on the batch it lands in
    order = np.random.default_rng(0).permutation(len(texts))
    shuffled = onnx.encode([texts[i] for i in order])
    assert np.max(np.abs(shuffled - got[order])) <= 1e-5
    lengths = onnx._encoder.tokens(texts)
    assert max(lengths) == 256 and min(lengths) >= 2  # truncated to the window; [CLS] and [SEP] always


def test_int8_vectors_do_not_depend_on_the_batch(int8, embedded_sample):
    """The int8 graph runs one text per call (its activation scale is taken
    per call): sample_vault's page texts in one batch, shuffled, and one at a
    time give the same vectors, far within 1e-3 cosine."""
    _, store = embedded_sample
    texts = [embed.page_text(r) for r in embed._page_rows(store, None)][:60] + ["renew the TLS certificate", "x"]
    got = int8.encode(texts)
    order = np.random.default_rng(0).permutation(len(texts))
    assert np.max(np.abs(int8.encode([texts[i] for i in order]) - got[order])) <= 1e-6
    alone = np.stack([int8.encode_one(t) for t in texts])
    assert float(np.min(np.sum(alone * got, axis=1))) >= 1 - 1e-6


def _embed_cli(vault: Path, env: dict | None = None) -> dict:
    args = [sys.executable, "-c", ONE_SHOT, "embed", "--vault", str(vault), "--json"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})})
    assert proc.returncode == 0, proc.stderr
    assert "HEAVY []" in proc.stderr, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def _vault_with_export(embedded_template, tmp_path, exported) -> Path:
    """A copy of the embedded sample vault (vectors made by torch, fp32) with the export in its store."""
    vault = tmp_path / "sample_vault"
    shutil.copytree(embedded_template, vault)
    models = load_config(vault).store / onnx_embed.MODELS_DIR
    models.mkdir()
    src = exported[2].path.parent
    shutil.copytree(src, models / src.name)
    return vault


def _edit_a_correction(vault: Path) -> None:
    page = next(p for p in sorted(vault.rglob("*.md")) if "corrections" in p.parts)
    page.write_text(page.read_text(encoding="utf-8") + "\nOne more line about the chain order.\n", encoding="utf-8")


def test_embedding_a_vault_with_fp32_shares_torch_vectors(exported, fp32, embedded_template, tmp_path):
    """``brainwork embed`` on the fp32 graph (the default): torch is not imported; vectors
    made by torch stay valid (same name), and after one page's edit exactly
    that page is embedded again."""
    vault = _vault_with_export(embedded_template, tmp_path, exported)
    _edit_a_correction(vault)
    answer = _embed_cli(vault)
    assert answer["model"] == fp32.name and answer["embedded"] == 1 and answer["cached"] == answer["total"] - 1
    assert _embed_cli(vault, {"BRAINWORK_EMBEDDER": "fp32"})["embedded"] == 0


def test_embedding_a_vault_with_int8_re_embeds_and_agrees_with_one_shot(exported, int8, embedded_template, tmp_path):
    """``brainwork embed`` on the int8 graph: the vectors torch made
    are all re-embedded (another model, never mixed), then only an edited
    page; and what the batch pass stored in that process agrees within 1e-3
    cosine with what this process encodes one text at a time (the one-shot
    and served recall path)."""
    from brainwork.store import Store
    from brainwork.store import vectors as vstore

    vault = _vault_with_export(embedded_template, tmp_path, exported)
    env = {"BRAINWORK_EMBEDDER": "int8"}
    answer = _embed_cli(vault, env)
    assert answer["model"] == int8.name and answer["embedded"] == answer["total"] and answer["cached"] == 0
    _edit_a_correction(vault)
    answer = _embed_cli(vault, env)
    assert answer["embedded"] == 1 and answer["cached"] == answer["total"] - 1
    assert _embed_cli(vault, env)["embedded"] == 0
    store = Store(load_config(vault).store)
    try:
        assert vstore.current_model(store) == int8.name
        assert vstore.count(store, int8.name) == answer["total"]
        rows = embed._page_rows(store, None)
        stored = vstore.vectors(store, [r["id"] for r in rows], model=int8.name)
    finally:
        store.close()
    cos = [float(stored[r["id"]] @ int8.encode_one(embed.page_text(r))) for r in rows[::4]]
    assert min(cos) >= 1 - 1e-3, min(cos)
