"""Precision and recall of the stop hook's push-back proposals on the
labelled Claude Code transcripts (``tests/fixtures/transcripts/``).

``python -m benchmarks.bench_pushback [--rules] [--misses] [--json]``

Each fixture's person turns are read with :func:`brainwork.agents.transcript.read_transcript`;
``labels.json`` names the turns that push back. A turn counts as proposed
when :func:`brainwork.agents.transcript.proposals` returns it, with the
bundled sentence model's embedding margin (the model loaded once, through
:func:`brainwork.learn.embed.get_embedder`) or, with ``--rules``, the
rules alone (what the hook does when the store has no ONNX export of the
model). Sets: ``tuning`` (``01``-``13``, ``h*``: the weights were set on
these), ``v2`` (the explicit patterns were widened on it once; held out
for the context cues), ``v3`` and ``v4`` (held out; ``v4`` written and
committed before the context detector existed). ``--misses`` prints each
wrong call with its cues.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from brainwork.agents import transcript as tr

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "transcripts"
SETS = ("tuning", "v2", "v3", "v4")


def set_of(name: str) -> str:
    """The set a fixture file belongs to, by its name's prefix."""
    return name[:2] if name[:2] in ("v2", "v3", "v4") else "tuning"


def score(encode=None, fixtures: Path = FIXTURES, misses: list | None = None) -> dict[str, dict]:
    """Per set: sessions, turns, push-back turns, proposed, true/false
    positives, missed, precision (None when nothing was proposed), recall."""
    labels = json.loads((fixtures / "labels.json").read_text(encoding="utf-8"))
    out = {s: {"sessions": 0, "turns": 0, "pushback": 0, "proposed": 0, "tp": 0, "fp": 0, "fn": 0} for s in SETS}
    for name, label in sorted(labels.items()):
        session = tr.read_transcript(fixtures / name)
        row = out[set_of(name)]
        row["sessions"] += 1
        row["turns"] += label["turns"]
        truth = set(label["pushback"])
        said = {t.index for t in tr.proposals(session, encode)}
        row["pushback"] += len(truth)
        row["proposed"] += len(said)
        row["tp"] += len(said & truth)
        row["fp"] += len(said - truth)
        row["fn"] += len(truth - said)
        if misses is not None:
            for t in session.turns:
                if (t.index in said) != (t.index in truth):
                    cues = tr.pushback_cues(t)
                    misses.append(f"{'FP' if t.index in said else 'FN'} {name}#{t.index}: {t.text[:90]!r} "
                                  f"{ {k: v for k, v in vars(cues).items() if v} }")
    for row in out.values():
        row["precision"] = round(row["tp"] / row["proposed"], 2) if row["proposed"] else None
        row["recall"] = round(row["tp"] / row["pushback"], 2) if row["pushback"] else None
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", action="store_true", help="the rules alone, no sentence model")
    ap.add_argument("--misses", action="store_true", help="print each wrong call with its cues")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    encode = None
    if not args.rules:
        from brainwork.learn.embed import get_embedder

        emb = get_embedder(None)
        if emb.lexical:
            raise SystemExit(f"no sentence model: {emb.status}")
        encode = emb.encode
    misses: list[str] | None = [] if args.misses else None
    cpu0, wall0 = time.process_time(), time.perf_counter()
    result = score(encode, misses=misses)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    if args.json:
        print(json.dumps({"mode": "rules" if args.rules else "rules+embedding", "sets": result,
                          "cpu_s": round(cpu, 2), "wall_s": round(wall, 2)}, indent=1))
        return
    print(f"mode: {'rules alone' if args.rules else 'rules + embedding margin'}  ({cpu:.2f} s CPU, {wall:.2f} s wall for all sets)")
    print("| set | sessions | user turns | push-back | proposed | precision | recall |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, r in result.items():
        p = f"{r['precision']:.2f} ({r['tp']}/{r['proposed']})" if r["proposed"] else "-"
        print(f"| {name} | {r['sessions']} | {r['turns']} | {r['pushback']} | {r['proposed']} | {p} | {r['recall']:.2f} ({r['tp']}/{r['pushback']}) |")
    for line in misses or []:
        print(line)


if __name__ == "__main__":
    main()
