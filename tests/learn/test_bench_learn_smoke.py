"""Smoke test: benchmarks/bench_learn.py runs on a tiny vault (lexical
embedder, so it is fast). Nothing here is timed; figures live in
docs/performance.md."""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:  # `benchmarks` is a top-level folder, not installed
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks import bench_learn  # noqa: E402


def test_bench_learn_runs_on_a_tiny_vault(tmp_path, monkeypatch):
    monkeypatch.setenv("BRAINWORK_EMBEDDER", "lexical")
    bench = bench_learn.run(pages=40, runs=1, seed=0, workdir=tmp_path)
    rows = {r.name: r for r in bench.rows}
    assert rows["second pass: pages re-embedded"].value == 0
    assert rows["second pass: pages re-embedded"].ok
    assert any(n.startswith("recall, warm (brute-force") for n in rows)
    assert any(n.startswith("recall, warm (HNSW") for n in rows)
    assert "lexical" in rows["embedder load (cold)"].detail
