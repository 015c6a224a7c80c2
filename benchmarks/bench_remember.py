"""Labelled benchmark of ``brainwork remember``'s threshold on sample_vault/.

``python -m benchmarks.bench_remember [--json]``

For each insight of ``benchmarks/remember/insights.yaml`` (the thing page it
belongs on, or none), the nearest thing page and its cosine are computed in
a copy of sample_vault/ (:func:`brainwork.learn.remember.nearest_things`,
all-MiniLM-L6-v2). Reported: for every candidate threshold, how many
insights would be filed correctly (attached to their page, or proposed as a
new page when none fits), attached to a wrong page, or proposed although
their page exists; and the similarity ranges of the two kinds.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "remember" / "insights.yaml"


def measure(data: Path = DATA) -> dict:
    from brainwork.config import load_config
    from brainwork.index.sync import sync
    from brainwork.learn.embed import get_embedder
    from brainwork.learn.remember import nearest_things
    from brainwork.store import Store

    items = yaml.safe_load(data.read_text(encoding="utf-8"))["insights"]
    with tempfile.TemporaryDirectory(prefix="bench-remember-") as tmp:
        vault = Path(tmp) / "vault"
        shutil.copytree(REPO / "sample_vault", vault, ignore=shutil.ignore_patterns(".brainwork"))
        config = load_config(vault)
        with Store(config.store) as store:
            sync(config, store)
            emb = get_embedder(config)
            rows = []
            for it in items:
                near = nearest_things(config, store, it["insight"], emb)
                best = near[0] if near else None
                rows.append({"insight": it["insight"], "page": it["page"], "nearest": best.id if best else None,
                             "similarity": round(best.similarity, 3) if best else 0.0})
    grid = []
    for t in [x / 100 for x in range(25, 66, 5)]:
        right = wrong = missed = 0
        for r in rows:
            attach = r["similarity"] >= t
            if r["page"] is None:
                right += not attach
                wrong += attach
            elif attach:
                right += r["nearest"] == r["page"]
                wrong += r["nearest"] != r["page"]
            else:
                missed += 1
        grid.append({"threshold": t, "right": right, "wrong_page": wrong, "proposed_though_page_exists": missed})
    belongs = [r["similarity"] for r in rows if r["page"] is not None and r["nearest"] == r["page"]]
    none = [r["similarity"] for r in rows if r["page"] is None]
    return {"insights": len(rows), "rows": rows, "grid": grid,
            "belongs_range": [min(belongs), max(belongs)] if belongs else None,
            "no_page_range": [min(none), max(none)] if none else None}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    out = measure()
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    for r in out["rows"]:
        mark = "ok " if r["nearest"] == r["page"] else "   "
        print(f"{mark}{r['similarity']:.3f}  {r['nearest']}  (labelled {r['page']})  {r['insight'][:60]}")
    print(f"right page: {out['belongs_range']}; no page: {out['no_page_range']}")
    for g in out["grid"]:
        print(f"threshold {g['threshold']:.2f}: right {g['right']}/{out['insights']}, wrong page {g['wrong_page']}, "
              f"proposed though a page exists {g['proposed_though_page_exists']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
