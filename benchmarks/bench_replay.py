"""The replay on the labelled lessons benchmark: does the measure claim an
improvement where there was none?

``python -m benchmarks.bench_replay [--workdir DIR] [--activate DATE] [--json]``

The benchmark's tasks (``benchmarks/lessons/lessons.yaml``) were written
with every lesson recurring across the whole period: the agent never
improved. A trustworthy replay must therefore not report "fewer repeats
after" for most lessons.

Steps: a vault captured through the CLI by
:func:`benchmarks.bench_lessons.prepare` (kind ``empty``; reused from
``--workdir``), ``brainwork consolidate --json`` on a copy, then every
drafted candidate rule approved with ``activated`` = ``--activate``
(default: the median task date) — as if a person had approved the
proposals half way through. Evidence dated after that day is then a
correction linked to a rule after its approval: a repeat after. Finally
:func:`brainwork.learn.replay.replay`, timed (wall and CPU seconds of this
process, model already loaded).

Reported: the replay's lesson-in-the-room rate and per-lesson figures, and
against the truth labels: true repeats (a labelled correction with an
earlier correction of the same label), the replay's repeats that are true
repeats (precision) and the true repeats it found (recall).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import bench_lessons as bl


def true_repeats(bench: bl.Benchmark) -> set[str]:
    """Benchmark correction ids that repeat an earlier correction of their label."""
    seen: dict[str, str] = {}
    out = set()
    for c in sorted(bench.corrections, key=lambda c: (c.created, c.task, c.id)):
        if c.lesson is None:
            continue
        if c.lesson in seen and seen[c.lesson] < (c.created + c.task):
            out.add(c.id)
        seen.setdefault(c.lesson, c.created + c.task)
    return out


def run(workdir: Path, activate: str | None) -> dict:
    from brainwork.config import load_config
    from brainwork.learn.embed import get_embedder
    from brainwork.learn.replay import replay
    from brainwork.learn.rules import approve, list_rules
    from brainwork.store import Store

    bench = bl.load()
    vault, page_of, _ = bl.prepare(bench, "empty", workdir, bl.DATA)
    bl.consolidate_cli(vault)
    day = activate or statistics.median_low(sorted(t.created for t in bench.tasks))
    config = load_config(vault)
    bench_id = {v: k for k, v in page_of.items()}
    with Store(config.store) as store:
        from brainwork.index.sync import sync

        sync(config, store)
        candidates = [r.id for r in list_rules(store, "candidate")]
        for rid in candidates:
            approve(config, store, rid, today=day)
        sync(config, store)
        get_embedder(config)  # loaded before timing
        t0, c0 = time.perf_counter(), time.process_time()
        rep = replay(config, store)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    truth = true_repeats(bench)
    found = {bench_id.get(r.correction, r.correction) for r in rep.repeats}
    hit = found & truth
    return {
        "vault": str(vault), "activated": day, "rules_approved": len(candidates),
        "replay_wall_s": round(wall, 2), "replay_cpu_s": round(cpu, 2),
        "true_repeats": len(truth), "replay_repeats": len(found), "true_among_replay": len(hit),
        "precision": round(len(hit) / len(found), 3) if found else None,
        "recall": round(len(hit) / len(truth), 3) if truth else None,
        "replay": rep.to_json(),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workdir", type=Path, help="keep the captured vault here and reuse it")
    ap.add_argument("--activate", help="activation date of the approved rules (default: the median task date)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench-replay-"))
    workdir.mkdir(parents=True, exist_ok=True)
    result = run(workdir, args.activate)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    rep = result["replay"]
    print(f"{rep['tasks']} tasks, {rep['corrections']} corrections; {result['rules_approved']} candidates approved "
          f"as of {result['activated']}; load {os.getloadavg()[0]:.1f}")
    print(f"replay: {result['replay_wall_s']} s wall, {result['replay_cpu_s']} s CPU")
    print(f"lesson in the room: {rep['in_room']} of {rep['repeat_corrections']} repeats ({rep['in_room_rate']}); "
          f"by {rep['in_room_by']}")
    print(f"true repeats {result['true_repeats']}; replay repeats {result['replay_repeats']}, "
          f"{result['true_among_replay']} of them true (precision {result['precision']}, recall {result['recall']})")
    for lesson in rep["lessons"]:
        b, a = lesson["before"], lesson["after"]
        after = "–" if a is None else f"{a['repeated']}/{a['tasks']} ({a['rate']})"
        print(f"  {lesson['rule']}: before {b['repeated']}/{b['tasks']} ({b['rate']}), after {after}: {lesson['verdict']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
