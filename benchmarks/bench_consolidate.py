"""Benchmark of consolidation (target: 1,000 corrections <= 10 s after embedding;
the Summary table of docs/performance.md).

``python -m benchmarks.bench_consolidate [--corrections 1000] [--seed 0] [--json] [--workdir DIR]``

On a synthetic vault (:mod:`benchmarks.synth`; corrections are ~14% of its
pages, so ~7,150 pages hold 1,000 corrections), every correction is reopened
(``status: open``) so all of them are read, then the vault is indexed and
embedded (untimed, informational; only what consolidation reads: corrections, tasks
and rules). With ``--workdir`` the embedded vault is kept in
``WORKDIR/pristine`` and reused by later runs (each run works on a copy).
Timed after embedding:

- a planning pass (``dry_run=True``): read, cluster, match rules, draft —
  nothing written;
- the real pass: the same plus writing the candidate pages and the
  ``status: clustered`` edits through the undo log (journal, atomic writes)
  and re-indexing — target <= 10 s;
- a second pass over the unchanged result (idempotent: no new candidate).

``--cluster-similarity 0.7`` splits the synthetic corrections into ~170
clusters, so the drafting path (one batched encode, ~170 candidate pages)
is timed too.

Cluster quality against the generator's ground truth is reported too
(adjusted Rand index over the corrections; informational — synthetic
corrections point at random tasks, which blurs the task part of the vector).

``BRAINWORK_EMBEDDER=lexical`` runs the same with the lexical fallback.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import Bench
from benchmarks.synth import generate, load_manifest

TARGET = 10.0  # s, the Summary table of docs/performance.md
#: Share of correction pages in a synthetic vault (benchmarks.synth.TYPE_WEIGHTS).
CORRECTION_SHARE = 0.14
_STATUS = re.compile(r"^status:[ \t]*\S+[ \t]*$", re.MULTILINE)


def _progress(label: str):
    state = {"last": -1.0}

    def progress(done: int, total: int, phase: str) -> None:
        if total and (done / total - state["last"] >= 0.25 or done == total):
            state["last"] = done / total
            print(f"  {label}: {phase} {done}/{total}", file=sys.stderr, flush=True)

    return progress


def _reopen(vault: Path) -> int:
    """Set every correction's status to open (raw text edit of the one line)."""
    n = 0
    for path in sorted((vault / "corrections").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        new, k = _STATUS.subn("status: open", text, count=1)
        if not k:
            new = text.replace("type: correction\n", "type: correction\nstatus: open\n", 1)
        path.write_text(new, encoding="utf-8")
        n += 1
    return n


def run(corrections: int, seed: int, workdir: Path, cluster_similarity: float | None = None) -> Bench:
    from sklearn.metrics import adjusted_rand_score

    from brainwork.config import load_config
    from brainwork.index.sync import sync
    from brainwork.learn.consolidate import consolidate
    from brainwork.learn.embed import embed_pages, get_embedder
    from brainwork.store import Store, graph

    pages = int(corrections / CORRECTION_SHARE) + 10
    pristine = workdir / "pristine"
    vault = workdir / "vault"
    store_dir = workdir / "store"
    bench = Bench("consolidate", {"pages": pages, "seed": seed})
    if not (pristine / "vault" / ".synth.json").is_file() or load_manifest(pristine / "vault")["seed"] != seed \
            or load_manifest(pristine / "vault")["pages"] != pages:
        shutil.rmtree(pristine, ignore_errors=True)
        print(f"generating {pages} pages in {pristine / 'vault'} ...", file=sys.stderr, flush=True)
        generate(pristine / "vault", pages, seed, force=True)
        _reopen(pristine / "vault")
    else:
        print(f"reusing the vault in {pristine}", file=sys.stderr, flush=True)
    # Index and embed the pristine copy (a no-op when reused with the same embedder).
    config = load_config(pristine / "vault", pristine / "store")
    store = Store(config.store)
    try:
        t0 = time.perf_counter()
        sync(config, store)
        bench.add("index", time.perf_counter() - t0, detail=f"{pages} pages")
        emb = get_embedder(config)
        # what consolidation reads: corrections, tasks, rules
        ids = [p.id for t in ("correction", "task", "rule") for p in graph.list_pages(store, t)]
        t0 = time.perf_counter()
        n = embed_pages(config, store, ids=ids, embedder=emb, progress=_progress("embed"))
        bench.add("embed corrections, tasks, rules (untimed target)", time.perf_counter() - t0,
                  detail=f"{n} pages embedded, {'lexical' if emb.lexical else emb.name}")
    finally:
        store.close()
    for d in (vault, store_dir):
        shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(pristine / "vault", vault)
    shutil.copytree(pristine / "store", store_dir)
    manifest = load_manifest(vault)
    config = load_config(vault, store_dir)
    if cluster_similarity is not None:
        from dataclasses import replace

        config = replace(config, thresholds=replace(config.thresholds, cluster_similarity=cluster_similarity))
        bench.params["cluster_similarity"] = cluster_similarity
    store = Store(config.store)
    try:
        n_corr = len(graph.list_pages(store, "correction"))
        bench.params["corrections"] = n_corr
        t0 = time.perf_counter()
        emb = get_embedder(config)  # loaded before timing: the target is "after embedding"
        bench.add("embedder load (cold, untimed target)", time.perf_counter() - t0, detail=emb.name)
        t0, c0 = time.perf_counter(), time.process_time()
        plan = consolidate(config, store, dry_run=True)
        bench.add("plan: read, cluster, match, draft (dry run)", time.perf_counter() - t0,
                  detail=f"CPU {time.process_time() - c0:.2f} s; {plan.read} corrections, {len(plan.clusters)} clusters, "
                         f"{plan.candidates_created} drafts")

        t0, c0 = time.perf_counter(), time.process_time()
        report = consolidate(config, store, progress=_progress("consolidate"))
        bench.add(f"consolidate {report.read} corrections (writes + re-index)", time.perf_counter() - t0, target=TARGET,
                  detail=f"CPU {time.process_time() - c0:.2f} s; {len(report.clusters)} clusters, "
                         f"{report.candidates_created} candidates, {len(report.files)} files written")

        t0 = time.perf_counter()
        again = consolidate(config, store)
        bench.add("second pass (nothing new)", time.perf_counter() - t0,
                  detail=f"{again.candidates_created} new candidates (idempotent: 0)")
        bench.add("  new candidates on the second pass", again.candidates_created, target=0, unit="drafts")

        truth: dict[str, int] = {}
        for k, cl in enumerate(manifest["clusters"]):
            for cid in cl["ids"]:
                truth[cid] = k
        found: dict[str, int] = {}
        for k, cl in enumerate(report.clusters):
            for cid in cl.corrections:
                found[cid] = k
        ids = sorted(set(truth) | set(found))
        base = len(manifest["clusters"]) + len(report.clusters)
        a = [truth.get(i, base + 2 * j) for j, i in enumerate(ids)]
        b = [found.get(i, base + 2 * j + 1) for j, i in enumerate(ids)]
        bench.add("cluster agreement with ground truth (ARI)", adjusted_rand_score(a, b), unit="", lower_is_better=False,
                  detail=f"{len(manifest['clusters'])} true clusters; informational")
    finally:
        store.close()
    return bench


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_consolidate", description=__doc__.split("\n\n")[0])
    ap.add_argument("--corrections", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cluster-similarity", type=float, default=None,
                    help="override thresholds.cluster_similarity (e.g. 0.7 gives ~170 clusters to draft on the synthetic vault)")
    ap.add_argument("--workdir", type=Path, help="where to put the generated vault and store (default: a temp dir)")
    ap.add_argument("--json", nargs="?", const=True, default=False, help="write JSON (default benchmarks/out/consolidate.json)")
    args = ap.parse_args(argv)
    tmp = None
    workdir = args.workdir
    if workdir is None:
        tmp = tempfile.mkdtemp(prefix="brainwork-bench-consolidate-")
        workdir = Path(tmp)
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        return run(args.corrections, args.seed, workdir, args.cluster_similarity).report(args.json)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
