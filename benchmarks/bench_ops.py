"""Benchmarks of the curation operations (targets: the Summary table of
docs/performance.md).

``python -m benchmarks.bench_ops [--pages 2000] [--backlinks 1000] [--runs 5] [--json]``

On a synthetic vault (:mod:`benchmarks.synth`, ``--pages`` pages) one extra
page, ``systems/Bench Target``, gets ``--backlinks`` links from as many
different files (appended to them in the forms people write:
``[[Bench Target]]``, ``[[Bench Target|label]]``, ``[[systems/Bench Target]]``,
``[[Bench Target#Part]]``, ``![[Bench Target]]``, a relative Markdown link
``[t](../systems/Bench%20Target.md)``, and a frontmatter ``related:`` key on
a tenth of them). Then, each run:

- **rename** the page to a new title (so its file is renamed too and every
  backlink is rewritten), from the call to the graph being updated:
  re-index of agent changes, planning, journal, atomic writes, undo-log
  record, partial re-index. Target <= 2 s;
- **undo** it (every byte back, graph updated). Target <= 2 s;
- the parts, informational: planning alone (``plan_rename``, measured on
  its own before each rename), the graph update inside the rename and the
  undo (:func:`brainwork.index.incremental.sync_paths` over the written
  files), and of that the write transaction
  (:func:`brainwork.store.delta.apply_delta`, which holds Kùzu's COMMIT and
  the checkpoint an edge COPY forces there).

Every run checks that the rename rewrote all backlinks and that the undo
restored the files' bytes (a wrong result is not a fast result). The figure
is the median of ``--runs`` runs; CPU seconds (all threads) are shown beside
it, which tells load from other processes apart from our own cost.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import shutil
import tempfile
import time
from pathlib import Path

from benchmarks.harness import Bench, Timing
from benchmarks.synth import generate

TARGETS = {"rename": 2.0, "undo": 2.0}  # s, the Summary table of docs/performance.md
TARGET_REL = "systems/Bench Target.md"
FORMS = (
    "[[Bench Target]]", "[[Bench Target|the target]]", "[[systems/Bench Target]]", "[[Bench Target#Part]]",
    "![[Bench Target]]", "[t](../systems/Bench%20Target.md)",
)


def build(workdir: Path, pages: int, backlinks: int, seed: int) -> Path:
    """Generate the vault and wire ``backlinks`` files to the target page."""
    vault = workdir / f"vault-{pages}"
    generate(vault, pages, seed=seed, force=True)
    (vault / TARGET_REL).write_text("---\ntype: system\n---\nThe page every other page mentions.\n\n## Part\n\ntext\n")
    files = sorted(p for p in vault.rglob("*.md") if p.relative_to(vault).as_posix() != TARGET_REL)
    if backlinks > len(files):
        raise SystemExit(f"--backlinks {backlinks} needs at least that many other pages (have {len(files)})")
    rng = random.Random(seed)
    for i, path in enumerate(rng.sample(files, backlinks)):
        text = path.read_text(encoding="utf-8")
        text = text.rstrip("\n") + f"\n\nSee {FORMS[i % len(FORMS)]}.\n"
        if i % 10 == 0 and text.startswith("---\n"):
            text = '---\nrelated: "[[Bench Target]]"\n' + text[4:]
        path.write_text(text, encoding="utf-8")
    return vault


def _digest(vault: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(vault.rglob("*.md")):
        rel = p.relative_to(vault).as_posix()
        if not rel.startswith("."):
            h.update(rel.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def run(pages: int, backlinks: int, runs: int, seed: int, workdir: Path) -> Bench:
    from brainwork.config import load_config
    from brainwork.index.sync import sync
    from brainwork.ops import changeset, unit_of_work
    from brainwork.ops.rename import plan_rename, rename
    from brainwork.store import Store
    from brainwork.store import delta

    bench = Bench("ops", {"pages": pages, "backlinks": backlinks, "runs": runs, "seed": seed})
    vault = build(workdir, pages, backlinks, seed)
    store_dir = workdir / f"store-{pages}"
    shutil.rmtree(store_dir, ignore_errors=True)
    config = load_config(vault, store_dir)
    store = Store(config.store)
    inner = unit_of_work.sync_graph
    inner_write = delta.apply_delta
    try:
        t0 = time.perf_counter()
        sync(config, store)
        bench.add(f"index the vault ({pages:,} pages, for reference)", time.perf_counter() - t0)
        original = _digest(vault)
        # Time the graph update inside each operation (unit of work, step 6).
        spent = {"wall": 0.0, "cpu": 0.0, "write_wall": 0.0, "write_cpu": 0.0}

        def timed_sync(config, store, paths):
            spent["write_wall"] = spent["write_cpu"] = 0.0
            c, w = time.process_time(), time.perf_counter()
            inner(config, store, paths)
            spent["wall"], spent["cpu"] = time.perf_counter() - w, time.process_time() - c

        def timed_write(store, **kw):
            c, w = time.process_time(), time.perf_counter()
            inner_write(store, **kw)
            spent["write_wall"] += time.perf_counter() - w
            spent["write_cpu"] += time.process_time() - c

        unit_of_work.sync_graph = timed_sync
        delta.apply_delta = timed_write
        ren, ren_cpu, und, und_cpu, plans, plan_cpu, graph_t, graph_cpu = ([] for _ in range(8))
        write_t, write_cpu, ugraph_t, ugraph_cpu, uwrite_t, uwrite_cpu = ([] for _ in range(6))
        rewritten = 0
        for _ in range(runs + 1):  # the first round warms caches and is not counted
            c0, w0 = time.process_time(), time.perf_counter()
            plan = plan_rename(config, store, "Bench Target", "Renamed Target")
            plans.append(time.perf_counter() - w0)
            plan_cpu.append(time.process_time() - c0)

            c0, w0 = time.process_time(), time.perf_counter()
            result = rename(config, store, "Bench Target", "Renamed Target")
            ren.append(time.perf_counter() - w0)
            ren_cpu.append(time.process_time() - c0)
            rewritten = result.plan.links_rewritten
            files = {e.path for e in result.plan.edits}
            assert len(files) >= backlinks, f"only {len(files)} files rewritten"
            graph_t.append(spent["wall"])
            graph_cpu.append(spent["cpu"])
            write_t.append(spent["write_wall"])
            write_cpu.append(spent["write_cpu"])

            c0, w0 = time.process_time(), time.perf_counter()
            changeset.undo(config, store)
            und.append(time.perf_counter() - w0)
            und_cpu.append(time.process_time() - c0)
            ugraph_t.append(spent["wall"])
            ugraph_cpu.append(spent["cpu"])
            uwrite_t.append(spent["write_wall"])
            uwrite_cpu.append(spent["write_cpu"])
            assert _digest(vault) == original, "undo did not restore every byte"
        detail = f"{rewritten:,} links in {backlinks:,} files + the page itself"
        bench.add("rename (plan, write, undo log, graph update)", Timing.of(ren[1:], ren_cpu[1:]),
                  target=TARGETS["rename"], detail=detail)
        bench.add("undo of that rename (bytes restored, graph updated)", Timing.of(und[1:], und_cpu[1:]),
                  target=TARGETS["undo"])
        bench.add("  of which planning (plan_rename, incl. the re-index of agent changes)", Timing.of(plans[1:], plan_cpu[1:]))
        bench.add("  of which the graph update (partial re-index of the written files)", Timing.of(graph_t[1:], graph_cpu[1:]))
        bench.add("    of which the write transaction (apply_delta, incl. Kùzu's COMMIT)", Timing.of(write_t[1:], write_cpu[1:]))
        bench.add("  undo: of which the graph update", Timing.of(ugraph_t[1:], ugraph_cpu[1:]))
        bench.add("    undo: of which the write transaction (apply_delta)", Timing.of(uwrite_t[1:], uwrite_cpu[1:]))
    finally:
        unit_of_work.sync_graph = inner
        delta.apply_delta = inner_write
        store.close()
    return bench


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_ops", description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=2000, help="pages in the synthetic vault (default 2000)")
    ap.add_argument("--backlinks", type=int, default=1000, help="files linking to the renamed page (default 1000)")
    ap.add_argument("--runs", type=int, default=5, help="measured runs (median reported)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workdir", type=Path, help="where to put the vault and store (default: a temp dir)")
    ap.add_argument("--json", nargs="?", const=True, default=False, help="write JSON (default benchmarks/out/ops.json)")
    args = ap.parse_args(argv)
    tmp = None
    workdir = args.workdir
    if workdir is None:
        tmp = tempfile.mkdtemp(prefix="brainwork-bench-ops-")
        workdir = Path(tmp)
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        return run(args.pages, args.backlinks, args.runs, args.seed, workdir).report(args.json)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
