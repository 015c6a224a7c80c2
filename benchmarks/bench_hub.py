"""``brainwork index`` (cold) and ``brainwork check`` on a real vault, each a
whole command in a fresh process, optionally beside an older tree in the
same run.

``python -m benchmarks.bench_hub [VAULT] [--runs 3] [--before SRC] [--after SRC] [--commands check]``
(default VAULT: ``../shared/corpora/obsidian-hub``; it is only read, the
stores go to a temporary folder)

``--before SRC`` names the ``src`` folder of an older tree (for example
``git archive REV src | tar -x -C /tmp/before``): its runs put it first on
``PYTHONPATH`` and alternate with this tree's, so both see the same load.
``--after SRC`` runs another ``src`` folder in place of this tree's (to
measure one set of commits alone while others edit the working tree);
``--commands`` picks ``index``, ``check`` or both (the default; ``check``
alone indexes each store first, untimed).
Printed per command and tree: the median and every run of CPU seconds (user
+ system of the child, from ``wait4``), wall seconds and peak RSS. Targets
on obsidian-hub: both commands <= 4 s CPU.
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

DEFAULT_VAULT = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "obsidian-hub"
BRAINWORK = Path(sys.executable).with_name("brainwork")


def _timed(cmd: list[str], env: dict) -> tuple[float, float, float]:
    """(CPU s, wall s, peak RSS MB) of one child process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) not in (0, 1):  # check exits 1 when it has findings
        raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.read().decode()[-2000:]}")
    return ru.ru_utime + ru.ru_stime, wall, ru.ru_maxrss / 1024


def _tree_env(src: Path | None) -> dict[str, str]:
    """The environment that runs ``src``'s brainwork (None: this tree's)."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    return env


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vault", nargs="?", type=Path, default=DEFAULT_VAULT)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--before", type=Path, metavar="SRC", help="src folder of an older tree to run beside this one")
    ap.add_argument("--after", type=Path, metavar="SRC", help="src folder to run instead of this tree's")
    ap.add_argument("--commands", nargs="+", choices=("index", "check"), default=["index", "check"])
    args = ap.parse_args(argv)

    trees = {"after": args.after} if args.before is None else {"before": args.before, "after": args.after}
    work = Path(tempfile.mkdtemp(prefix="bw-bench-hub-"))
    results: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    try:
        if "check" in args.commands and "index" not in args.commands:
            # check syncs first: each run's store is indexed once, untimed
            for i in range(args.runs):
                for tree, src in trees.items():
                    env = _tree_env(src)
                    _timed([str(BRAINWORK), "index", "--vault", str(args.vault), "--store", str(work / f"{tree}-{i}")], env)
        for command in args.commands:
            for i in range(args.runs):
                for tree, src in trees.items():
                    env = _tree_env(src)
                    store = work / f"{tree}-{i}"
                    if command == "index":
                        shutil.rmtree(store, ignore_errors=True)
                    cmd = [str(BRAINWORK), command, "--vault", str(args.vault), "--store", str(store)]
                    if command == "check":
                        cmd += ["--format", "json"]
                    results.setdefault((command, tree), []).append(_timed(cmd, env))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{args.vault} (median of {args.runs}; load {os.getloadavg()[0]:.1f})")
    for (command, tree), runs in results.items():
        cpu = statistics.median(r[0] for r in runs)
        wall = statistics.median(r[1] for r in runs)
        rss = max(r[2] for r in runs)
        each = ", ".join(f"{r[0]:.2f}" for r in runs)
        print(f"  {command:6s} {tree:7s} {cpu:6.2f} s CPU ({each})  {wall:6.2f} s wall  {rss:5.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
