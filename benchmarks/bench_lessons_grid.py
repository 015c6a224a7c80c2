"""Grid over the clustering settings, scored on both labelled lesson sets at once.

``python -m benchmarks.bench_lessons_grid [--workdir-lessons DIR] [--workdir-heldout DIR] [--top N] [--json FILE]``

Does any setting of consolidation's clustering generalise across
``benchmarks/lessons/lessons.yaml`` (the set the defaults were tuned on) and
``benchmarks/lessons/heldout.yaml`` (written blind to them)? Both sets are
captured through the CLI as :mod:`benchmarks.bench_lessons` captures them
(``--workdir`` dirs are reused), in an empty vault and in a copy of
``sample_vault/``; ``sample_vault/`` alone (``own``) is read too. Per vault
the per-field cosines of :func:`brainwork.learn.consolidate.lesson_parts`
(``correct``, ``why``, ``wrong``) are computed once; a setting's similarity
is then their weighted mean over the fields both corrections have — what
:func:`~brainwork.learn.consolidate.lesson_matrices` computes — and it is
clustered in-process with :func:`~brainwork.learn.consolidate.cluster_vectors`
and :func:`~brainwork.learn.consolidate.member_check` (average linkage once
per linkage threshold, the member check per member / pair threshold).

The grid: ``cluster_why_weight`` x ``cluster_wrong_weight`` x
``cluster_similarity`` (the default -0.10 .. +0.06 in steps of 0.02) x the
member and pair thresholds as offsets from the linkage one (the defaults'
offsets -0.10 .. +0.06), for each field surface (:data:`SURFACES`).

Scored per setting, as ``bench_lessons --variants`` scores (every cluster of
two or more counts as a proposal; the CLI also needs two distinct tasks and
may match an existing rule, so its figures can differ a little): ARI on the
four captured vaults, one-offs in a proposal and look-alike pairs kept apart
(summed over the four), and the cluster sizes of ``sample_vault/`` alone with
whether its CI and certificate themes stay whole and every multi-member
cluster is of one theme. Ranked by the minimum of the four ARIs, then fewer
one-offs, then more pairs apart.

Once a threshold is chosen from this grid, heldout.yaml is no longer held out.
"""

from __future__ import annotations

import argparse
import itertools
import json
import resource
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from benchmarks.bench_lessons import DATA, SAMPLE, captured_rows, load, paraphrase_pairs, score

HELDOUT = DATA.with_name("heldout.yaml")
WHY_WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0)
WRONG_WEIGHTS = (0.0, 0.2, 0.35, 0.5, 0.7)
#: Offsets from the default thresholds (linkage) and from the defaults'
#: member - linkage and pair - linkage gaps.
OFFSETS = tuple(round(x, 2) for x in np.arange(-0.10, 0.0601, 0.02))
#: sample_vault/'s themes by the date in a correction's file name
#: (tests/learn/test_consolidate.py reads this table).
THEMES = {
    "cert": "09-02 09-05 09-09 09-14 09-17",
    "ci": "09-04 09-15 09-28 10-09 10-23",
    "migration": "09-03 09-12 09-22 10-05 10-12 10-26",
    "writing": "09-06 09-19 10-03 10-17 10-27",
}
_THEME_OF = {d: k for k, v in THEMES.items() for d in v.split()}
#: The two lessons of the writing theme the tests pin apart (figures without a
#: source, quotes nobody said), and the two October migrations pinned together.
WRITING_SPLIT = ({"09-06", "10-03", "10-17"}, {"09-19", "10-27"})
MIGRATION_PAIR = {"10-05", "10-26"}
#: The linkage the certificate-chain test clusters at (its five corrections
#: opened again): tests/learn/test_consolidate.py, superseding.
CERT_LINKAGE = 0.30
VAULTS = ("lessons-empty", "lessons-sample", "heldout-empty", "heldout-sample")


def _surface_texts(kind: str):
    """``row -> (correct, why, wrong)`` for a field surface: ``specifics
    dropped`` is consolidate's :func:`lesson_parts`; ``raw`` keeps every
    word; ``wrong unquoted`` drops the ``wrong``'s quoted words too."""
    from brainwork.learn.consolidate import _one_line, lesson_parts, lesson_surface

    if kind == "specifics dropped":
        return lesson_parts
    if kind == "raw":
        return lambda r: tuple(_one_line((r.get("fields") or {}).get(k)) for k in ("correct", "why", "wrong"))
    if kind == "wrong unquoted":
        return lambda r: tuple(lesson_surface((r.get("fields") or {}).get(k)) for k in ("correct", "why", "wrong"))
    raise ValueError(kind)


