"""brainwork's cold index against a peer, obsidiantools, on the same vault
in the same run.

``python -m benchmarks.bench_peer [VAULT] [--runs 1] [--json]``
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

Printed: CPU seconds (user + system), wall seconds and peak RSS of each
(median of ``--runs``), the ratio peer / brainwork and brainwork / floor.
Targets on obsidian-hub: brainwork <= 4 s CPU and at least 40x less than
obsidiantools.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
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


def _run(mode: str, vault: Path, python: str = sys.executable) -> dict:
    # The peer's interpreter may live in another venv: it runs this file by
    # path (it needs nothing of brainwork for its own mode).
    cmd = [python, "-m", "benchmarks.bench_peer"] if python == sys.executable else [python, __file__]
    out = subprocess.run(
        [*cmd, "--child", mode, str(vault)],
        check=True, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1],
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vault", nargs="?", type=Path, default=DEFAULT_VAULT)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--peer-python", metavar="PATH", help="interpreter with obsidiantools installed (default: this one)")
    ap.add_argument("--child", metavar="MODE", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(_child(args.child, args.vault)))
        return 0
    if not args.vault.is_dir():
        print(f"no vault at {args.vault}", file=sys.stderr)
        return 2
    modes = ["floor", "brainwork"]
    peer_python = args.peer_python or sys.executable
    if args.peer_python or importlib.util.find_spec("obsidiantools") is not None:
        modes.append("obsidiantools")
    results = {}
    for mode in modes:
        python = peer_python if mode == "obsidiantools" else sys.executable
        runs = [_run(mode, args.vault, python) for _ in range(args.runs)]
        results[mode] = {**runs[0], **{k: statistics.median(r[k] for r in runs) for k in ("cpu", "wall", "rss_mb")}}
    bw = results["brainwork"]["cpu"]
    out = {"vault": str(args.vault), "runs": args.runs, "results": results, "brainwork_over_floor": bw / results["floor"]["cpu"]}
    if "obsidiantools" in results:
        out["peer_over_brainwork"] = results["obsidiantools"]["cpu"] / bw
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(f"{args.vault} (median of {args.runs})")
    for mode, r in results.items():
        print(f"  {mode:14s} {r['cpu']:7.2f} s CPU {r['wall']:7.2f} s wall {r['rss_mb']:6.0f} MB")
    print(f"  brainwork / floor: {out['brainwork_over_floor']:.1f}x")
    if "peer_over_brainwork" in out:
        print(f"  obsidiantools / brainwork: {out['peer_over_brainwork']:.1f}x (target >= 40x)")
    else:
        print("  obsidiantools not installed: peer skipped")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
