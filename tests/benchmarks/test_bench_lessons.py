"""The lessons benchmark's scorer on tiny known cases, and the shape of its data file."""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:  # `benchmarks` is a top-level folder, not installed
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.bench_lessons import (  # noqa: E402
    Correction,
    StatedCount,
    content_words,
    halves,
    load,
    paraphrase_pairs,
    score,
)

TRUTH = {"a": "L1", "b": "L1", "c": "L1", "d": "L2", "e": "L2", "f": None, "g": None}
PAIRS = [("L1", "L2")]


def _cl(ids, candidate="rules/x", action="new"):
    return {"corrections": list(ids), "candidate": candidate, "action": action}


def test_perfect_clustering():
    s = score(TRUTH, [_cl("abc"), _cl("de")], PAIRS, [("a", "c")])
    assert s.ari == 1.0 and s.purity == 1.0
    assert (s.proposals, s.candidates, s.clean, s.complete) == (2, 2, 2, 2)
    assert (s.oneoffs, s.oneoffs_in_proposal) == (2, 0)
    assert (s.lookalike_pairs, s.lookalike_apart) == (1, 1)
    assert (s.paraphrase_pairs, s.paraphrases_joined) == (1, 1)
    assert s.meets_targets()


def test_merged_lookalikes_and_oneoff_in_a_candidate():
    # one cluster mixes both lessons and a one-off; c is left alone
    s = score(TRUTH, [_cl("abdef")], PAIRS, [("a", "c")])
    assert s.lookalike_apart == 0 and s.lookalike_merged == ["L1 + L2"]
    assert s.oneoffs_in_proposal == 1
    assert (s.clean, s.complete) == (0, 0)
    assert s.mixed == [["a", "b", "d", "e", "f"]]
    assert s.paraphrases_joined == 0
    # purity: the big cluster's majority is L1 (2 of 5), plus c and g alone: (2 + 1 + 1) / 7
    assert s.purity == round(4 / 7, 3)
    assert s.ari < 0.2
    assert not s.meets_targets()


def test_evidence_clusters_count_as_proposals_and_foreign_ids_are_ignored():
    clusters = [_cl(["a", "b", "corrections/sample-1"], candidate=None, action="evidence"), _cl("de", candidate=None, action="x")]
    s = score(TRUTH, clusters, PAIRS, [])
    assert (s.proposals, s.candidates, s.clean, s.complete) == (1, 0, 1, 0)
    # d and e are one cluster for the ARI even though it proposes nothing
    assert s.ari == score(TRUTH, [_cl("ab"), _cl("de")], PAIRS, []).ari


def test_stated_counts():
    ok = StatedCount("rules/a", 3, 2, evidence=3, tasks=2)
    wrong_tasks = StatedCount("rules/b", 3, 3, evidence=3, tasks=2)
    one_task = StatedCount("rules/c", 2, 1, evidence=2, tasks=1)
    missing = StatedCount("rules/d", None, None, evidence=2, tasks=2)
    s = score(TRUTH, [], PAIRS, [], [ok, wrong_tasks, one_task, missing])
    assert (s.stated, s.stated_true) == (4, 1)
    assert s.stated_false == ["rules/b", "rules/c", "rules/d"]


def test_paraphrase_pairs_share_no_content_word():
    assert content_words("Restarted the jobs, restarting it") == {"restart", "job"}
    cs = [
        Correction("x", "t1", "2026-01-01", "L", "w", "Read the log first.", "It was a real bug."),
        Correction("y", "t2", "2026-01-02", "L", "w", "Open the console output.", "Retries proved nothing."),
        Correction("z", "t3", "2026-01-03", "L", "w", "Read the console.", "Retries again."),
        Correction("o", "t4", "2026-01-04", None, "w", "Nothing shared here.", "Unrelated."),
    ]
    assert paraphrase_pairs(cs) == [("x", "y")]


def test_data_file_shape():
    b = load()
    assert len(b.corrections) >= 60
    tasks_of = defaultdict(set)
    for c in b.corrections:
        if c.lesson:
            tasks_of[c.lesson].add(c.task)
    assert len(tasks_of) >= 8 and all(3 <= len(t) <= 8 for t in tasks_of.values())
    assert sum(1 for c in b.corrections if c.lesson is None) >= 12
    assert len(b.lookalike_pairs) >= 3
    assert {l.id for l in b.lessons} == set(tasks_of) and all(l.text for l in b.lessons)
    task_ids = {t.id for t in b.tasks}
    assert all(c.task in task_ids for c in b.corrections)
    assert len(b.recall_queries) >= 20
    assert all(q["query"] and set(q["expected_tasks"]) <= task_ids for q in b.recall_queries)
    assert [t.created for t in b.tasks] == sorted(t.created for t in b.tasks)
    assert len(paraphrase_pairs(b.corrections)) >= 5


@pytest.mark.parametrize("bad", ["nope"])
def test_unknown_lesson_is_refused(tmp_path, bad):
    p = tmp_path / "d.yaml"
    p.write_text(
        "lessons: [{id: L, text: t}]\n"
        f"tasks: [{{id: t1, created: 2026-01-01, title: T, request: R, corrections: [{{id: c, lesson: {bad}, wrong: w, correct: c, why: y}}]}}]\n"
    )
    with pytest.raises(ValueError, match="unknown lessons"):
        load(p)


def test_halves_split_the_data_with_lookalikes_and_oneoffs_in_each():
    bench = load()
    a, b = halves(bench)
    assert a and b and not a & b and a | b == {c.id for c in bench.corrections}
    for half in (a, b):
        lessons = {c.lesson for c in bench.corrections if c.id in half}
        assert None in lessons
        assert any(x in lessons and y in lessons for x, y in bench.lookalike_pairs)
    # a lesson is never split between the halves
    for lesson in {c.lesson for c in bench.corrections if c.lesson}:
        assert len({c.id in a for c in bench.corrections if c.lesson == lesson}) == 1
