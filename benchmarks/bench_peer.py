"""brainwork's cold index against a peer, obsidiantools, on the same vault
in the same run.

``python -m benchmarks.bench_peer [VAULT] [--runs 3] [--peer-runs 1] [--peer-python PATH] [--before SRC] [--after SRC] [--json]``
(default VAULT: ``../shared/corpora/obsidian-hub``; the vault is only read,
the store goes to a temporary folder)

Each figure comes from its own child process, cold (imports included in
wall time, not in CPU):

- ``floor``: read every Markdown file, SHA-256 it and load its YAML
  frontmatter with PyYAML's C loader: the least any indexer of this vault
  does;
- ``brainwork``: open a new store, ``sync`` (parse, resolve every link,
  write the graph), close;
- ``obsidiantools``: ``Vault(path).connect()``, which builds its link
  graph (skipped when obsidiantools is not installed: it is a benchmark
  peer, not a dependency: ``pip install -e '.[bench]'``, or keep it in a
  venv of its own, which spares this one its pandas, and pass that venv's
  interpreter as ``--peer-python PATH``).

``--before SRC`` also runs an older tree's brainwork (its ``src`` folder,
e.g. from ``git archive REV src | tar -x -C /tmp/before``) alternating with
this one's; ``--after SRC`` runs another ``src`` in place of this tree's.

Printed: CPU seconds (user + system), wall seconds and peak RSS of each
(median of ``--runs``; the peer's of ``--peer-runs``, as one run of it takes
a minute or more), every run's CPU, the load average, and the ratios of the
medians peer / brainwork and brainwork / floor.
Targets on obsidian-hub: brainwork <= 4 s CPU and at least 40x less than
obsidiantools.
"""

from __future__ import annotations

import argparse
import importlib.util
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

DEFAULT_VAULT = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "obsidian-hub"


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _child(mode: str, vault: Path) -> dict:
    if mode == "floor":
        import hashlib

        import yaml

        c0, t0 = _cpu(), time.perf_counter()
        n = 0
        for path in vault.rglob("*.md"):
            if any(part.startswith(".") for part in path.relative_to(vault).parts):
                continue
            data = path.read_bytes()
            hashlib.sha256(data).hexdigest()
            text = data.decode("utf-8", "replace")
            if text.startswith("---\n"):
                end = text.find("\n---", 4)
                if end != -1:
                    try:
                        yaml.load(text[4:end], Loader=yaml.CSafeLoader)
                    except yaml.YAMLError:
                        pass
            n += 1
        extra = {"files": n}
    elif mode == "brainwork":
        from brainwork.config import load_config
        from brainwork.index.sync import sync
        from brainwork.store import Store

        store = Path(tempfile.mkdtemp(prefix="bw-bench-peer-"))
        try:
            config = load_config(vault, store / "store")
            c0, t0 = _cpu(), time.perf_counter()
            st = Store(config.store)
            report = sync(config, st)
            st.close()
        finally:
            shutil.rmtree(store, ignore_errors=True)
        extra = {"pages": report.pages, "edges": sum(report.edges.values()), "dead_links": report.dead_links}
    elif mode == "obsidiantools":
        import obsidiantools.api as otools

        c0, t0 = _cpu(), time.perf_counter()
        v = otools.Vault(vault).connect()
        extra = {"nodes": v.graph.number_of_nodes(), "edges": v.graph.number_of_edges()}
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    return {
        "cpu": _cpu() - c0, "wall": time.perf_counter() - t0,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, **extra,
    }


def _run(mode: str, vault: Path, python: str = sys.executable, src: Path | None = None) -> dict:
    # The peer's interpreter may live in another venv: it runs this file by
    # path (it needs nothing of brainwork for its own mode). ``src``: the
    # ``src`` folder of another brainwork tree, put first on PYTHONPATH.
    cmd = [python, "-m", "benchmarks.bench_peer"] if python == sys.executable else [python, __file__]
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    out = subprocess.run(
        [*cmd, "--child", mode, str(vault)],
        check=True, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1], env=env,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vault", nargs="?", type=Path, default=DEFAULT_VAULT)
    ap.add_argument("--runs", type=int, default=3, help="runs of floor and brainwork (median)")
    ap.add_argument("--peer-runs", type=int, default=1, help="runs of obsidiantools (median)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--before", type=Path, metavar="SRC",
                    help="src folder of an older tree: its brainwork runs too, alternating with this tree's")
    ap.add_argument("--after", type=Path, metavar="SRC", help="src folder to run as brainwork instead of this tree's")
    ap.add_argument("--peer-python", metavar="PATH", help="interpreter with obsidiantools installed (default: this one)")
    ap.add_argument("--child", metavar="MODE", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(_child(args.child, args.vault)))
        return 0
    if not args.vault.is_dir():
        print(f"no vault at {args.vault}", file=sys.stderr)
        return 2
    modes = ["floor", "brainwork"] + (["brainwork-before"] if args.before else [])
    peer_python = args.peer_python or sys.executable
    if args.peer_python or importlib.util.find_spec("obsidiantools") is not None:
        modes.append("obsidiantools")
    results = {}
    load = [os.getloadavg()[0]]
    raw: dict[str, list[dict]] = {m: [] for m in modes}
    for i in range(max(args.runs, args.peer_runs)):
        for mode in modes:
            n = args.peer_runs if mode == "obsidiantools" else args.runs
            if i >= n:
                continue
            python = peer_python if mode == "obsidiantools" else sys.executable
            child = "brainwork" if mode == "brainwork-before" else mode
            src = {"brainwork-before": args.before, "brainwork": args.after}.get(mode)
            raw[mode].append(_run(child, args.vault, python, src))
    for mode in modes:
        runs, n = raw[mode], len(raw[mode])
        results[mode] = {**runs[0], **{k: statistics.median(r[k] for r in runs) for k in ("cpu", "wall", "rss_mb")},
                         "runs": n, "cpu_each": [round(r["cpu"], 2) for r in runs]}
    load.append(os.getloadavg()[0])
    bw = results["brainwork"]["cpu"]
    out = {"vault": str(args.vault), "runs": args.runs, "results": results, "brainwork_over_floor": bw / results["floor"]["cpu"],
           "load": [round(x, 1) for x in load]}
    if "obsidiantools" in results:
        out["peer_over_brainwork"] = results["obsidiantools"]["cpu"] / bw
        if args.before:
            out["peer_over_brainwork_before"] = results["obsidiantools"]["cpu"] / results["brainwork-before"]["cpu"]
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"{args.vault} (medians; load {' -> '.join(f'{x:.1f}' for x in load)})")
    for mode, r in results.items():
        each = ", ".join(f"{c:.2f}" for c in r["cpu_each"])
        print(f"  {mode:14s} {r['cpu']:7.2f} s CPU {r['wall']:7.2f} s wall {r['rss_mb']:6.0f} MB"
              f"  ({r['runs']} run{'s' if r['runs'] > 1 else ''}: {each})")
    print(f"  brainwork / floor: {out['brainwork_over_floor']:.1f}x")
    if "peer_over_brainwork" in out:
        print(f"  obsidiantools / brainwork: {out['peer_over_brainwork']:.1f}x (target >= 40x)")
        if args.before:
            print(f"  obsidiantools / brainwork-before: {out['peer_over_brainwork_before']:.1f}x")
    else:
        print("  obsidiantools not installed: peer skipped")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
