"""Several hands on one vault: agents' commands while another process owns the store.

``python -m benchmarks.bench_hands [--owner serve|workbench|both] [--runs 7] [--parallel 20] [--json]``

On a fresh copy of ``sample_vault/`` with an owner running — ``brainwork
serve``, or the workbench (``BrainworkApp.run(headless=True)`` in a child
process, warmed up as ``brainwork open`` does) — each figure is measured
on whole ``brainwork`` processes, as an agent's hook or shell runs them:

- **N parallel captures** (``capture task``, started together): how many
  succeed (target all), the slowest one's wall time (target 1 s on an idle
  machine) and the median CPU seconds of one capture;
- **doctrine** (target 0.3 s wall), **recall** of a task (the model warm in
  the owner; target 0.15 s for the answer inside the owner), **check**,
  **show**, **rules**, **log**: wall and CPU of the client process (CPU =
  user + system from ``wait4``, the client's own cost; the owner's work is
  not in it);
- **inside the owner**: the same doctrine and recall sent from this
  process through :func:`brainwork.service.owner.ask` (no interpreter
  start-up), i.e. the answer time an adapter that stays up (the MCP server)
  sees;
- **the peer**: the same doctrine and recall with no owner at all (each
  command opens the store itself; recall then loads the model itself), in
  the same run.

Figures are medians over ``--runs``. Quote CPU seconds beside wall time:
on this shared 2-core machine wall time is mostly the queue for a core.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import REPO, Bench, Timing

QUERY = "renew the certificate for the partner endpoint"
SHOW = "tasks/2026-09-09-renew-cert-edi-endpoint"


def _cli() -> list[str]:
    return [sys.executable, "-c", "import sys; from brainwork.cli import main; sys.argv[0] = 'brainwork'; main()"]


def _start(args: list[str]) -> tuple[subprocess.Popen, float]:
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE), time.perf_counter()


def _finish(proc: subprocess.Popen, t0: float) -> tuple[float, float, int, str]:
    """``(wall s, cpu s, exit code, stderr)`` of a started child."""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    return wall, usage.ru_utime + usage.ru_stime, proc.returncode, err


def _run(args: list[str]) -> tuple[float, float, int, str]:
    return _finish(*_start(args))


def _timing(args: list[str], runs: int, ok=(0,)) -> Timing:
    _run(args)  # warm-up (page cache, the owner's first answer)
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu, code, err = _run(args)
        if code not in ok:
            raise RuntimeError(f"{' '.join(args[3:])} failed ({code}): {err[-2000:]}")
        walls.append(wall)
        cpus.append(cpu)
    return Timing.of(walls, cpus)


def _inside(config, argv: list[str], runs: int) -> Timing:
    from brainwork.service import owner

    owner.ask(config, owner.Request(argv=argv))
    walls = []
    for _ in range(runs):
        t0 = time.perf_counter()
        reply = owner.ask(config, owner.Request(argv=argv))
        walls.append(time.perf_counter() - t0)
        if reply is None or reply.exit_code != 0:
            raise RuntimeError(f"owner did not answer {argv}: {reply}")
    return Timing.of(walls)


def _owner(kind: str, vault: Path) -> subprocess.Popen:
    from brainwork.config import load_config
    from brainwork.service import owner

    if kind == "serve":
        args = [*_cli(), "--vault", str(vault), "serve"]
    else:
        code = ("from brainwork.cli.served import run_request; from brainwork.config import load_config; "
                "from brainwork.tui.app import BrainworkApp; "
                f"BrainworkApp(load_config({str(vault)!r}), serve=run_request, warm_up=True).run(headless=True)")
        args = [sys.executable, "-c", code]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    config = load_config(vault)
    deadline = time.monotonic() + 300
    while owner.status(config) is None:
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{kind} did not come up")
        time.sleep(0.1)
    # the model warm and every page embedded: one recall through the owner
    reply = owner.ask(config, owner.Request(argv=["recall", QUERY, "--no-record"]))
    if reply is None or reply.exit_code != 0:
        raise RuntimeError(f"first recall through {kind} failed: {reply}")
    return proc


def _copy(workdir: Path, name: str) -> Path:
    dest = workdir / name
    shutil.copytree(REPO / "sample_vault", dest, ignore=shutil.ignore_patterns(".brainwork"))
    return dest


def bench_owner(bench: Bench, kind: str, workdir: Path, runs: int, parallel: int) -> None:
    from brainwork.config import load_config

    vault = _copy(workdir, f"vault-{kind}")
    config = load_config(vault)
    proc = _owner(kind, vault)
    v = ["--vault", str(vault)]
    try:
        started = [_start([*_cli(), *v, "capture", "task", "--request", f"Parallel job {i}", "--outcome", "success"])
                   for i in range(parallel)]
        done = [_finish(p, t0) for p, t0 in started]
        good = sum(1 for d in done if d[2] == 0)
        bench.add(f"[{kind}] {parallel} parallel captures: succeeded", good, target=parallel, unit="",
                  lower_is_better=False)
        bench.add(f"[{kind}] {parallel} parallel captures: slowest wall", max(d[0] for d in done), target=1.0,
                  detail=f"median CPU {statistics.median(d[1] for d in done):.3f} s per capture")
        for name, argv, target, ok in (
            ("doctrine", ["doctrine"], 0.3, (0,)),
            ("recall", ["recall", QUERY, "--no-record"], None, (0,)),
            ("check", ["check"], None, (0, 1)),
            ("show", ["show", SHOW], None, (0,)),
            ("rules", ["rules"], None, (0,)),
            ("log", ["log"], None, (0,)),
        ):
            t = _timing([*_cli(), *v, *argv], runs, ok)
            bench.add(f"[{kind}] {name} (client process)", t, target=target)
        bench.add(f"[{kind}] doctrine inside the owner", _inside(config, ["doctrine"], runs))
        bench.add(f"[{kind}] recall inside the owner (model warm)", _inside(config, ["recall", QUERY, "--no-record"], runs),
                  target=0.15)
    finally:
        proc.send_signal(signal.SIGTERM if kind == "serve" else signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def bench_peer(bench: Bench, workdir: Path, runs: int) -> None:
    """No owner: each command opens the store (and recall loads the model) itself."""
    vault = _copy(workdir, "vault-peer")
    v = ["--vault", str(vault)]
    _run([*_cli(), *v, "embed"])
    for name, argv in (("doctrine", ["doctrine"]), ("recall", ["recall", QUERY, "--no-record"])):
        t = _timing([*_cli(), *v, *argv], runs)
        bench.add(f"[no owner] {name} (one-shot process)", t)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--owner", choices=["serve", "workbench", "both"], default="both")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--parallel", type=int, default=20)
    ap.add_argument("--json", action="store_true", help="Also write benchmarks/out/hands.json.")
    args = ap.parse_args(argv)
    bench = Bench("hands", {"runs": args.runs, "parallel": args.parallel})
    with tempfile.TemporaryDirectory(prefix="bench-hands-") as tmp:
        workdir = Path(tmp)
        for kind in (["serve", "workbench"] if args.owner == "both" else [args.owner]):
            bench_owner(bench, kind, workdir, args.runs, args.parallel)
        bench_peer(bench, workdir, args.runs)
    bench.report(json_out=args.json)


if __name__ == "__main__":
    main()
