"""The recall benchmark's scoring (no model, no vault)."""

from __future__ import annotations

import yaml

from benchmarks import bench_lessons as bl
from benchmarks.bench_recall import score_query


def test_score_query():
    s = score_query("q", ["t1", "t2", "t3", "t4"], ["t9", "t2", "t1"])
    assert s.hit and abs(s.recall - 2 / 3) < 1e-9 and s.rr == 0.5
    s = score_query("q", ["t1"], ["t1", "t8"])
    assert s.hit and s.recall == 1.0 and s.rr == 1.0
    s = score_query("q", ["t1", "t2"], [])
    assert not s.hit and s.recall == 0.0 and s.rr == 0.0


def test_data_has_queries_and_unrelated_requests():
    raw = yaml.safe_load(bl.DATA.read_text(encoding="utf-8"))
    assert len(raw["recall_queries"]) >= 20
    assert len(raw["recall_unrelated"]) >= 5 and all(isinstance(u, str) and u for u in raw["recall_unrelated"])