SURFACES = ("specifics dropped", "raw", "wrong unquoted")


@dataclass
class Fields:
    """One vault's per-field similarities: ``sims[k]`` shape ``(n, n)``, the
    cosine of field ``k`` where both rows have it, else 0; ``present[k]``
    the outer product of the rows having field ``k`` (1.0 / 0.0)."""

    sims: list[np.ndarray]
    present: list[np.ndarray]

    def combined(self, weights: tuple[float, float, float]) -> np.ndarray:
        num = sum(w * s for w, s in zip(weights, self.sims) if w)
        den = sum(w * p for w, p in zip(weights, self.present) if w)
        return np.divide(num, den, out=np.zeros_like(num), where=den > 0).astype(np.float32)


def field_matrices(rows: list[dict], encode, surface: str) -> Fields:
    texts = [_surface_texts(surface)(r) for r in rows]
    distinct = list(dict.fromkeys(t for p in texts for t in p if t))
    vecs = np.asarray(encode(distinct), dtype=np.float64) if distinct else np.zeros((0, 384))
    vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
    at = {t: i for i, t in enumerate(distinct)}
    sims, present = [], []
    for k in range(3):
        has = np.array([1.0 if p[k] else 0.0 for p in texts])
        f = np.stack([vecs[at[p[k]]] if p[k] else np.zeros(vecs.shape[1]) for p in texts])
        sims.append(f @ f.T)
        present.append(np.outer(has, has))
    return Fields(sims, present)


@dataclass
class Row:
    surface: str
    why: float
    wrong: float
    linkage: float
    member: float
    pair: float
    ari: dict[str, float] = field(default_factory=dict)
    oneoffs: dict[str, int] = field(default_factory=dict)
    apart: dict[str, int] = field(default_factory=dict)
    own: list[int] = field(default_factory=list)
    own_story: bool = False  # CI whole, writing split 3 + 2, October migrations together, no mixed cluster
    own_ci_whole: bool = False  # the five CI corrections one cluster, of them alone
    cert_whole: bool = False  # the five chain corrections one cluster at CERT_LINKAGE
    cert_whole_here: bool = False  # ... and at this setting's own linkage

    @property
    def min_ari(self) -> float:
        return min(self.ari.values())

    @property
    def oneoffs_total(self) -> int:
        return sum(self.oneoffs.values())

    @property
    def apart_total(self) -> int:
        return sum(self.apart.values())

    def key(self):
        return (-self.min_ari, self.oneoffs_total, -self.apart_total)


def _date(row: dict) -> str:
    return row["id"].rsplit("/", 1)[-1][5:10]


def _own_story(rows: list[dict], groups: list[list[int]]) -> tuple[list[int], bool, bool]:
    """sample_vault/'s cluster sizes, and whether its story holds: every
    multi-member cluster of one theme, the CI theme one cluster, the writing
    theme the two pinned lessons, the pinned October migrations together."""
    date = [_date(r) for r in rows]
    theme = [_THEME_OF.get(d) for d in date]
    sizes = sorted((len(g) for g in groups if len(g) > 1), reverse=True)
    multi = [{date[i] for i in g} for g in groups if len(g) > 1]
    pure = all(len({theme[i] for i in g}) == 1 and theme[g[0]] is not None for g in groups if len(g) > 1)
    ci = {d for d, t in zip(date, theme) if t == "ci"}
    story = (pure and ci in multi and all(w in multi for w in WRITING_SPLIT)
             and any(MIGRATION_PAIR <= m for m in multi))
    return sizes, story, ci in multi


def _cert_whole(rows: list[dict], groups: list[list[int]]) -> bool:
    cert = {i for i, r in enumerate(rows) if _THEME_OF.get(_date(r)) == "cert"}
    return any(set(g) == cert for g in groups)


def cert_rows(workdir: Path) -> list[dict]:
    """Unresolved corrections of a copy of ``sample_vault/`` with the five
    certificate-chain corrections open again (as the superseding test sets them)."""
    import shutil

    from brainwork.config import load_config
    from brainwork.index.sync import sync
    from brainwork.learn.consolidate import UNRESOLVED
    from brainwork.store import Store
    from brainwork.store import learning as q
    from brainwork.vault.edit import set_field

    vault = workdir / "run-cert"
    shutil.rmtree(vault, ignore_errors=True)
    shutil.copytree(SAMPLE, vault, ignore=shutil.ignore_patterns(".brainwork"))
    for path in (vault / "corrections").glob("*.md"):
        if _THEME_OF.get(path.stem[5:10]) == "cert":
            path.write_text(set_field(path.read_text(encoding="utf-8"), "status", "open"), encoding="utf-8")
    config = load_config(vault)
    store = Store(config.store)
    try:
        sync(config, store)
        return [c for c in q.corrections(store) if c["status"] in UNRESOLVED]
    finally:
        store.close()


