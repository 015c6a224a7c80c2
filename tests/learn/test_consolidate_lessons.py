"""Consolidation clusters lessons, not incidents: the text a correction is
clustered by, the member check, and a pass over part of the lessons
benchmark (benchmarks/lessons/lessons.yaml) with the real model."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import yaml

from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.learn.consolidate import (
    cluster_lessons,
    consolidate,
    lesson_surface,
    lesson_texts,
    lesson_vectors,
    member_check,
)
from brainwork.store import Store

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.bench_lessons import load as load_benchmark  # noqa: E402


def test_lesson_surface_drops_the_specifics():
    assert lesson_surface('Use "Kontoauszug", which the term base specifies.') == "Use, which the term base specifies."
    assert lesson_surface("Check which hosts it touches (--list-hosts, --limit) before running it.") == (
        "Check which hosts it touches before running it.")
    assert lesson_surface("Keep {count} and %1$s as they are; translate the words around them.") == (
        "Keep and as they are; translate the words around them.")
    assert lesson_surface("Take a pg_dump and a snapshot of MOB-1432 first.") == "Take a and a snapshot of first."
    # nothing but specifics: the original stays
    assert lesson_surface("`kubectl config current-context`") == "`kubectl config current-context`"
    assert lesson_surface(None) == ""


def test_the_wrong_keeps_its_quoted_words_the_correct_does_not():
    """In a ``wrong`` a quoted string is mostly the act (a button pressed);
    in a ``correct`` it is the case's term."""
    from brainwork.learn.consolidate import lesson_parts

    row = {"fields": {"wrong": 'Hit "Re-run all jobs" twice and ran `gh run rerun`.',
                      "correct": 'Use "Kontoauszug" as the term base says.', "why": "It was a real bug."}}
    correct, why, wrong = lesson_parts(row)
    assert wrong == "Hit Re-run all jobs twice and ran."
    assert correct == "Use as the term base says."
    assert lesson_surface('Clicked “Build Now” again.', keep_quoted=True) == "Clicked Build Now again."


def test_lesson_texts_are_correct_and_why_not_wrong_or_title():
    row = {"title": "Re-ran the job", "fields": {"wrong": "Re-ran the job 4 times.", "correct": "Read the log first.",
                                                   "why": "It was a real bug."}}
    assert lesson_texts(row) == ("Read the log first.", "It was a real bug.")


