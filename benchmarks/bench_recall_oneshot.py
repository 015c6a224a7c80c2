"""Benchmark of a one-shot ``brainwork recall`` (no resident process), ONNX path against torch path.

``python -m benchmarks.bench_recall_oneshot [--runs 5] [--vault DIR] [--json] [--workdir DIR]``

On a copy of ``sample_vault/`` (or ``--vault``, copied too), indexed and
embedded first by ``brainwork embed`` in a child process, which loads torch
and so also writes the ONNX export of the model into the store
(:mod:`brainwork.learn.onnx_embed`; its CPU seconds are reported, once);
then ``brainwork recall "<task>" --vault V --no-record`` is started as a
whole new process ``--runs`` times for each path, the two alternating
(ONNX, torch, ONNX, ...) after one unmeasured warm-up of each:

- **ONNX path** (the default when the store holds the export): CPU seconds
  (user + system of the finished child, the operating system's accounting),
  target <= 1.5 s; its peak RSS; wall time beside them;
- **torch path** (``BRAINWORK_EMBEDDER=torch``: sentence-transformers, as
  before the ONNX path existed): the same figures, informational;
- modules imported by the ONNX path's process that have no business on it
  (torch, sentence-transformers, transformers, scikit-learn, scipy, onnx,
  textual), from ``python -X importtime``: target 0.

Figures are medians. CPU time is the figure to quote on a shared machine:
wall time there mostly measures the queue for a core.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import REPO, Bench, Timing

TARGETS = {
    "onnx_cpu": 1.5,  # s, user + system of the whole one-shot process
    "heavy_imports": 0,
}
QUERY = "renew the TLS certificate for the billing API"
#: Top-level packages the ONNX one-shot must not import (each costs 0.3-4 s).
HEAVY = ("torch", "sentence_transformers", "transformers", "sklearn", "scipy", "onnx", "textual")


def _brainwork() -> list[str]:
    """The CLI as ``python -c`` (the console script may be absent in a bare checkout)."""
    return [sys.executable, "-c", "import sys; from brainwork.cli import main; sys.argv[0] = 'brainwork'; main()"]


def _run(args: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """``(wall s, cpu s, peak RSS MB)`` of one child process run to its end.

    Raises:
        RuntimeError: the child exited non-zero.
    """
    with tempfile.TemporaryFile() as err:  # a file, not a pipe: wait4 below must not block on a full pipe
        t0 = time.perf_counter()
        proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=err, cwd=REPO)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            tail = err.read().decode("utf-8", "replace")[-3000:]
            raise RuntimeError(f"{' '.join(args[-6:])} failed ({proc.returncode}):\n{tail}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def _heavy_imports(args: list[str], env: dict[str, str]) -> list[str]:
    """Top-level packages in :data:`HEAVY` that ``args`` (a Python command) imports."""
    proc = subprocess.run([args[0], "-X", "importtime", *args[1:]], env=env, capture_output=True, text=True, cwd=REPO)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    found = set()
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            name = line.rsplit("|", 1)[1].strip().split(".")[0]
            if name in HEAVY:
                found.add(name)
    return sorted(found)


def run(runs: int, workdir: Path, source: Path) -> Bench:
    vault = workdir / "vault"
    if vault.exists():
        shutil.rmtree(vault)
    shutil.copytree(source, vault, ignore=shutil.ignore_patterns(".brainwork"))
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    env.pop("BRAINWORK_EMBEDDER", None)
    torch_env = {**env, "BRAINWORK_EMBEDDER": "torch"}
    cli = _brainwork()
    bench = Bench("recall_oneshot", {"runs": runs, "vault": str(source), "query": QUERY, "cpus": os.cpu_count()})

    print(f"indexing and embedding {vault} (loads torch, exports the ONNX model) ...", file=sys.stderr, flush=True)
    wall, cpu, rss = _run([*cli, "embed", "--vault", str(vault)], env)
    models = sorted((vault / ".brainwork" / "models").glob("*/model.onnx"))
    if not models:
        raise RuntimeError("brainwork embed wrote no ONNX export; the ONNX path cannot be measured")
    size = sum(p.stat().st_size for p in models[0].parent.iterdir()) / 1e6
    bench.add("first embed: index + embed + ONNX export", cpu,
              detail=f"CPU s, once per store; wall {wall:.1f} s, peak {rss:.0f} MB, export {size:.0f} MB")

    recall = [*cli, "recall", QUERY, "--vault", str(vault), "--no-record"]
    for e in (env, torch_env):  # warm-up: page cache, compiled bytecode
        _run(recall, e)
    samples: dict[str, list[tuple[float, float, float]]] = {"onnx": [], "torch": []}
    for i in range(runs):
        samples["onnx"].append(_run(recall, env))
        samples["torch"].append(_run(recall, torch_env))
        print(f"  run {i + 1}/{runs}: onnx {samples['onnx'][-1][1]:.2f} s CPU, torch {samples['torch'][-1][1]:.2f} s CPU",
              file=sys.stderr, flush=True)

    for path, target in (("onnx", TARGETS["onnx_cpu"]), ("torch", None)):
        walls = [s[0] for s in samples[path]]
        cpus = [s[1] for s in samples[path]]
        rss = statistics.median(s[2] for s in samples[path])
        label = "ONNX Runtime" if path == "onnx" else "torch (BRAINWORK_EMBEDDER=torch)"
        bench.add(f"one-shot recall CPU, {label}", Timing.of(cpus), target=target,
                  detail=f"user+sys; wall median {statistics.median(walls):.2f} s")
        bench.add(f"  peak RSS, {label}", rss, unit="MB")
    onnx_cpu = statistics.median(s[1] for s in samples["onnx"])
    torch_cpu = statistics.median(s[1] for s in samples["torch"])
    bench.add("  CPU ratio torch / ONNX", torch_cpu / onnx_cpu, unit="x", lower_is_better=False)

    heavy = _heavy_imports(recall, env)
    bench.add("heavy modules imported on the ONNX path", len(heavy), target=TARGETS["heavy_imports"], unit="modules",
              detail=", ".join(heavy) or "none of " + ", ".join(HEAVY))
    return bench


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_recall_oneshot", description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="measured runs of each path (median reported)")
    ap.add_argument("--vault", type=Path, default=REPO / "sample_vault", help="vault to copy and measure (default sample_vault/)")
    ap.add_argument("--workdir", type=Path, help="where to put the copy (default: a temp dir, removed after)")
    ap.add_argument("--json", nargs="?", const=True, default=False, help="write JSON (default benchmarks/out/recall_oneshot.json)")
    args = ap.parse_args(argv)
    tmp = None
    workdir = args.workdir
    if workdir is None:
        tmp = tempfile.mkdtemp(prefix="brainwork-bench-oneshot-")
        workdir = Path(tmp)
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        return run(args.runs, workdir, args.vault.resolve()).report(args.json)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
