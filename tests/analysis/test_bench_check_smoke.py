"""benchmarks/bench_check.py runs end to end on a tiny vault (nothing timed;
figures live in docs/performance.md)."""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:  # `benchmarks` is a top-level folder, not installed
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks import bench_check  # noqa: E402


def test_bench_check_runs_on_a_tiny_vault(tmp_path):
    bench = bench_check.run(pages=60, runs=1, seed=1, vault=None, workdir=tmp_path)
    names = [r.name for r in bench.rows]
    assert names[0].startswith("brainwork check, 60 pages")
    assert any("duplicate (CPU" in n for n in names)
    assert bench.rows[-1].name == "duplicate pairs found of those planted"
