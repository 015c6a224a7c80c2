"""Memory over many rename/undo cycles in one process, as in one workbench session.

``python -m benchmarks.bench_rename_memory [--pages 10000] [--backlinks 1000] [--cycles 20] [--json]``

The vault of :mod:`benchmarks.bench_ops` (``systems/Bench Target`` with
``--backlinks`` backlinking files). One process opens the store through a
:class:`brainwork.service.handle.StoreHandle`, as the workbench does, and
runs ``--cycles`` times: rename the page (``ops.rename.rename``) under an
exclusive hold, re-read what the workbench re-reads after an operation
(page list, counts, palette index, undo state), undo it
(``ops.changeset.undo``), re-read again; after each operation the store is
recycled when memory grew by more than 32 MB since it was opened
(``StoreHandle.recycle_if_grown``: closed, reopened, freed memory returned),
as the workbench's ``tui.operations.OperationRunner.run`` does (``--no-recycle``
shows the growth without it). After each cycle it records:

- the process's resident set (``/proc/self/statm``, now, not the high-water
  mark) and its high-water mark;
- the Python heap (``tracemalloc``, when ``--tracemalloc``: slower) — flat
  Python memory with growing RSS points at native memory (Kùzu);
- the store's files on disk (the database grows with every checkpoint).

Target: RSS after the last cycle within 10% (or 30 MB) of RSS after the
first; every undo restores every byte (checked).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from benchmarks.bench_ops import _digest, build
from benchmarks.harness import Bench


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def dir_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20


def run(pages: int, backlinks: int, cycles: int, seed: int, workdir: Path, trace: bool, recycle: bool = True) -> Bench:
    from brainwork.analysis.search import PageSearch
    from brainwork.config import load_config
    from brainwork.index.sync import sync
    from brainwork.ops import changeset
    from brainwork.ops.rename import rename
    from brainwork.service.handle import StoreHandle
    from brainwork.store import graph
    from brainwork.tui.operations import read_undo_state

    vault = build(workdir, pages, backlinks, seed)
    store_dir = workdir / f"store-{pages}"
    shutil.rmtree(store_dir, ignore_errors=True)
    config = load_config(vault, store_dir)
    handle = StoreHandle(config)
    handle.open()
    # tracemalloc slows every allocation of the process several times over,
    # so it is stopped when the run ends (the run may be one call among many,
    # as in the smoke test).
    tracing = trace and not tracemalloc.is_tracing()
    if tracing:
        tracemalloc.start(1)
    bench = Bench("rename_memory", {"pages": pages, "backlinks": backlinks, "cycles": cycles, "seed": seed,
                                    "recycle": recycle})
    curve: list[dict] = []
    recycled = 0
    try:
        with handle.exclusive() as store:
            sync(config, store)
        original = _digest(vault)

        def reread() -> None:  # what the workbench reads after an operation
            with handle.use() as store:
                pages_ = graph.list_pages(store)
                graph.counts(store)
                read_undo_state(store)
            PageSearch(pages_)

        reread()
        start = {"rss": rss_mb(), "heap": _heap(trace)}
        print(f"after index: RSS {start['rss']:.0f} MB", file=sys.stderr, flush=True)
        for i in range(cycles):
            c0, w0 = time.process_time(), time.perf_counter()
            with handle.exclusive() as store:
                rename(config, store, "Bench Target", "Renamed Target")
            if recycle:  # as the workbench's OperationRunner.run does after every operation
                recycled += handle.recycle_if_grown()
            reread()
            with handle.exclusive() as store:
                changeset.undo(config, store)
            if recycle:
                recycled += handle.recycle_if_grown()
            reread()
            assert _digest(vault) == original, "undo did not restore every byte"
            row = {"cycle": i + 1, "rss": rss_mb(), "peak": peak_mb(), "heap": _heap(trace),
                   "store_mb": dir_mb(store_dir), "cpu": time.process_time() - c0, "wall": time.perf_counter() - w0}
            curve.append(row)
            print(f"cycle {i + 1}: RSS {row['rss']:.0f} MB (peak {row['peak']:.0f}), heap {row['heap']:.0f} MB, "
                  f"store {row['store_mb']:.0f} MB, {row['cpu']:.1f} s CPU", file=sys.stderr, flush=True)
    finally:
        handle.close()
        if tracing:
            tracemalloc.stop()
    first, last = curve[0], curve[-1]
    bench.add("RSS after the index", start["rss"], unit="MB")
    bench.add("RSS after cycle 1", first["rss"], unit="MB")
    bench.add(f"RSS after cycle {last['cycle']}", last["rss"], unit="MB",
              target=max(first["rss"] * 1.1, first["rss"] + 30), detail="target: within 10% / 30 MB of cycle 1")
    bench.add("RSS curve", 0, unit="", detail=" ".join(f"{r['rss']:.0f}" for r in curve))
    bench.add("peak RSS", max(r["peak"] for r in curve), unit="MB")
    bench.add("store reopened (StoreHandle.recycle_if_grown)", recycled, unit="times",
              detail=f"after {2 * len(curve)} operations")
    if trace:
        bench.add("Python heap, cycle 1 -> last", last["heap"] - first["heap"], unit="MB",
                  detail=f"{first['heap']:.0f} -> {last['heap']:.0f} MB")
    bench.add("store on disk, cycle 1 -> last", last["store_mb"], unit="MB", detail=f"from {first['store_mb']:.0f} MB")
    cpus = sorted(r["cpu"] for r in curve)
    bench.add("CPU per cycle (rename + undo + re-reads), median", cpus[len(cpus) // 2],
              detail=f"first {curve[0]['cpu']:.1f} s, last {curve[-1]['cpu']:.1f} s")
    return bench


def _heap(trace: bool) -> float:
    if not trace:
        return 0.0
    return tracemalloc.get_traced_memory()[0] / 2**20


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_rename_memory", description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=10_000)
    ap.add_argument("--backlinks", type=int, default=1000)
    ap.add_argument("--cycles", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tracemalloc", action="store_true", help="also follow the Python heap (slower)")
    ap.add_argument("--no-recycle", dest="recycle", action="store_false",
                    help="do not reopen the store after each operation (the behaviour before StoreHandle.recycle)")
    ap.add_argument("--workdir", type=Path)
    ap.add_argument("--json", nargs="?", const=True, default=False)
    args = ap.parse_args(argv)
    tmp = None
    workdir = args.workdir
    if workdir is None:
        tmp = tempfile.mkdtemp(prefix="brainwork-bench-renmem-")
        workdir = Path(tmp)
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        return run(args.pages, args.backlinks, args.cycles, args.seed, workdir, args.tracemalloc, args.recycle).report(args.json)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
