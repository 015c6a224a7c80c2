"""Smoke tests of the first-paint and session-memory benchmarks on tiny
vaults (nothing timed; the figures live in docs/performance.md)."""

from __future__ import annotations

import sys
import tracemalloc
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:  # `benchmarks` is a top-level folder, not installed
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks import bench_paint, bench_rename_memory, synth  # noqa: E402


def test_bench_rename_memory_runs_cycles_and_restores_bytes(tmp_path):
    bench = bench_rename_memory.run(pages=80, backlinks=20, cycles=2, seed=0, workdir=tmp_path, trace=True)
    names = [r.name for r in bench.rows]
    assert "RSS after cycle 2" in names and "Python heap, cycle 1 -> last" in names
    assert not tracemalloc.is_tracing()  # it would slow the rest of the process several times over


def test_bench_paint_measures_a_tiny_vault(tmp_path):
    vault = tmp_path / "vault"
    synth.generate(vault, 40, 0, force=True)
    bench = bench_paint.run(vault, tmp_path / "store", runs=1, poll=0.02, pages=40)
    rows = {r.name: r for r in bench.rows}
    paint = rows["first paint, CPU at the paint"]
    assert paint.value > 0 and "40 rows" in paint.detail
    # Which heavy modules are loaded by the paint depends on whether the
    # start-up sync (which reads the store as Arrow, hence numpy) has begun:
    # a race, so the smoke test only checks that the row is reported.
    assert "heavy modules at first paint" in rows
