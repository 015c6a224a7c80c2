"""Smoke test: benchmarks/bench_ops.py runs on a tiny vault (not timed)."""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:  # `benchmarks` is a top-level folder, not installed
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks import bench_ops  # noqa: E402


def test_bench_ops_runs_on_a_tiny_vault(tmp_path) -> None:
    bench = bench_ops.run(pages=40, backlinks=20, runs=1, seed=1, workdir=tmp_path)
    names = [r.name for r in bench.rows]
    assert any(n.startswith("rename") for n in names) and any(n.startswith("undo") for n in names)
    rename_row = next(r for r in bench.rows if r.name.startswith("rename"))
    assert rename_row.target == 2.0 and "20 files" in rename_row.detail
