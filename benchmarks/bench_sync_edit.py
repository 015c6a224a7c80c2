"""The sync after a small edit, on a synthetic vault.

``python -m benchmarks.bench_sync_edit [--pages 10000] [--runs 5] [--vault DIR] [--json]``

What the next one-shot command pays after a person or an agent edits one
page: the sync every command runs before it reads the store
(:func:`brainwork.cli.common.synced`; ``brainwork index``, which prints the
edge counts, adds the queries that count them) on an indexed vault where one
file changed. Measured, each run in its own child process on the same store
(open + sync + close, like the command line):

- ``unchanged``: nothing changed (nothing is written);
- ``text``: words appended to one page, its links as they were (the page's
  row is updated, no edge is written);
- ``link``: a new link appended to one page (its edges are rewritten: one
  ``COPY`` into a REL table, whose forced checkpoint at COMMIT dominates).

Figures are medians of ``--runs`` runs: CPU seconds (user + system) of the
sync and of the store's close (Kùzu checkpoints its WAL there), wall
seconds, and the child's peak RSS. Target (50,000 pages): sync <= 0.6 s CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_CPU = 0.6  # s, sync after a one-page edit at 50,000 pages


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _child(vault: str, store: str, mode: str, page: str) -> dict:
    from brainwork.config import load_config
    from brainwork.index.sync import sync
    from brainwork.store import Store

    config = load_config(vault, store)
    st = Store(config.store)
    path = Path(vault) / page
    if mode == "text":
        with path.open("a", encoding="utf-8") as f:
            f.write(f" more words {time.time_ns()}")
    elif mode == "link":
        with path.open("a", encoding="utf-8") as f:
            f.write(f"\nsee [[nowhere-{time.time_ns()}]]\n")
    c0, t0 = _cpu(), time.perf_counter()
    report = sync(config, st, counts=False)  # as cli.common.synced runs it
    c1, t1 = _cpu(), time.perf_counter()
    st.close()
    c2, t2 = _cpu(), time.perf_counter()
    return {
        "sync_cpu": c1 - c0, "sync_wall": t1 - t0, "close_cpu": c2 - c1, "close_wall": t2 - t1,
        "changed": len(report.changed), "wrote": report.wrote,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _run(vault: Path, store: Path, mode: str, page: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_sync_edit", "--child", mode, str(vault), str(store), page],
        check=True, capture_output=True, text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--vault", type=Path, help="a synthetic vault to use (generated when absent)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--child", nargs=4, metavar=("MODE", "VAULT", "STORE", "PAGE"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        mode, vault, store, page = args.child
        print(json.dumps(_child(vault, store, mode, page)))
        return 0

    from benchmarks.synth import generate

    work = Path(tempfile.mkdtemp(prefix="bw-bench-sync-edit-"))
    try:
        vault = args.vault or work / "vault"
        if not (vault / ".synth.json").exists():
            generate(vault, args.pages, hub=True)
        store = work / "store"
        page = sorted(p.relative_to(vault).as_posix() for p in (vault / "tasks").glob("*.md"))[0]
        t0 = time.perf_counter()
        _run(vault, store, "unchanged", page)  # the cold index
        cold = time.perf_counter() - t0
        results: dict[str, dict] = {}
        for mode in ("unchanged", "text", "link"):
            runs = [_run(vault, store, mode, page) for _ in range(args.runs)]
            results[mode] = {k: statistics.median(r[k] for r in runs) for k in ("sync_cpu", "sync_wall", "close_cpu", "close_wall", "rss_mb")}
            results[mode]["runs"] = runs
        size = (store / "graph.kuzu").stat().st_size / 1e6
        if args.json:
            print(json.dumps({"pages": args.pages, "cold_index_wall": cold, "store_mb": size, "results": results}, indent=1))
        else:
            print(f"{args.pages} pages (cold index {cold:.1f} s wall); medians of {args.runs} runs; store {size:.0f} MB after")
            for mode, r in results.items():
                print(
                    f"  {mode:9s} sync {r['sync_cpu']:.2f} s CPU ({r['sync_wall']:.2f} s wall), "
                    f"close {r['close_cpu']:.2f} s CPU, peak RSS {r['rss_mb']:.0f} MB"
                )
            print(f"  target: one-page edit -> sync <= {TARGET_CPU} s CPU at 50,000 pages")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
