"""Labelled recall benchmark: does recall bring back the earlier tasks whose
corrections teach what a new task needs?

``python -m benchmarks.bench_recall [--json] [--workdir DIR] [--data FILE] [--budget N]``

The data is ``benchmarks/lessons/lessons.yaml`` (see its header): its tasks
and corrections are captured into an empty vault **through the CLI**, exactly
as :mod:`benchmarks.bench_lessons` does (and reusing its kept vault with
``--workdir``); then each of its ``recall_queries`` runs as
``brainwork recall --json --no-record --budget N -- QUERY`` in a child
process and the ranked task ids it returns are mapped back to benchmark ids
and scored against ``expected_tasks``:

- **hit@3**: share of queries with at least one expected task in the top 3;
- **recall@3**: per query, expected tasks in the top 3 / min(3, expected),
  averaged;
- **MRR**: mean of 1 / rank of the first expected task (0 when none is
  returned);
- **tasks per answer** and **empty answers**;
- **unrelated answered**: of the ``recall_unrelated`` requests (no prior
  task bears on them), those that got a task anyway (target 0).

Also timed: wall and CPU seconds (user + sys of the children) per recall
call, medians. Targets: hit@3 >= 0.95, recall@3 >= 0.8, MRR >= 0.85.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

from benchmarks import bench_lessons as bl

TARGETS = {"hit_at_3": 0.95, "recall_at_3": 0.80, "mrr": 0.85}


@dataclass
class QueryScore:
    query: str
    expected: list[str]
    returned: list[str]
    hit: bool
    recall: float
    rr: float


@dataclass
class Score:
    queries: int
    hit_at_3: float
    recall_at_3: float
    mrr: float
    tasks_per_answer: float
    empty_answers: int
    wall_s_median: float
    cpu_s_median: float
    unrelated: int = 0
    unrelated_answered: int = 0
    per_query: list[QueryScore] = field(default_factory=list)

    def meets_targets(self) -> bool:
        return all(getattr(self, k) >= v for k, v in TARGETS.items()) and self.unrelated_answered == 0


def score_query(query: str, expected: list[str], returned: list[str]) -> QueryScore:
    """Score one ranked answer (benchmark task ids, best first)."""
    top = returned[:3]
    hit = any(t in expected for t in top)
    rec = len(set(top) & set(expected)) / min(3, len(expected)) if expected else 0.0
    rr = next((1.0 / (k + 1) for k, t in enumerate(returned) if t in expected), 0.0)
    return QueryScore(query, list(expected), list(returned), hit, rec, rr)


def recall_cli(vault: Path, query: str, budget: int) -> tuple[dict, float, float]:
    """``brainwork recall --json`` in a child: (its JSON, wall s, CPU s)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    # --vault goes before "--": bench_lessons._run appends it, which would make it part of the query.
    proc = subprocess.run(bl._cli() + ["recall", "--vault", str(vault), "--json", "--no-record", "--budget", str(budget),
                                       "--", query], capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"brainwork recall failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    out = proc.stdout
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return json.loads(out), wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run(workdir: Path, data: Path = bl.DATA, budget: int = 4000) -> Score:
    bench = bl.load(data)
    if not bench.recall_queries:
        raise SystemExit(f"{data}: no recall_queries")
    vault, _, _ = bl.prepare(bench, "empty", workdir, data)
    title_to_bench = {t.title: t.id for t in bench.tasks}
    per, walls, cpus, sizes = [], [], [], []
    bl._run(["embed"], vault)  # the first recall would embed everything; keep it out of the timings
    for q in bench.recall_queries:
        answer, wall, cpu = recall_cli(vault, q["query"], budget)
        walls.append(wall)
        cpus.append(cpu)
        ranked = sorted(answer["tasks"], key=lambda t: t["rank"])
        returned = [title_to_bench.get(t["title"], t["id"]) for t in ranked]
        sizes.append(len(returned))
        per.append(score_query(q["query"], list(q["expected_tasks"]), returned))
    raw = yaml.safe_load(data.read_text(encoding="utf-8"))
    unrelated = list(raw.get("recall_unrelated") or [])
    answered = 0
    for u in unrelated:
        answer, _, _ = recall_cli(vault, u, budget)
        answered += bool(answer["tasks"])
    n = len(per)
    return Score(
        queries=n,
        hit_at_3=round(sum(p.hit for p in per) / n, 3),
        recall_at_3=round(sum(p.recall for p in per) / n, 3),
        mrr=round(sum(p.rr for p in per) / n, 3),
        tasks_per_answer=round(sum(sizes) / n, 2),
        empty_answers=sum(1 for s in sizes if s == 0),
        wall_s_median=round(statistics.median(walls), 2),
        cpu_s_median=round(statistics.median(cpus), 2),
        unrelated=len(unrelated),
        unrelated_answered=answered,
        per_query=per,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="Print the score as JSON.")
    ap.add_argument("--workdir", type=Path, default=None, help="Keep (and reuse) the captured vault here.")
    ap.add_argument("--data", type=Path, default=bl.DATA)
    ap.add_argument("--budget", type=int, default=4000, help="recall --budget (characters).")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-recall-") as tmp:
        s = run(args.workdir or Path(tmp), args.data, args.budget)
    if args.json:
        print(json.dumps({**asdict(s), "meets_targets": s.meets_targets()}, indent=2))
    else:
        print(f"queries {s.queries}: hit@3 {s.hit_at_3:.2f} (>= {TARGETS['hit_at_3']}), "
              f"recall@3 {s.recall_at_3:.2f} (>= {TARGETS['recall_at_3']}), MRR {s.mrr:.2f} (>= {TARGETS['mrr']})")
        print(f"tasks per answer {s.tasks_per_answer:.1f}; empty answers {s.empty_answers}; "
              f"unrelated requests answered {s.unrelated_answered} of {s.unrelated}; "
              f"recall per call (child process, model load included): wall {s.wall_s_median:.2f} s, "
              f"CPU {s.cpu_s_median:.2f} s (medians)")
        for p in s.per_query:
            if p.recall < 1.0:
                print(f"  recall@3 {p.recall:.2f}  {p.query}  -> {', '.join(p.returned) or '(none)'}")
        print("meets targets" if s.meets_targets() else "does NOT meet targets")
    return 0 if s.meets_targets() else 1


if __name__ == "__main__":
    sys.exit(main())
