"""Embedding a whole vault: the bf16 path, ONNX Runtime fp32 and torch, in one run.

``python -m benchmarks.bench_embed [--pages 10000] [--torch-pages 500] [--no-fp32-full] [--int8] [--workdir DIR] [--json]``

On a synthetic vault (:mod:`benchmarks.synth`), indexed first, with the
model exported to ONNX into the store once (that step loads torch; it is
what the first ``brainwork embed`` on a new store does):

- **every page as ``brainwork embed`` runs it** (no ``BRAINWORK_EMBEDDER``):
  ``embed_pages`` over the whole vault in a fresh child process: on a CPU
  with native bf16 a job this big runs on the bf16 path
  (``learn.embed.bulk_embedder``; the row says which embedder encoded),
  elsewhere on ONNX Runtime fp32. CPU seconds (user + system, all threads;
  the bf16 path's ~3 s load included, it happens inside ``embed_pages``),
  wall, peak RSS, pages/s, and the time-left estimate it would have shown at
  10%, 25% and 50% against the time it really took from there;
- **ONNX Runtime fp32, every page** (``BRAINWORK_EMBEDDER=fp32``: no torch
  imported, which the child checks), right after, on its own copy of the
  store, unless ``--no-fp32-full``; then the largest cosine distance between
  the two stores' vectors of every page (the rule: at most 1e-3);
- **the second pass** over the unchanged vault, in both: pages embedded (target 0);
- **torch (sentence-transformers), a sample**: the page texts of
  ``--torch-pages`` pages (a random sample, so of the vault's mix of
  lengths) encoded in a child with ``BRAINWORK_EMBEDDER=torch``; the same
  sample encoded by ONNX Runtime fp32 and by the bf16 path
  (``BRAINWORK_EMBEDDER=bf16``) in other children, so the three are compared
  on the same texts; the torch figure for the whole vault is extrapolated
  from the sample by pages (stated as such in the table);
- the largest cosine distance between torch and ONNX and between bf16 and
  ONNX on the sample (the rule: at most 1e-3);
- with ``--int8``, the int8 graph (``BRAINWORK_EMBEDDER=int8``, made in the
  prepare step) beside it: every page embedded in a fresh child, right after
  the fp32 pass, and the same sample encoded, with the cosine between its
  vectors and the fp32 graph's (min / median; another model, so no rule).

Children report their own ``getrusage`` figures, so model loading and
imports (the served embedder's) are outside the embedding figure but in the
process's RSS; each row's detail gives the load average around its child.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import REPO, Bench
from benchmarks.synth import generate

TARGET_CPU = 200.0  # s of CPU for 10,000 pages
MAX_GAP = 1e-3  # cosine distance between vectors of the same model


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# -- children -------------------------------------------------------------------
def _config(workdir: Path, store: str = "store"):
    from brainwork.config import load_config

    return load_config(workdir / "vault", workdir / store)


def child_prepare(workdir: Path, pages: int, seed: int, quantize: bool = False) -> dict:
    """Generate and index the vault, export the model into the pristine store
    (and make its int8 graph with ``quantize``)."""
    from brainwork.index.sync import sync
    from brainwork.learn.embed import get_embedder
    from brainwork.store import Store

    vault = workdir / "vault"
    if not (vault / ".synth.json").is_file():
        generate(vault, pages, seed, force=True)
    config = _config(workdir, "pristine")
    store = Store(config.store)
    try:
        report = sync(config, store)
    finally:
        store.close()
    emb = get_embedder(config)  # loads torch, exports, serves the export
    if quantize and getattr(emb, "path", None) is not None:
        from brainwork.learn import onnx_embed
        from brainwork.learn.embed import model_folder

        onnx_embed.quantize(emb.path, model_folder(config)[0])
    return {"pages": report.pages, "embedder": type(emb).__name__, "model": emb.name,
            "graph": getattr(getattr(emb, "_encoder", None), "graph", None),
            "problem": getattr(emb, "onnx_problem", None)}


def child_embed(workdir: Path, store_name: str = "store") -> dict:
    """``embed_pages`` over the vault in ``workdir/STORE_NAME`` (a copy of the pristine store)."""
    from brainwork.learn.embed import embed_pages, get_embedder
    from brainwork.store import Store

    config = _config(workdir, store_name)
    t_load, c_load = time.perf_counter(), _cpu()
    emb = get_embedder(config)
    load = {"wall": time.perf_counter() - t_load, "cpu": _cpu() - c_load}
    store = Store(config.store)
    marks: list[tuple[int, int, float]] = []
    t0 = time.perf_counter()

    def progress(done: int, total: int, phase: str) -> None:
        if phase == "embedding" and total:
            marks.append((done, total, time.perf_counter() - t0))
            if len(marks) % 8 == 1 or done == total:
                from brainwork.learn.embed import format_left, time_left

                left = format_left(time_left(done, total, marks[-1][2]))
                print(f"  embed {done}/{total} {left}", file=sys.stderr, flush=True)

    try:
        c0 = _cpu()
        n = embed_pages(config, store, progress=progress, embedder=emb)
        wall, cpu = time.perf_counter() - t0, _cpu() - c0
        t1, c1 = time.perf_counter(), _cpu()
        again = embed_pages(config, store, embedder=emb)
        again_wall, again_cpu = time.perf_counter() - t1, _cpu() - c1
    finally:
        store.close()
    # What the time-left estimate said at a fraction of the pass, against what was left.
    eta = []
    for frac in (0.1, 0.25, 0.5):
        mark = next((m for m in marks if m[1] and m[0] >= frac * m[1]), None)
        if mark and mark[2] > 0:
            done, total, at = mark
            eta.append({"at": frac, "predicted": at / done * (total - done), "actual": wall - at})
    heavy = sorted({m.split(".")[0] for m in sys.modules} & {"torch", "sentence_transformers", "transformers"})
    from brainwork.learn import embed as embed_mod

    bulk = embed_mod._cache.get(embed_mod._bulk_key(config))
    return {"embedded": n, "wall": wall, "cpu": cpu, "rss_mb": _rss_mb(), "load": load, "model": emb.name,
            "kind": type(emb).__name__, "encoded_by": type(bulk or emb).__name__,
            "bulk_problem": emb.bulk_problem, "again": again, "again_wall": again_wall, "again_cpu": again_cpu,
            "eta": eta, "heavy_modules": heavy}


def child_compare(workdir: Path, a: str, b: str) -> dict:
    """Cosine between the vectors of every page in stores ``a`` and ``b``."""
    import numpy as np

    from brainwork.store import Store
    from brainwork.store import vectors as vstore

    got = {}
    for name in (a, b):
        store = Store(_config(workdir, name).store)
        try:
            ids, mat = vstore.all_vectors(store)
            got[name] = (dict(zip(ids, range(len(ids)))), mat, vstore.current_model(store))
        finally:
            store.close()
    (ia, ma, na), (ib, mb, nb) = got[a], got[b]
    common = sorted(set(ia) & set(ib))
    cos = np.sum(ma[[ia[i] for i in common]] * mb[[ib[i] for i in common]], axis=1)
    return {"pages": len(common), "only_a": len(ia) - len(common), "only_b": len(ib) - len(common),
            "min": float(cos.min()), "median": float(np.median(cos)), "models": [na, nb],
            "dtype": str(ma.dtype)}


def child_sample(workdir: Path, n: int, seed: int, out: Path) -> dict:
    """Encode the page texts of a random sample of ``n`` pages with whatever
    embedder serves (``BRAINWORK_EMBEDDER`` decides); vectors to ``out``."""
    import numpy as np

    from brainwork.learn import embed
    from brainwork.store import Store

    config = _config(workdir, "pristine")
    store = Store(config.store)
    try:
        rows = embed._page_rows(store, None)
    finally:
        store.close()
    rows.sort(key=lambda r: r["id"])
    sample = random.Random(seed).sample(rows, min(n, len(rows)))
    texts = [embed.page_text(r) for r in sample]
    t_load, c_load = time.perf_counter(), _cpu()
    emb = embed.get_embedder(config)
    load = {"wall": time.perf_counter() - t_load, "cpu": _cpu() - c_load}
    emb.encode(texts[:4])  # warm-up (first call allocates)
    t0, c0 = time.perf_counter(), _cpu()
    mat = np.concatenate([emb.encode(texts[i : i + embed.CHUNK]) for i in range(0, len(texts), embed.CHUNK)])
    wall, cpu = time.perf_counter() - t0, _cpu() - c0
    np.save(out, mat)
    return {"texts": len(texts), "chars": sum(map(len, texts)), "wall": wall, "cpu": cpu, "rss_mb": _rss_mb(),
            "load": load, "kind": type(emb).__name__, "model": emb.name}


# -- driver ---------------------------------------------------------------------------
def _child(args: list[str], env: dict | None = None, timeout: float = 7200) -> dict:
    env = {**{k: v for k, v in os.environ.items() if k != "BRAINWORK_EMBEDDER"}, **(env or {})}
    before = os.getloadavg()[0]
    proc = subprocess.run([sys.executable, "-m", "benchmarks.bench_embed", "--child", *args], cwd=REPO,
                          stdout=subprocess.PIPE, text=True, timeout=timeout, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"child {args} failed ({proc.returncode})")
    out = json.loads([l for l in proc.stdout.splitlines() if l.strip()][-1])
    out["loadavg"] = f"load {before:.1f}->{os.getloadavg()[0]:.1f}"
    return out


def run(pages: int, torch_pages: int, seed: int, workdir: Path, int8: bool = False, fp32_full: bool = True) -> Bench:
    import numpy as np

    bench = Bench("embed", {"pages": pages, "torch_pages": torch_pages, "seed": seed, "int8": int8,
                            "fp32_full": fp32_full})
    print(f"preparing {pages} pages in {workdir} (index, ONNX export) ...", file=sys.stderr, flush=True)
    prep = _child(["prepare", str(workdir), str(pages), str(seed), "1" if int8 else "0"])
    bench.add("ONNX export in the store", prep["pages"], unit="pages", detail=f"{prep['embedder']} {prep['model']}, graph {prep['graph']}"
              + (f"; problem: {prep['problem']}" if prep["problem"] else ""))
    passes = [("default", "store-bulk", {})]
    if fp32_full:
        passes.append(("ONNX fp32", "store", {"BRAINWORK_EMBEDDER": "fp32"}))
    for label, store_name, env in passes:
        shutil.rmtree(workdir / store_name, ignore_errors=True)
        shutil.copytree(workdir / "pristine", workdir / store_name)
        print(f"embedding every page ({label}) ...", file=sys.stderr, flush=True)
        full = _child(["embed", str(workdir), store_name], env)
        n = full["embedded"]
        scale = 10_000 / max(n, 1)
        tag = f"{label} [{full['encoded_by']}]"
        bench.add(f"{tag}: embed {n} pages, CPU", full["cpu"], target=TARGET_CPU / scale,
                  detail=f"{full['cpu'] / max(n, 1) * 1000:.1f} ms CPU/page; heavy modules {full['heavy_modules']}; "
                  f"{full['loadavg']}" + (f"; bulk path: {full['bulk_problem']}" if full["bulk_problem"] else ""))
        bench.add(f"{label}: wall", full["wall"], detail=f"{n / max(full['wall'], 1e-9):.1f} pages/s")
        bench.add(f"{label}: pages per CPU second", n / max(full["cpu"], 1e-9), unit="pages/s", lower_is_better=False)
        bench.add(f"{label}: peak RSS (process)", full["rss_mb"], unit="MB")
        bench.add(f"{label}: served embedder's load", full["load"]["cpu"], detail=f"{full['load']['wall']:.2f} s wall")
        for e in full["eta"]:
            bench.add(f"  time left shown at {e['at']:.0%}", e["predicted"], detail=f"actual {e['actual']:.0f} s")
        bench.add(f"{label}: second pass, pages re-embedded", full["again"], target=0, unit="pages",
                  detail=f"{full['again_cpu']:.2f} s CPU, {full['again_wall']:.2f} s wall")
    if fp32_full:
        cmp = _child(["compare", str(workdir), "store-bulk", "store"])
        bench.add("default vs ONNX fp32 stores: largest cosine distance (x 1e-6)", (1.0 - cmp["min"]) * 1e6,
                  target=MAX_GAP * 1e6, unit="",
                  detail=f"cosine min {cmp['min']:.6f}, median {cmp['median']:.6f} on {cmp['pages']} pages "
                  f"({cmp['only_a']}/{cmp['only_b']} unmatched), models {cmp['models']}, {cmp['dtype']}")
    if int8:
        shutil.rmtree(workdir / "store-int8", ignore_errors=True)
        shutil.copytree(workdir / "pristine", workdir / "store-int8")
        print("embedding every page with the int8 graph ...", file=sys.stderr, flush=True)
        q = _child(["embed", str(workdir), "store-int8"], {"BRAINWORK_EMBEDDER": "int8"})
        qn = q["embedded"]
        bench.add(f"int8: embed {qn} pages, CPU", q["cpu"], target=TARGET_CPU / (10_000 / max(qn, 1)),
                  detail=f"{q['cpu'] / max(qn, 1) * 1000:.1f} ms CPU/page ({q['cpu'] / max(full['cpu'], 1e-9):.2f} x fp32); {q['model']}")
        bench.add("int8: wall", q["wall"], detail=f"{qn / max(q['wall'], 1e-9):.1f} pages/s")
        bench.add("int8: peak RSS (process)", q["rss_mb"], unit="MB")

    print(f"encoding a sample of {torch_pages} pages with torch, ONNX Runtime and bf16 ...", file=sys.stderr, flush=True)
    t_out, o_out, b_out = workdir / "torch.npy", workdir / "onnx.npy", workdir / "bf16.npy"
    torch_run = _child(["sample", str(workdir), str(torch_pages), str(seed), str(t_out)], {"BRAINWORK_EMBEDDER": "torch"})
    onnx_run = _child(["sample", str(workdir), str(torch_pages), str(seed), str(o_out)], {"BRAINWORK_EMBEDDER": "fp32"})
    bf_run = _child(["sample", str(workdir), str(torch_pages), str(seed), str(b_out)], {"BRAINWORK_EMBEDDER": "bf16"})
    k = torch_run["texts"]
    gap = float(np.max(1.0 - np.sum(np.load(t_out) * np.load(o_out), axis=1)))
    bench.add(f"torch: encode {k} sampled pages, CPU", torch_run["cpu"],
              detail=f"{torch_run['cpu'] / k * 1000:.1f} ms CPU/page, {torch_run['wall']:.0f} s wall, {torch_run['kind']}")
    bench.add(f"ONNX: encode the same {k} pages, CPU", onnx_run["cpu"],
              detail=f"{onnx_run['cpu'] / k * 1000:.1f} ms CPU/page, {onnx_run['wall']:.0f} s wall, {onnx_run['kind']}; "
              f"{onnx_run['loadavg']}")
    bench.add(f"bf16: encode the same {k} pages, CPU", bf_run["cpu"],
              detail=f"{bf_run['cpu'] / k * 1000:.1f} ms CPU/page, {bf_run['wall']:.0f} s wall, {bf_run['kind']}; "
              f"load {bf_run['load']['cpu']:.2f} s CPU; {bf_run['loadavg']}")
    bench.add("ONNX/bf16 CPU ratio (same texts)", onnx_run["cpu"] / max(bf_run["cpu"], 1e-9), unit="x", lower_is_better=False)
    bench.add("bf16: peak RSS (process)", bf_run["rss_mb"], unit="MB", detail="ONNX loaded beside it (the fp32 reference)")
    bcos = np.sum(np.load(b_out) * np.load(o_out), axis=1)
    bench.add("largest cosine distance bf16 vs ONNX (x 1e-6)", (1.0 - float(bcos.min())) * 1e6, target=MAX_GAP * 1e6, unit="",
              detail=f"cosine min {float(bcos.min()):.6f}, median {float(np.median(bcos)):.6f} on {k} page texts")
    bench.add("torch/ONNX CPU ratio (same texts)", torch_run["cpu"] / max(onnx_run["cpu"], 1e-9), unit="x", lower_is_better=False)
    bench.add(f"torch: {pages} pages, extrapolated from the sample", torch_run["cpu"] / k * pages,
              detail="CPU s, by pages; not measured whole")
    bench.add("torch: peak RSS (process)", torch_run["rss_mb"], unit="MB", detail=f"ONNX {onnx_run['rss_mb']:.0f} MB")
    bench.add("largest cosine distance torch vs ONNX (x 1e-6)", gap * 1e6, target=MAX_GAP * 1e6, unit="",
              detail=f"{gap:.1e} on {k} page texts; the rule: <= {MAX_GAP:g}")
    if int8:
        q_out = workdir / "int8.npy"
        q_run = _child(["sample", str(workdir), str(torch_pages), str(seed), str(q_out)], {"BRAINWORK_EMBEDDER": "int8"})
        cos = np.sum(np.load(q_out) * np.load(o_out), axis=1)
        bench.add(f"int8: encode the same {k} pages, CPU", q_run["cpu"],
                  detail=f"{q_run['cpu'] / k * 1000:.1f} ms CPU/page, {q_run['kind']} {q_run['model']}")
        bench.add("int8 vs fp32: largest cosine distance (x 1e-3)", (1.0 - float(cos.min())) * 1e3, unit="",
                  detail=f"cosine min {float(cos.min()):.4f}, median {float(np.median(cos)):.4f} on {k} page texts"
                  " (another model: no rule)")
    return bench


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        what, rest = argv[1], argv[2:]
        if what == "prepare":
            out = child_prepare(Path(rest[0]), int(rest[1]), int(rest[2]), rest[3:4] == ["1"])
        elif what == "embed":
            out = child_embed(Path(rest[0]), *rest[1:2])
        elif what == "compare":
            out = child_compare(Path(rest[0]), rest[1], rest[2])
        else:
            out = child_sample(Path(rest[0]), int(rest[1]), int(rest[2]), Path(rest[3]))
        print(json.dumps(out))
        return 0
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_embed", description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=10_000)
    ap.add_argument("--torch-pages", type=int, default=500, help="pages of the torch sample (extrapolated)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--int8", action="store_true", help="also embed every page and the sample with the int8 graph")
    ap.add_argument("--no-fp32-full", dest="fp32_full", action="store_false",
                    help="skip the ONNX fp32 pass over every page (the sample still compares it)")
    ap.add_argument("--workdir", type=Path, help="keep the vault and stores here (default: a temp dir)")
    ap.add_argument("--json", nargs="?", const=True, default=False, help="write JSON (default benchmarks/out/embed.json)")
    args = ap.parse_args(argv)
    tmp = None
    workdir = args.workdir
    if workdir is None:
        tmp = tempfile.mkdtemp(prefix="brainwork-bench-embed-")
        workdir = Path(tmp)
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        return run(args.pages, args.torch_pages, args.seed, workdir, args.int8, args.fp32_full).report(args.json)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
