"""Benchmark of the quality bar (targets: the Summary table of
docs/performance.md).

``python -m benchmarks.bench_check [--pages 10000] [--runs 5] [--json]``
(``--pages 100000 --runs 1`` for the large target; ``--vault PATH`` for your
own vault).

Measures, on a synthetic vault (:mod:`benchmarks.synth`) indexed beforehand
(untimed):

- ``brainwork check`` as the user runs it, warm (store already indexed,
  files in the page cache): a fresh process each run, start-up, imports,
  the sync of the unchanged vault and every check including duplicates;
  target <= 3 s at 10,000 pages, <= 60 s at 100,000 pages. Wall time and
  the child process's CPU time (user + system) are both reported;
- the same work in one process, split into store open, sync, loading the
  pages and links, and each finding code (CPU seconds, informational);
- duplicate recall against the generator's planted near-duplicate pairs
  (informational: a pair whose rewritten body scores below the 0.88
  threshold is, correctly, not reported).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import Bench, Timing, run_child
from benchmarks.synth import generate, load_manifest

TARGETS = {10_000: 3.0, 100_000: 60.0}  # s, the Summary table of docs/performance.md


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _cli_check(vault: Path, store: Path) -> tuple[float, float, int]:
    """One ``brainwork check --format json`` in a fresh process: (wall s, CPU s, findings)."""
    cmd = [sys.executable, "-c", "from brainwork.cli import main; main()", "check", "--format", "json",
           "--vault", str(vault), "--store", str(store)]
    c0 = _child_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"brainwork check failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return wall, _child_cpu() - c0, len(json.loads(proc.stdout))


def _child(mode: str, vault: str, store: str) -> dict:
    """Index (``index``) or time the phases of a check in one process (``phases``)."""
    from brainwork.config import load_config
    from brainwork.index.sync import sync
    from brainwork.store import Store

    config = load_config(vault, store)
    st = Store(config.store)
    try:
        if mode == "index":
            t0 = time.perf_counter()
            report = sync(config, st)
            return {"seconds": time.perf_counter() - t0, "pages": report.pages}
        from brainwork.analysis import checks
        from brainwork.analysis.finding import CODES

        out: dict = {}
        c = time.process_time()
        sync(config, st)
        out["sync"] = time.process_time() - c
        ctx = checks.Context(config, st)
        c = time.process_time()
        ctx.pages, ctx.links, ctx.attachments, ctx.parse_errors  # noqa: B018 - load once
        out["load pages and links"] = time.process_time() - c
        counts = {}
        for code in CODES:
            c = time.process_time()
            found = checks.CHECKS[code](ctx)
            out[code] = time.process_time() - c
            counts[code] = len(found)
            if code == "duplicate":
                out["duplicate_pairs"] = [[f.page, f.other] for f in found]
        out["counts"] = counts
        return out
    finally:
        st.close()


def run(pages: int, runs: int, seed: int, vault: Path | None, workdir: Path) -> Bench:
    manifest = None
    if vault is None:
        vault = workdir / f"vault-{pages}"
        if not (vault / ".synth.json").is_file() or load_manifest(vault).get("pages") != pages:
            generate(vault, pages, seed=seed, force=True)
        manifest = load_manifest(vault)
    store = workdir / f"store-{vault.name}"
    indexed = run_child("benchmarks.bench_check", "--child", "index", str(vault), str(store), timeout=3600)
    n = indexed["pages"]
    bench = Bench("check", {"pages": n, "runs": runs, "seed": seed, "vault": str(vault)})
    target = TARGETS.get(pages) if manifest is not None else None

    walls, cpus, found = [], [], 0
    _cli_check(vault, store)  # warm-up: page cache, the first sync after indexing
    for _ in range(runs):
        wall, cpu, found = _cli_check(vault, store)
        walls.append(wall)
        cpus.append(cpu)
    bench.add(f"brainwork check, {n:,} pages, warm (CLI, fresh process)", Timing.of(walls, cpus), target=target,
              detail=f"{found:,} findings")

    phases = run_child("benchmarks.bench_check", "--child", "phases", str(vault), str(store), timeout=3600)
    counts = phases.pop("counts")
    pairs = phases.pop("duplicate_pairs")
    for name, secs in phases.items():
        detail = f"{counts[name]:,} findings" if name in counts else ""
        bench.add(f"  {name} (CPU, one process)", secs, detail=detail)
    if manifest is not None:
        planted = {tuple(sorted(p)) for p in manifest["duplicates"]}
        got = {tuple(sorted(p)) for p in pairs}
        bench.add("duplicate pairs found of those planted", len(planted & got), unit="pairs",
                  detail=f"{len(planted)} planted, {len(got - planted)} others reported")
    return bench


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_check", description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=5, help="measured runs (median reported)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--vault", type=Path, help="benchmark this vault instead of generating one (read-only)")
    ap.add_argument("--workdir", type=Path, help="where to put the generated vault and store (default: a temp dir)")
    ap.add_argument("--json", nargs="?", const=True, default=False, help="write JSON (default benchmarks/out/check.json)")
    ap.add_argument("--child", nargs=3, metavar=("MODE", "VAULT", "STORE"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(_child(*args.child)))
        return 0
    tmp = None
    workdir = args.workdir
    if workdir is None:
        tmp = tempfile.mkdtemp(prefix="brainwork-bench-check-")
        workdir = Path(tmp)
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        return run(args.pages, args.runs, args.seed, args.vault, workdir).report(args.json)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
