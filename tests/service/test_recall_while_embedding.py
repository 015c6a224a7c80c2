"""A recall served by the store's owner while the owner embeds: real store
(a copy of the sample vault with its vectors cleared, as a vault never
embedded), real model (its ONNX export), the real served command path
(:func:`brainwork.cli.served.run_request`) and the real background pass
(:mod:`brainwork.service.embedding`), slowed at its second chunk so the
recall lands in the middle of it."""

from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager

import pytest

from brainwork.cli.served import run_request
from brainwork.config import load_config
from brainwork.learn import embed
from brainwork.service import embedding
from brainwork.service.handle import StoreHandle
from brainwork.service.owner import Request
from brainwork.store import vectors as vstore

PASS_CHUNK = 16


@contextmanager
def _owner(vault, monkeypatch, clear: bool):
    """``(config, handle, emb, encoded)`` for an open store, its vectors
    cleared when ``clear``, closed on exit; ``encoded`` lists ``(thread
    name, texts)`` of every chunk encoded."""
    config = load_config(vault)
    handle = StoreHandle(config)
    handle.open()
    if clear:
        with handle.exclusive() as store:
            vstore.clear(store)
    emb = embed.get_embedder(config)
    assert not emb.lexical, emb.reason
    monkeypatch.setattr(embedding, "CHUNK", PASS_CHUNK)
    encoded: list[tuple[str, int]] = []
    real = embed.encode_chunk

    def counting(e, plan, chunk):
        encoded.append((threading.current_thread().name, len(chunk)))
        return real(e, plan, chunk)

    monkeypatch.setattr(embed, "encode_chunk", counting)
    try:
        yield config, handle, emb, encoded
    finally:
        handle.close()


@pytest.fixture
def owner(embedded_vault_copy, monkeypatch):
    """A store never embedded (its vectors cleared), held as the owner holds it."""
    with _owner(embedded_vault_copy, monkeypatch, clear=True) as held:
        yield held


@pytest.fixture
def embedded_owner(embedded_vault_copy, monkeypatch):
    """The same with every page embedded."""
    with _owner(embedded_vault_copy, monkeypatch, clear=False) as held:
        yield held


def _recall(config, handle, *words: str) -> dict:
    reply = run_request(config, handle, Request(argv=["--vault", str(config.vault), "recall", "--json", "--no-record",
                                                       *words]))
    assert reply.exit_code == 0, reply.stderr
    return json.loads(reply.stdout)


def _slow_second_chunk(monkeypatch, gate: threading.Event, reached: threading.Event) -> None:
    real = embed.encode_chunk
    calls = {"n": 0}

    def slow(e, plan, chunk):
        if threading.current_thread().name == "brainwork-embed":
            calls["n"] += 1
            if calls["n"] == 2:
                reached.set()
                assert gate.wait(120)
        return real(e, plan, chunk)

    monkeypatch.setattr(embed, "encode_chunk", slow)


def test_a_recall_during_the_pass_answers_without_embedding(owner, monkeypatch):
    config, handle, emb, encoded = owner
    gate, reached = threading.Event(), threading.Event()
    _slow_second_chunk(monkeypatch, gate, reached)
    thread = embedding.start_pass(config, handle, emb)
    assert thread is not None and reached.wait(120)
    try:
        p = embedding.running(config)
        assert p is not None and p.done == PASS_CHUNK and len(p.todo) > 3 * PASS_CHUNK
        t0 = time.monotonic()
        answer = _recall(config, handle, "Renew the TLS certificate for the billing api")
        seconds = time.monotonic() - t0
        here = threading.current_thread().name
        assert not [n for n, _ in encoded if n == here], "the served recall embedded pages itself"
        assert seconds < 10  # the pass is parked: a recall that waited for it would not return at all
        assert answer["note"].startswith(f"embedding in progress: vectors for {PASS_CHUNK} of {p.pages} pages;")
        assert answer["note"] in answer["text"].splitlines()[1]
        assert answer["coverage"] == {"pages": p.pages, "embedded": PASS_CHUNK, "embedding": True}
        # the certificate tasks are found though most of them have no vector yet
        assert any("renew-cert" in t["id"] for t in answer["tasks"])
        assert embedding.start_pass(config, handle, emb) is None  # one pass per store
    finally:
        gate.set()
        thread.join(300)
    assert embedding.running(config) is None
    with handle.use() as store:
        assert vstore.count(store, emb.name) == p.pages
    answer = _recall(config, handle, "Renew the TLS certificate for the billing api")
    assert answer["note"] == "" and answer["coverage"] is None and answer["vectors"] is True


def test_a_recall_on_a_vault_never_embedded_starts_the_pass(owner):
    config, handle, emb, encoded = owner
    answer = _recall(config, handle, "Renew the TLS certificate for the billing api")
    here = threading.current_thread().name
    assert not [n for n, _ in encoded if n == here]
    assert answer["note"].startswith("embedding in progress: vectors for 0 of ")
    assert embedding.running(config) is not None or [n for n, _ in encoded if n == "brainwork-embed"]


def test_a_few_changed_pages_are_embedded_inline(embedded_owner):
    config, handle, emb, encoded = embedded_owner
    page = next((config.vault / "tasks").glob("*renew-cert*.md"))
    page.write_text(page.read_text(encoding="utf-8") + "\nAlso check the OCSP stapling.\n", encoding="utf-8")
    answer = _recall(config, handle, "Renew the TLS certificate for the billing api")
    assert encoded == [(threading.current_thread().name, 1)]
    assert answer["note"] == "" and answer["vectors"] is True


def test_a_second_whole_pass_follows_the_running_one(owner, monkeypatch):
    config, handle, emb, encoded = owner
    gate, reached = threading.Event(), threading.Event()
    _slow_second_chunk(monkeypatch, gate, reached)
    thread = embedding.start_pass(config, handle, emb)
    assert reached.wait(120)
    seen: list[tuple[int, int]] = []
    result: list[int] = []
    follower = threading.Thread(target=lambda: result.append(
        embedding.embed_without_holding(config, handle, emb, on_chunk=lambda d, t, s: seen.append((d, t)))))
    follower.start()
    time.sleep(0.5)
    gate.set()
    thread.join(300)
    follower.join(300)
    total = sum(k for _, k in encoded)
    assert result == [total]  # what the pass it followed embedded; nothing left for it to do
    assert seen[0] == (PASS_CHUNK, total) and seen[-1] == (total, total)
    with handle.use() as store:
        assert vstore.count(store, emb.name) == total  # each page encoded once