def run(workdirs: dict[str, Path], surfaces=SURFACES) -> tuple[list[Row], dict]:
    from brainwork.learn.consolidate import cluster_vectors, lesson_matrices, member_check
    from brainwork.learn.embed import get_embedder

    benches = {"lessons": (load(DATA), DATA), "heldout": (load(HELDOUT), HELDOUT)}
    vaults: dict[str, tuple] = {}
    for name, (bench, data) in benches.items():
        for kind in ("empty", "sample"):
            vaults[f"{name}-{kind}"] = (bench, captured_rows(bench, kind, workdirs[name], data))
    own = captured_rows(benches["lessons"][0], "own", workdirs["lessons"], DATA)
    cert = cert_rows(workdirs["lessons"])
    config = vaults["lessons-empty"][1][0]
    th = config.thresholds
    emb = get_embedder(config)
    t_enc = time.process_time()
    fields = {s: {v: field_matrices(rows, emb.encode, s) for v, (_, (_, rows, _)) in vaults.items()} for s in surfaces}
    for s in surfaces:
        fields[s]["own"] = field_matrices(own[1], emb.encode, s)
        fields[s]["cert"] = field_matrices(cert, emb.encode, s)
    encode_cpu = time.process_time() - t_enc
    # The combination must be consolidate's similarity, to float32 rounding.
    default_w = (1.0, th.cluster_why_weight, th.cluster_wrong_weight)
    ref = lesson_matrices(vaults["heldout-sample"][1][1], emb.encode, emb.name, th.cluster_why_weight, default_w)[1]
    drift = float(np.abs(ref - fields["specifics dropped"]["heldout-sample"].combined(default_w)).max())
    if drift > 1e-4:
        raise RuntimeError(f"per-field combination differs from lesson_matrices by {drift}")

    scorers = {}
    for v, (bench, (_, rows, bench_id)) in vaults.items():
        ids = [bench_id.get(r["id"], r["id"]) for r in rows]
        scorers[v] = (bench, ids, paraphrase_pairs(bench.corrections))
    memo: dict[tuple, tuple[float, int, int]] = {}

    def scored(v: str, groups: list[list[int]]) -> tuple[float, int, int]:
        key = (v, tuple(tuple(g) for g in groups if len(g) > 1))
        if key not in memo:
            bench, ids, para = scorers[v]
            clusters = [{"corrections": [ids[i] for i in g], "candidate": "x" if len(g) > 1 else None} for g in groups]
            s = score(bench.truth, clusters, bench.lookalike_pairs, para)
            memo[key] = (s.ari, s.oneoffs_in_proposal, s.lookalike_apart)
        return memo[key]

    gap_m = th.cluster_member_similarity - th.cluster_similarity
    gap_p = th.cluster_pair_similarity - th.cluster_similarity
    out: list[Row] = []
    for s, why, wrong in itertools.product(surfaces, WHY_WEIGHTS, WRONG_WEIGHTS):
        sims = {v: f.combined((1.0, why, wrong)) for v, f in fields[s].items()}
        cert_linked = cluster_vectors(np.zeros((len(cert), 1)), CERT_LINKAGE, sims["cert"])
        for dl in OFFSETS:
            link = round(th.cluster_similarity + dl, 3)
            linked = {v: cluster_vectors(np.zeros((len(m), 1)), link, m) for v, m in sims.items()}
            for dm, dp in itertools.product(OFFSETS, OFFSETS):
                member, pair = round(link + gap_m + dm, 3), round(link + gap_p + dp, 3)
                row = Row(s, why, wrong, link, member, pair)
                for v in VAULTS:
                    groups = member_check(None, linked[v], member, pair, sims[v])
                    row.ari[v], row.oneoffs[v], row.apart[v] = scored(v, groups)
                groups = member_check(None, linked["own"], member, pair, sims["own"])
                row.own, row.own_story, row.own_ci_whole = _own_story(own[1], groups)
                row.cert_whole = _cert_whole(cert, member_check(None, cert_linked, member, pair, sims["cert"]))
                row.cert_whole_here = _cert_whole(cert, member_check(None, linked["cert"], member, pair, sims["cert"]))
                out.append(row)
    out.sort(key=Row.key)
    meta = {"encode_cpu_s": round(encode_cpu, 1), "combination_drift": drift, "partitions_scored": len(memo),
            "defaults": {"why": th.cluster_why_weight, "wrong": th.cluster_wrong_weight,
                         "linkage": th.cluster_similarity, "member": th.cluster_member_similarity,
                         "pair": th.cluster_pair_similarity},
            "oneoffs": {v: sum(1 for c in vaults[v][0].corrections if c.lesson is None) for v in VAULTS},
            "pairs": {v: len(vaults[v][0].lookalike_pairs) for v in VAULTS}}
    return out, meta


