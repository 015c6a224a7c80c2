"""The pieces an embedding pass is made of when it must not hold the store
while it encodes (the workbench's warm-up), and the time-left estimate."""

from __future__ import annotations

from brainwork.learn import embed
from brainwork.learn.embed import LexicalEmbedder
from brainwork.store import vectors as vstore


def test_time_left_from_the_rate_so_far():
    assert embed.time_left(0, 100, 5.0) is None  # no rate yet
    assert embed.time_left(25, 100, 10.0) == 30.0
    assert embed.time_left(100, 100, 10.0) == 0.0
    assert embed.format_left(None) == ""
    assert embed.format_left(7) == "~7 s left"
    assert embed.format_left(44) == "~40 s left"
    assert embed.format_left(6 * 60 + 10) == "~6 min left"
    assert embed.format_left(65 * 60) == "~1 h 5 min left"


def test_plan_encode_write_equals_embed_pages(sample_config, sample_store):
    """Planning under one hold, encoding with none and writing chunk by chunk
    leaves the cache a plain ``embed_pages`` would, and a second plan is empty."""
    emb = LexicalEmbedder("test")
    plan = embed.plan_embedding(sample_config, sample_store, emb)
    assert plan.pages == len(plan.todo) > 100 and not plan.gone and plan.model == emb.name
    for start in range(0, len(plan.todo), 50):
        rows = embed.encode_chunk(emb, plan, plan.todo[start : start + 50])
        assert all(r[2] == emb.name and r[4].shape == (384,) for r in rows)
        vstore.write_vectors(sample_store, rows, plan.gone if start == 0 else (), model=emb.name)
    embed.finish_plan(sample_store, plan)
    assert vstore.current_model(sample_store) == emb.name
    assert not embed.plan_embedding(sample_config, sample_store, emb).todo
    assert embed.embed_pages(sample_config, sample_store, embedder=emb) == 0
    # the stored key is the one embed_pages computes for the page's text
    state = vstore.vector_state(sample_store)
    some = plan.todo[0]
    assert state[some[0]] == some[1] == embed.text_key(emb.name, some[2], some[3])