def _unit(rows):
    m = np.asarray(rows, dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_lesson_vectors_weigh_the_why_and_cache_by_text():
    calls = []
    table = {"a": [1, 0, 0], "b": [0, 1, 0], "c": [0, 0, 1]}

    def encode(texts):
        calls.append(list(texts))
        return np.array([table[t] + [0] * 381 for t in texts], dtype=np.float32)

    rows = [{"fields": {"correct": "a", "why": "b"}}, {"fields": {"correct": "a", "why": ""}},
            {"fields": {"correct": "", "why": "c"}}, {"fields": {}}]
    m = lesson_vectors(rows, encode, "test-embedder-1", 0.5)
    assert m.shape == (4, 384)
    np.testing.assert_allclose(m[0, :3], np.array([1, 0.5, 0]) / np.linalg.norm([1, 0.5, 0]), rtol=1e-5)
    np.testing.assert_allclose(m[1, :3], [1, 0, 0])
    np.testing.assert_allclose(m[2, :3], [0, 0, 1])  # no correct: the why alone
    assert not m[3].any()  # nothing to compare: a zero row
    lesson_vectors(rows, encode, "test-embedder-1", 0.5)
    assert calls == [["a", "b", "c"]]  # the second call encoded nothing


def test_lesson_vectors_persist_between_processes(tmp_path):
    import brainwork.learn.consolidate as consolidate_module

    calls = []

    def encode(texts):
        calls.append(list(texts))
        return np.array([[1.0] + [0.0] * 383 for _ in texts], dtype=np.float32)

    rows = [{"fields": {"correct": "read the log", "why": "it was real"}}]
    cache = tmp_path / "store" / "lesson-vectors.npz"
    first = lesson_vectors(rows, encode, "test-embedder-2", 0.5, cache)
    assert cache.is_file() and calls == [["read the log", "it was real"]]
    consolidate_module._LESSON_CACHE.clear()  # a new process
    again = lesson_vectors(rows, encode, "test-embedder-2", 0.5, cache)
    np.testing.assert_allclose(first, again)
    assert len(calls) == 1  # read from the file, not encoded
    consolidate_module._LESSON_CACHE.clear()
    lesson_vectors(rows, encode, "another-model", 0.5, cache)
    assert len(calls) == 2  # another embedder's vectors are not reused
    cache.write_bytes(b"not a numpy file")
    consolidate_module._LESSON_CACHE.clear()
    lesson_vectors(rows, encode, "test-embedder-2", 0.5, cache)
    assert len(calls) == 3  # a broken cache is rebuilt


def test_member_check_removes_a_member_near_only_part_of_a_group():
    # rows 0-2 one lesson; row 3 is close to row 2 only
    mat = _unit([[1, 0.1, 0], [1, 0, 0.1], [1, 0.3, 0.3], [0.2, 1, 1]])
    assert member_check(mat, [[0, 1, 2, 3]], 0.5, 0.9) == [[0, 1, 2], [3]]
    assert member_check(mat, [[0, 1, 2, 3]], 0.2, 0.9) == [[0, 1, 2, 3]]
    # a pair is held to the pair threshold
    pair = _unit([[1, 0, 0], [0.8, 0.6, 0]])  # cosine 0.8
    assert member_check(pair, [[0, 1]], 0.1, 0.85) == [[0], [1]]
    assert member_check(pair, [[0, 1]], 0.1, 0.75) == [[0, 1]]


def test_cluster_lessons_groups_by_direction():
    mat = _unit([[1, 0, 0], [0.9, 0.1, 0], [0, 1, 0], [0.05, 0.95, 0], [0, 0, 1]])
    assert cluster_lessons(mat, 0.8, 0.8, 0.9) == [[0, 1], [2, 3], [4]]
    assert cluster_lessons(np.zeros((0, 384), np.float32), 0.5, 0.5, 0.5) == []


def _page(fm: dict, body: str = "") -> str:
    return "---\n" + yaml.safe_dump(fm, allow_unicode=True, sort_keys=False) + "---\n" + body


def test_two_lessons_about_bad_totals_and_one_offs(make_vault, embedder):
    """Three lessons — two of them look-alikes about wrong totals in a data
    report — and four one-offs, written with different tools and words:
    each lesson becomes one candidate with true counts, the look-alikes
    stay apart, no one-off joins a candidate."""
    bench = load_benchmark()
    lessons = {"utc-before-bucketing", "join-row-counts", "report-dropped-rows"}
    oneoffs = {"c42", "c52", "c62", "c65"}
    chosen = [c for c in bench.corrections if c.lesson in lessons or c.id in oneoffs]
    tasks = {t.id: t for t in bench.tasks}
    files = {}
    for c in chosen:
        t = tasks[c.task]
        files[f"tasks/{t.id}.md"] = _page({"title": t.title, "type": "task", "created": t.created,
                                           "request": t.request, "tags": list(t.tags)})
        files[f"corrections/{c.id}.md"] = _page({"title": c.wrong[:60], "type": "correction", "created": c.created,
                                                 "wrong": c.wrong, "correct": c.correct, "why": c.why,
                                                 "status": "open", "corrects": f"[[tasks/{t.id}]]"})
    config = load_config(make_vault(files))
    store = Store(config.store)
    try:
        sync(config, store)
        report = consolidate(config, store, today="2026-11-01")
    finally:
        store.close()
    truth = {f"corrections/{c.id}": c.lesson for c in chosen}
    found = {}
    for cl in report.clusters:
        labels = {truth[i] for i in cl.corrections}
        assert len(labels) == 1 and None not in labels, f"mixed cluster: {cl.corrections}"
        found[labels.pop()] = cl
    assert set(found) == lessons
    for lesson, cl in found.items():
        assert set(cl.corrections) == {i for i, v in truth.items() if v == lesson}
        assert cl.action == "new" and cl.candidate
        text = (config.vault / f"{cl.candidate}.md").read_text(encoding="utf-8")
        assert re.search(rf"(from|Evidence:) {len(cl.corrections)} corrections in {len(cl.tasks)} tasks", text)
        assert len(cl.tasks) == len({tasks[i.split('/')[-1]].id for i in cl.tasks}) >= 2


def test_lesson_matrices_average_the_field_cosines_over_shared_fields():
    from brainwork.learn.consolidate import lesson_matrices

    table = {"a": [1, 0, 0], "b": [0, 1, 0], "c": [0, 0, 1], "d": [1, 1, 0]}

    def encode(texts):
        return np.array([table[t] + [0] * 381 for t in texts], dtype=np.float32)

    rows = [{"fields": {"correct": "a", "why": "b", "wrong": "c"}},
            {"fields": {"correct": "a", "why": "c", "wrong": "c"}},
            {"fields": {"correct": "d", "why": "", "wrong": ""}}]
    vecs, sims = lesson_matrices(rows, encode, "test-embedder-3", 0.5, (1.0, 0.5, 0.7))
    assert vecs.shape == (3, 384) and sims.shape == (3, 3)
    np.testing.assert_allclose(vecs, lesson_vectors(rows, encode, "test-embedder-3", 0.5))
    # rows 0 and 1: correct 1, why 0, wrong 1 -> (1 + 0 + 0.7) / 2.2
    assert abs(sims[0, 1] - 1.7 / 2.2) < 1e-5
    # row 2 has only a correct: the mean is over that one field
    assert abs(sims[0, 2] - 1 / np.sqrt(2)) < 1e-5
    # clustering on the matrix instead of the vectors
    assert cluster_lessons(vecs, 0.75, 0.75, 0.75, sims) == [[0, 1], [2]]