def _is_default(r: Row, d: dict) -> bool:
    return (r.surface == "specifics dropped" and abs(r.why - d["why"]) < 1e-9 and abs(r.wrong - d["wrong"]) < 1e-9
            and abs(r.linkage - d["linkage"]) < 1e-6 and abs(r.member - d["member"]) < 1e-6
            and abs(r.pair - d["pair"]) < 1e-6)


def table(rows: list[Row], meta: dict, top: int) -> str:
    head = ("rank | surface | why | wrong | link | member | pair | min ARI | ARI lessons e/s | ARI heldout e/s | "
            f"one-offs L e/s, H e/s (of {meta['oneoffs']['lessons-empty']}, {meta['oneoffs']['heldout-empty']}) | "
            f"pairs apart L e/s, H e/s (of {meta['pairs']['lessons-empty']}, {meta['pairs']['heldout-empty']}) | "
            "own sizes | own story | cert whole at 0.30 / here")

    def line(k, r: Row) -> str:
        a, o, p = r.ari, r.oneoffs, r.apart
        return (f"{k} | {r.surface} | {r.why} | {r.wrong} | {r.linkage:.2f} | {r.member:.2f} | {r.pair:.2f} | "
                f"{r.min_ari:.3f} | {a['lessons-empty']:.3f} / {a['lessons-sample']:.3f} | "
                f"{a['heldout-empty']:.3f} / {a['heldout-sample']:.3f} | "
                f"{o['lessons-empty']}/{o['lessons-sample']}, {o['heldout-empty']}/{o['heldout-sample']} | "
                f"{p['lessons-empty']}/{p['lessons-sample']}, {p['heldout-empty']}/{p['heldout-sample']} | "
                f"{r.own} | {'yes' if r.own_story else 'no'} | "
                f"{'yes' if r.cert_whole else 'no'} / {'yes' if r.cert_whole_here else 'no'}")

    rank = {id(r): k + 1 for k, r in enumerate(rows)}
    default = next(r for r in rows if _is_default(r, meta["defaults"]))
    lines = ["all settings:", head] + [line(rank[id(r)], r) for r in rows[:top]]
    lines.append(line(f"defaults ({rank[id(default)]})", default))
    ok = [r for r in rows if admissible(r, default)]
    lines += ["", f"admissible ({len(ok)}: sample_vault's story and the certificate cluster kept, "
              "no more one-offs on lessons.yaml than the defaults):", head]
    lines += [line(rank[id(r)], r) for r in ok[:top]]
    return "\n".join(lines)


def admissible(r: Row, default: Row) -> bool:
    """A setting the defaults could move to: sample_vault/'s story and the
    certificate test's cluster kept, and no more one-offs in a proposal on
    lessons.yaml (either vault) than the defaults let in."""
    return (r.own_story and r.cert_whole and r.oneoffs["lessons-empty"] <= default.oneoffs["lessons-empty"]
            and r.oneoffs["lessons-sample"] <= default.oneoffs["lessons-sample"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workdir-lessons", type=Path, default=Path("/tmp/grid-wd-lessons"))
    ap.add_argument("--workdir-heldout", type=Path, default=Path("/tmp/grid-wd-heldout"))
    ap.add_argument("--surface", choices=SURFACES, action="append",
                    help="field surfaces to grid (repeatable; default: all)")
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--json", type=Path, help="write every row as JSON here")
    args = ap.parse_args(argv)
    for d in (args.workdir_lessons, args.workdir_heldout):
        d.mkdir(parents=True, exist_ok=True)
    t0, c0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
    rows, meta = run({"lessons": args.workdir_lessons, "heldout": args.workdir_heldout},
                     tuple(args.surface) if args.surface else SURFACES)
    c1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
    print(table(rows, meta, args.top))
    print(f"{len(rows)} settings, {meta['partitions_scored']} distinct partitions scored; "
          f"wall {time.perf_counter() - t0:.1f} s, CPU {cpu:.1f} s (of it encoding {meta['encode_cpu_s']} s); "
          f"combination vs lesson_matrices max diff {meta['combination_drift']:.1e}")
    if args.json:
        args.json.write_text(json.dumps({"meta": meta, "rows": [
            {**asdict(r), "min_ari": r.min_ari} for r in rows]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
