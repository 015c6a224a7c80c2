"""Recall over a vault only part of which has vectors (the owner is still
embedding): real store, real model; a task whose vector is not there yet is
ranked by its words beside the embedded ones, and the answer says so."""

from __future__ import annotations

from brainwork.learn.recall import Coverage, recall, task_corrections
from brainwork.store import prior as pstore
from brainwork.store import vectors as vstore

TASK = "tasks/2026-09-02-renew-cert-billing-api"
ASK = "Renew the TLS certificate for the billing api"


def test_tasks_without_their_vectors_are_ranked_by_words(learn_vault, embedder):
    """No task nor correction has its vector yet (the other pages have theirs)."""
    config, store = learn_vault
    pages = vstore.count(store, embedder.name)
    tasks = frozenset(t.id for t in pstore.tasks(store, None))
    waiting = tasks | {c for cs in task_corrections(store, sorted(tasks)).values() for c in cs}
    assert TASK in tasks
    vstore.write_vectors(store, [], sorted(waiting))  # not embedded yet
    blind = recall(config, store, ASK, embedder=embedder, record=False)
    assert blind.vectors and blind.tasks == []  # the vector search cannot see them
    assert blind.note == "" and blind.coverage is None

    cov = Coverage(pages=pages, embedded=pages - len(waiting), missing=waiting, embedding=True)
    r = recall(config, store, ASK, embedder=embedder, record=False, coverage=cov)
    mine = [t for t in r.tasks if t.id == TASK]
    assert mine and mine[0].similarity == 0.0 and mine[0].score == mine[0].overlap >= config.thresholds.recall_min_similarity
    assert r.vectors and len(r.tasks) <= config.thresholds.recall_tasks and len({t.id for t in r.tasks}) == len(r.tasks)
    assert [t.rank for t in r.tasks] == list(range(1, len(r.tasks) + 1))
    line = f"embedding in progress: vectors for {pages - len(waiting)} of {pages} pages; results for the rest by words"
    assert r.note == line and r.text.splitlines()[1] == line and r.chars <= r.budget
    data = r.to_json()
    assert data["note"] == line and data["coverage"] == {"pages": pages, "embedded": pages - len(waiting), "embedding": True}


def test_the_note_words_its_counts():
    assert Coverage(10, 10).note() == ""
    assert Coverage(1, 0, frozenset({"a"})).note() == (
        "vectors for 0 of 1 page; results for the rest by words (`brainwork embed` embeds them)")
    assert Coverage(2, 1, frozenset({"a"}), True).note() == (
        "embedding in progress: vectors for 1 of 2 pages; results for the rest by words")
