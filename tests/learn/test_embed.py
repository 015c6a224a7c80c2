"""Embeddings: the real bundled model, the content-hash cache, the lexical
fallback and both search paths (brute force and HNSW) against a real store."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.learn import embed
from brainwork.learn.embed import (
    BUNDLED_NAME,
    LexicalEmbedder,
    embed_pages,
    get_embedder,
    loaded_embedder,
    nearest,
    page_text,
    vectors,
)
from brainwork.store import Store
from brainwork.store import vectors as vstore


def test_model_shape_normalised_and_meaningful(embedder):
    out = embedder.encode(["renew the TLS certificate", "renew an SSL cert before it expires", "bake a cake", ""])
    assert out.shape == (4, 384) and out.dtype == np.float32
    assert np.allclose(np.linalg.norm(out[:3], axis=1), 1.0, atol=1e-5)
    assert np.allclose(out[3], 0) or np.isclose(np.linalg.norm(out[3]), 1.0, atol=1e-5)
    assert embedder.name == f"{BUNDLED_NAME}@256" and not embedder.lexical and embedder.reason is None
    assert out[0] @ out[1] > out[0] @ out[2] + 0.3
    assert embedder.encode([]).shape == (0, 384)
    assert loaded_embedder(None) is embedder  # cached per process, loaded once
    assert get_embedder(None) is embedder


def test_page_text_uses_title_key_fields_tags_body():
    row = {
        "title": "Chain order", "type": "correction", "tags": ["tls"],
        "fields": '{"wrong": "leaf last", "correct": "leaf first", "why": "clients", "status": "open"}',
        "body": "See [[tasks/x|the task]] and **this**.\n\n" + "long " * 1000,
    }
    text = page_text(row)
    assert text.startswith("Chain order\nwrong: leaf last\ncorrect: leaf first\nwhy: clients\ntags: tls\nSee the task and this .")
    assert "status" not in text and "[[" not in text
    assert len(text) <= embed.MAX_TEXT_CHARS
    assert page_text({}) == ""


def test_embed_pages_caches_by_content(embedded_sample, embedder):
    config, store = embedded_sample
    n_pages = store.scalar("MATCH (p:Page) WHERE p.kind = 'page' RETURN count(p)")
    assert vstore.count(store, embedder.name) == n_pages
    assert embed_pages(config, store, embedder=embedder) == 0  # second run embeds nothing
    some = "tasks/2026-09-02-renew-cert-billing-api"
    vec = vectors(store, [some])[some]
    assert vec.shape == (384,) and np.isclose(np.linalg.norm(vec), 1.0, atol=1e-5)
    hits = nearest(store, vec, 3, type="task")
    assert hits[0][0] == some and hits[0][1] == pytest.approx(1.0, abs=1e-4)
    assert all(pid.startswith("tasks/") for pid, _ in hits)
    ids, mat = vstore.all_vectors(store, type="correction")
    assert len(ids) == mat.shape[0] >= 20 and mat.shape[1] == 384 and ids == sorted(ids)


def test_changed_moved_and_removed_pages(sample_config, sample_store, embedder):
    config, store = sample_config, sample_store
    sub = ["tasks/2026-09-02-renew-cert-billing-api", "tasks/2026-09-14-renew-cert-billing",
           "corrections/2026-09-02-serve-fullchain-not-leaf"]
    progress = []
    assert embed_pages(config, store, ids=sub, embedder=embedder, progress=lambda d, t, p: progress.append((d, t, p))) == 3
    assert progress[0] == (0, 3, "embedding") and progress[-1] == (3, 3, "embedding")
    assert embed_pages(config, store, ids=sub, embedder=embedder) == 0
    before = vectors(store, sub)
    # change one page's text: only it is re-embedded
    path = config.vault / "tasks/2026-09-14-renew-cert-billing.md"
    path.write_text(path.read_text(encoding="utf-8") + "\nAlso rotated the HAProxy key.\n", encoding="utf-8")
    # move another unchanged: its vector is reused under the new id
    (config.vault / "tasks/2026-09-02-renew-cert-billing-api.md").rename(config.vault / "tasks/moved-renew.md")
    sync(config, store)
    new_sub = ["tasks/moved-renew", "tasks/2026-09-14-renew-cert-billing", "corrections/2026-09-02-serve-fullchain-not-leaf"]
    assert embed_pages(config, store, ids=new_sub, embedder=embedder) == 2
    after = vectors(store, new_sub)
    assert np.allclose(after["tasks/moved-renew"], before["tasks/2026-09-02-renew-cert-billing-api"])
    assert not np.allclose(after["tasks/2026-09-14-renew-cert-billing"], before["tasks/2026-09-14-renew-cert-billing"])
    # a deleted page never comes back from a search, even before the next pass
    (config.vault / "tasks/moved-renew.md").unlink()
    sync(config, store)
    q = after["tasks/moved-renew"]
    assert "tasks/moved-renew" not in [i for i, _ in nearest(store, q, 5)]


def test_lexical_fallback_when_model_path_is_bogus(sample_config, sample_store):
    config = dataclasses.replace(sample_config, model="/no/such/model-folder")
    emb = get_embedder(config)
    assert isinstance(emb, LexicalEmbedder) and emb.lexical
    assert "/no/such/model-folder" in emb.reason and "not found" in emb.reason
    assert "lexical" in emb.status and emb.reason in emb.status
    out = emb.encode(["certificate chain order", "certificate chain ordering", "database migration"])
    assert out.shape == (3, 384) and np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    assert out[0] @ out[1] > out[0] @ out[2]
    n = embed_pages(config, sample_store)
    assert n > 100 and vstore.current_model(sample_store) == emb.name
    hits = nearest(sample_store, emb.encode_one("renew cert for the edge proxy"), 3, type="task")
    assert hits and all(pid.startswith("tasks/") for pid, _ in hits)
    assert embed_pages(config, sample_store) == 0  # cached like the real model's


def test_relative_model_path_and_wrong_folder(tmp_path, make_vault):
    root = make_vault({"a.md": "# A\n"})
    (root / "brainwork.toml").write_text('[embeddings]\nmodel = "models/none"\n', encoding="utf-8")
    config = load_config(root)
    folder, name, problem = embed.model_folder(config)
    assert folder is None and str(root / "models" / "none") in problem
    not_a_model = root / "models" / "empty"
    not_a_model.mkdir(parents=True)
    emb = get_embedder(dataclasses.replace(config, model=str(not_a_model)))
    assert emb.lexical and "cannot be loaded" in emb.reason


def test_hnsw_index_path_matches_brute_force(sample_config, sample_store, monkeypatch):
    """Above vector_index_min_rows the HNSW index serves; a big change rebuilds
    into the other table; results agree with brute force (lexical vectors: fast)."""
    monkeypatch.setenv("BRAINWORK_EMBEDDER", "lexical")
    th = sample_config.thresholds.with_overrides({"vector_index_min_rows": 10})
    config = dataclasses.replace(sample_config, thresholds=th)
    store = sample_store
    emb = get_embedder(config)
    assert emb.lexical and "BRAINWORK_EMBEDDER" in emb.reason
    q = emb.encode_one("renew the certificate on the edge proxy")
    # brute force first (no index yet), then build the index
    embed_pages(dataclasses.replace(config, thresholds=sample_config.thresholds), store, embedder=emb)
    assert not vstore.has_index(store)
    brute = nearest(store, q, 5, type="task")
    assert vstore.ensure_index(store, 10)
    assert vstore.has_index(store) and vstore.current_table(store) == "PageVec"
    hnsw = nearest(store, q, 5, type="task")
    assert [i for i, _ in hnsw][:3] == [i for i, _ in brute][:3]
    assert [s for _, s in hnsw] == pytest.approx([s for _, s in brute][: len(hnsw)], abs=1e-4)
    # a small change: delete + insert under the index
    path = config.vault / "tasks/2026-09-17-renew-cert-edge-proxy.md"
    path.write_text(path.read_text(encoding="utf-8") + "\nwildcard edge proxy certificate renewed\n", encoding="utf-8")
    sync(config, store)
    assert embed_pages(config, store, embedder=emb) == 1
    edge = "tasks/2026-09-17-renew-cert-edge-proxy"
    own = vectors(store, [edge])[edge]
    assert nearest(store, own, 1, type="task")[0][0] == edge  # the re-inserted row is in the index
    # a large change rebuilds into PageVecB; clearing never empties the indexed table
    monkeypatch.setattr(vstore, "REBUILD_ROWS", 5)
    vstore.clear(store)
    assert nearest(store, q, 3) == []
    assert embed_pages(config, store, embedder=emb) > 100
    assert vstore.current_table(store) == "PageVecB" and vstore.has_index(store)
    assert nearest(store, own, 1, type="task")[0][0] == edge
    assert [i for i, _ in nearest(store, q, 3, type="task")] == [i for i, _ in brute][:3]
    assert embed_pages(config, store, embedder=emb) == 0


def test_hnsw_survives_reopen(sample_config, monkeypatch):
    monkeypatch.setenv("BRAINWORK_EMBEDDER", "lexical")
    th = sample_config.thresholds.with_overrides({"vector_index_min_rows": 10})
    config = dataclasses.replace(sample_config, thresholds=th)
    with Store(config.store) as store:
        sync(config, store)
        embed_pages(config, store)
        assert vstore.has_index(store)
    with Store(config.store) as store:
        emb = get_embedder(config)
        hits = nearest(store, emb.encode_one("flaky CI job rerun"), 3, type="task")
        assert len(hits) == 3
        assert embed_pages(config, store) == 0
