"""Benchmarks of capture, embeddings and recall (targets: the Summary table
of docs/performance.md).

``python -m benchmarks.bench_learn [--pages 10000] [--runs 20] [--json] [--workdir DIR [--reuse]]``

On a synthetic vault (:mod:`benchmarks.synth`), indexed first:

- loading the bundled all-MiniLM-L6-v2 (cold, in this process; informational);
- embedding every page (``embed_pages``, progress on stderr; informational:
  it must report progress, it has no time target), as pages/s;
- the second pass over the unchanged vault: must embed nothing (target 0
  pages) and is timed;
- recall, warm (model loaded, store open, one warm-up): the median of
  ``--runs`` different task descriptions, target <= 200 ms; its parts
  (one encode call, the vector search) are reported beside it;
- vector search at this size: brute force and, after building it, Kùzu's
  HNSW index (build time informational), and recall again with HNSW;
- one ``capture`` of a correction (sync, write through the undo log,
  re-index; informational).

``BRAINWORK_EMBEDDER=lexical`` runs the same with the lexical fallback (a
fast smoke run; the figures then say ``lexical``).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import Bench, measure
from benchmarks.synth import generate

# The targets of the Summary table of docs/performance.md.
TARGETS = {
    "recall": 0.200,  # s
    "second_pass": 0,  # pages re-embedded on an unchanged vault
}

#: Openings for task descriptions; the rest comes from a synthetic task's title.
OPENINGS = ("", "Again: ", "Please ", "New ticket: ", "Follow-up: ")


def _progress_printer(label: str):
    state = {"last": -1.0, "t0": time.perf_counter()}

    def progress(done: int, total: int, phase: str) -> None:
        if not total:
            return
        frac = done / total
        if frac - state["last"] >= 0.1 or done == total:
            state["last"] = frac
            rate = done / max(time.perf_counter() - state["t0"], 1e-9)
            print(f"  {label}: {phase} {done}/{total} ({rate:.0f}/s)", file=sys.stderr, flush=True)

    return progress


def _cpu() -> float:
    """CPU seconds (user + system, all threads) of this process so far."""
    import resource

    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def run(pages: int, runs: int, seed: int, workdir: Path, vault: Path | None = None, reuse: bool = False) -> Bench:
    from brainwork.config import load_config
    from brainwork.index.sync import sync
    from brainwork.learn.capture import capture
    from brainwork.learn.embed import embed_pages, get_embedder
    from brainwork.learn.recall import recall
    from brainwork.store import Store
    from brainwork.store import graph
    from brainwork.store import vectors as vstore

    if vault is None:
        vault = workdir / "vault"
        if not (reuse and vault.is_dir()):
            print(f"generating {pages} pages in {vault} ...", file=sys.stderr, flush=True)
            generate(vault, pages, seed, force=True)
    store_dir = workdir / "store"
    if not reuse:
        shutil.rmtree(store_dir, ignore_errors=True)
    config = load_config(vault, store_dir)
    bench = Bench("learn", {"pages": pages, "runs": runs, "seed": seed})
    store = Store(config.store)
    try:
        t0 = time.perf_counter()
        report = sync(config, store)
        bench.add("index (no embeddings)", time.perf_counter() - t0, detail=f"{report.pages} pages")

        t0 = time.perf_counter()
        emb = get_embedder(config)
        load = time.perf_counter() - t0
        label = f"lexical fallback ({emb.reason})" if emb.lexical else emb.name
        bench.add("embedder load (cold)", load, detail=label)

        t0, c0 = time.perf_counter(), _cpu()
        n = embed_pages(config, store, embedder=emb, progress=_progress_printer("embed"))
        full, cpu = time.perf_counter() - t0, _cpu() - c0
        what = "all pages" if not reuse else "changed pages (reused store)"
        bench.add(f"embed {what} ({'lexical' if emb.lexical else 'model'})", full,
                  detail=f"{n} pages, {n / max(full, 1e-9):.1f} pages/s, {cpu:.0f} CPU s")
        if n:
            bench.add("  pages per second", n / full, unit="pages/s", lower_is_better=False, detail=f"{os.cpu_count()} CPUs")
            bench.add("  CPU seconds per page", cpu / n, unit="s", detail="all threads; load-independent")

        t0 = time.perf_counter()
        again = embed_pages(config, store, embedder=emb)
        bench.add("second pass: pages re-embedded", again, target=TARGETS["second_pass"], unit="pages")
        bench.add("second pass: time", time.perf_counter() - t0)

        rng = random.Random(seed)
        tasks = graph.list_pages(store, "task")
        titles = [t.title for t in rng.sample(tasks, min(len(tasks), runs + 1))]
        queries = [f"{rng.choice(OPENINGS)}{t}" for t in titles]
        it = iter(queries * 3)

        def one_recall():
            recall(config, store, next(it), embedder=emb, record=True)

        indexed = vstore.has_index(store)
        label = "HNSW search" if indexed else "brute-force search"
        c0 = _cpu()
        t = measure(one_recall, repeat=runs, warmup=1)
        cpu = (_cpu() - c0) / (runs + 1)
        sample = recall(config, store, queries[0], embedder=emb, record=False)
        bench.add(f"recall, warm ({label})", t, target=TARGETS["recall"],
                  detail=f"{len(sample.tasks)} tasks, {len(sample.related)} linked, {sample.chars} chars; "
                         f"{cpu * 1000:.0f} ms CPU each")
        qv = emb.encode_one(queries[0])
        bench.add("  encode one description", measure(lambda: emb.encode_one(queries[1]), repeat=runs))
        bench.add("  nearest 40 tasks, brute force",
                  measure(lambda: vstore.nearest(store, qv, 40, type="task", method="brute"), repeat=runs),
                  detail=f"{vstore.count(store)} vectors")

        if not indexed:
            t0 = time.perf_counter()
            vstore.ensure_index(store, 0, _progress_printer("hnsw"))
            bench.add("build HNSW index", time.perf_counter() - t0, detail="once, when the vault passes vector_index_min_rows")
        bench.add("  nearest 40 tasks, HNSW", measure(lambda: vstore.nearest(store, qv, 40, type="task", method="hnsw"), repeat=runs))
        if not indexed:
            t = measure(one_recall, repeat=runs, warmup=1)
            bench.add("recall, warm (HNSW search)", t, target=TARGETS["recall"])

        corrected = tasks[0].id
        cap = iter(range(1000))

        def one_capture():
            i = next(cap)
            capture(config, store, "correction", {
                "task": corrected, "wrong": f"skipped the check {i}", "correct": "run the check first",
                "why": "it fails later otherwise",
            })

        bench.add("capture one correction", measure(one_capture, repeat=3, warmup=0),
                  detail="sync + write via undo log + re-index")
    finally:
        store.close()
    return bench


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_learn", description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=20, help="measured recall runs (median reported)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--vault", type=Path, help="benchmark this vault instead of generating one (it is written to by capture)")
    ap.add_argument("--workdir", type=Path, help="where to put the generated vault and store (default: a temp dir)")
    ap.add_argument("--json", nargs="?", const=True, default=False, help="write JSON (default benchmarks/out/learn.json)")
    ap.add_argument("--reuse", action="store_true",
                    help="keep the vault and store already in --workdir (embedding then covers only what changed)")
    args = ap.parse_args(argv)
    if args.reuse and args.workdir is None:
        ap.error("--reuse needs --workdir")
    tmp = None
    workdir = args.workdir
    if workdir is None:
        tmp = tempfile.mkdtemp(prefix="brainwork-bench-learn-")
        workdir = Path(tmp)
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        bench = run(args.pages, args.runs, args.seed, workdir, args.vault, args.reuse)
        return bench.report(args.json)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
