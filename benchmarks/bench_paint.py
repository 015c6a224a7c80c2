"""The workbench's first paint on an indexed vault, and where its CPU goes.

``python -m benchmarks.bench_paint [--pages 10000] [--runs 5] [--vault V --store S] [--json]``

Each run is a fresh child process (as ``brainwork open`` starts): it
imports the app, runs it headless (``App.run_test(size=(120, 40))``) on the
indexed vault and waits for the graph pane's page list to hold rows and be
rendered once. Reported, all as the child's CPU seconds (user + system, all
threads) at these moments:

- after importing the app (interpreter start and imports);
- when ``run_test`` hands over (app mounted, first pane composed);
- **at first paint**: the page list holds rows and the refresh after that
  has run (``App.call_after_refresh``), i.e. they are on screen; the target,
  <= 1.2 s CPU at 10,000 pages;
- when the app is next idle (``pilot.pause()``, the moment
  ``benchmarks.bench_index`` reports): this also counts what starts after
  the paint, such as the start-up sync;
- which heavy modules were imported by then.

The list is polled every ``--poll`` ms (default 20): polling costs CPU too,
and a 5 ms poll on a busy machine, where the paint takes seconds of wall
time, adds a few hundred polls to the figure. ``benchmarks.bench_index``
measures the same moment with a 5 ms poll.
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

from benchmarks.harness import REPO, Bench, Timing
from benchmarks.synth import generate

TARGET_CPU = 1.2
HEAVY = ("pyarrow", "numpy", "torch", "sklearn", "scipy", "onnxruntime", "plotext", "textual_plotext", "kuzu",
         "markdown_it", "yaml", "rapidfuzz", "watchfiles", "pygments")


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def child(vault: Path, store: Path, poll: float) -> dict:
    import asyncio

    from brainwork.config import load_config

    config = load_config(vault, store)
    t0 = time.perf_counter()
    from brainwork.tui.app import BrainworkApp

    out: dict = {"import_cpu": _cpu(), "import_wall": time.perf_counter() - t0}

    def rows(app) -> int:
        try:
            lists = list(app.screen.query("#page-list"))
        except Exception:
            return 0
        return max((getattr(w, "row_count", None) or getattr(w, "option_count", None) or 0 for w in lists), default=0)

    async def run() -> None:
        t1 = time.perf_counter()
        app = BrainworkApp(config)
        async with app.run_test(size=(120, 40)) as pilot:
            out["mount_cpu"], out["mount_wall"] = _cpu(), time.perf_counter() - t1
            deadline = time.perf_counter() + 60
            n = 0
            while time.perf_counter() < deadline and not n:
                n = rows(app)
                if not n:
                    await pilot.pause(poll)
            out["rows_cpu"] = _cpu()
            painted = asyncio.Event()

            def on_paint() -> None:  # runs right after the next refresh: the rows are on screen
                out["paint_cpu"], out["paint_wall"], out["rows"] = _cpu(), time.perf_counter() - t1, n
                out["modules_at_paint"] = sorted(m for m in HEAVY if m in sys.modules)
                painted.set()

            app.call_after_refresh(on_paint)
            await painted.wait()
            await pilot.pause()  # until idle: as benchmarks.bench_index measures it
            out["idle_cpu"] = _cpu()
            await pilot.press("q")

    asyncio.run(run())
    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def _child(vault: Path, store: Path, poll: float) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    proc = subprocess.run([sys.executable, "-m", "benchmarks.bench_paint", "--child", str(vault), str(store), str(poll)],
                          cwd=REPO, capture_output=True, text=True, timeout=600, env=env)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run(vault: Path, store: Path, runs: int, poll: float, pages: int) -> Bench:
    from brainwork.config import load_config
    from brainwork.index.sync import sync
    from brainwork.store import Store

    config = load_config(vault, store)
    st = Store(config.store)
    try:
        report = sync(config, st)
    finally:
        st.close()
    bench = Bench("paint", {"pages": report.pages, "runs": runs, "poll_ms": poll * 1000})
    _child(vault, store, poll)  # warm the page cache and any bytecode cache
    res = [_child(vault, store, poll) for _ in range(runs)]
    med = lambda k: statistics.median(r[k] for r in res)  # noqa: E731
    bench.add("first paint, CPU at the paint", Timing.of([r["paint_cpu"] for r in res]), target=TARGET_CPU,
              detail=f"{res[0]['rows']} rows; wall {med('paint_wall') + med('import_wall'):.2f} s from process start")
    bench.add("  CPU when the app is next idle", Timing.of([r["idle_cpu"] for r in res]),
              detail="bench_index's moment: includes work started after the paint")
    bench.add("  CPU after imports", Timing.of([r["import_cpu"] for r in res]), detail=f"wall {med('import_wall'):.2f} s")
    bench.add("  CPU when mounted", Timing.of([r["mount_cpu"] for r in res]))
    bench.add("peak RSS at exit", max(r["rss_mb"] for r in res), unit="MB")
    bench.add("heavy modules at first paint", len(res[0]["modules_at_paint"]), unit="",
              detail=", ".join(res[0]["modules_at_paint"]))
    return bench


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        print(json.dumps(child(Path(argv[1]), Path(argv[2]), float(argv[3]))))
        return 0
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_paint", description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--poll", type=float, default=20, help="ms between looks at the page list")
    ap.add_argument("--vault", type=Path)
    ap.add_argument("--store", type=Path, help="with --vault: its store (default: a temporary one)")
    ap.add_argument("--json", nargs="?", const=True, default=False)
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="brainwork-bench-paint-"))
    try:
        vault = args.vault
        if vault is None:
            vault = tmp / "vault"
            generate(vault, args.pages, args.seed, force=True)
        store = args.store or tmp / "store"
        return run(vault, store, args.runs, args.poll / 1000, args.pages).report(args.json)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
