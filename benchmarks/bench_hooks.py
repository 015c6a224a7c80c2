"""Benchmark of the Claude Code hooks as Claude Code runs them: a new
``brainwork hook EVENT --vault V`` process per event, JSON on stdin.

``python -m benchmarks.bench_hooks [--runs 5] [--pages 10000] [--json] [--workdir DIR]``

On a copy of ``sample_vault/`` (129 pages, 2 active rules) and on a
synthetic vault of ``--pages`` pages (:mod:`benchmarks.synth`, its rules made
active), each indexed first:

- ``session-start`` without an owner (the doctrine read from the rule pages,
  no store opened) and with ``brainwork serve`` owning the store (the
  doctrine asked of it over its socket);
- ``user-prompt-submit`` for a real prompt with the owner up (doctrine and
  recall answered by it), and without one (recall runs in the hook's process
  against the store opened for that call: the embedding model loads);
- ``stop`` on a labelled transcript (tests/fixtures/transcripts/04-blog-post.jsonl):
  first stop (task page and a proposed correction written; its push-back
  turn embedded by the ONNX export ``embed`` left in the store), the same
  with the push-back rules alone (``BRAINWORK_EMBEDDER=lexical``, as a store
  with no export yet), and a repeated stop with nothing new; and the stop
  after a session's first turn (one prompt, its tool call and the answer:
  the start of tests/fixtures/transcripts/11-list-prs.jsonl).

Figures are medians over ``--runs`` after one unmeasured warm-up: CPU
seconds (user + system of the finished child, the operating system's
accounting; the figure to quote on a shared machine) beside wall seconds,
and the size of what the hook printed.

``python -m benchmarks.bench_hooks --gate-crossover [--runs 5]`` measures
instead where the secret gate's Arrow path starts to pay
(``SECRET_GATE_ARROW_MIN_CHARS``): for ASCII texts of 1 KB to 64 MB cut from
``sample_vault/``'s pages, the CPU seconds of one gate call in a new
process (``cold``: numpy and pyarrow imported by the call, as in a hook)
and of a second call (``warm``: already imported), on each path.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BRAINWORK = str(Path(sys.executable).with_name("brainwork"))
FIXTURE = REPO / "tests" / "fixtures" / "transcripts" / "04-blog-post.jsonl"
PROMPT = "Renew the TLS certificate for the billing API and check the chain"


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_once(args: list[str], payload: dict, env: dict) -> tuple[float, float, int, int]:
    """(wall s, CPU s, stdout chars, exit code) of one hook process."""
    cpu0, t0 = _child_cpu(), time.perf_counter()
    r = subprocess.run(args, input=json.dumps(payload), capture_output=True, text=True, env=env, timeout=300)
    return time.perf_counter() - t0, _child_cpu() - cpu0, len(r.stdout), r.returncode


def measure(args, payload, env, runs: int, setup=None) -> dict:
    if setup:
        setup()
    run_once(args, payload, env)
    walls, cpus, sizes, codes = [], [], [], set()
    for _ in range(runs):
        if setup:
            setup()
        w, c, n, code = run_once(args, payload, env)
        walls.append(w)
        cpus.append(c)
        sizes.append(n)
        codes.add(code)
    return {"wall_s": round(statistics.median(walls), 3), "cpu_s": round(statistics.median(cpus), 3),
            "stdout_chars": int(statistics.median(sizes)), "exit_codes": sorted(codes)}


class Serve:
    """``brainwork serve`` on a vault for the duration of a ``with`` block."""

    def __init__(self, vault: Path, env: dict):
        self.vault, self.env, self.proc = vault, env, None

    def __enter__(self):
        from brainwork.config import load_config
        from brainwork.service import owner

        self.proc = subprocess.Popen([BRAINWORK, "serve", "--vault", str(self.vault)], env=self.env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        config = load_config(self.vault)
        deadline = time.monotonic() + 120
        while owner.status(config) is None:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("brainwork serve did not come up")
            time.sleep(0.2)
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def bench_vault(vault: Path, runs: int, env: dict) -> dict:
    subprocess.run([BRAINWORK, "embed", "--vault", str(vault)], env=env, capture_output=True, timeout=3600, check=True)
    hook = lambda event: [BRAINWORK, "hook", event, "--vault", str(vault)]  # noqa: E731
    start = {"hook_event_name": "SessionStart", "source": "startup", "session_id": "b"}
    prompt = {"hook_event_name": "UserPromptSubmit", "prompt": PROMPT, "session_id": "b"}
    out: dict = {}
    out["session_start_no_owner"] = measure(hook("session-start"), start, env, runs)
    out["prompt_no_owner"] = measure(hook("user-prompt-submit"), prompt, env, max(3, runs // 2))
    work = Path(tempfile.mkdtemp(prefix="bw-hook-transcript-"))
    transcript = work / "t.jsonl"
    counter = {"n": 0}

    def fresh_session():  # a new session id each run: a first stop
        counter["n"] += 1
        shutil.copy(FIXTURE, transcript)

    stop_first = {"hook_event_name": "Stop", "transcript_path": str(transcript)}

    def first_stops(tag: str, stop_env: dict, path: Path = transcript) -> dict:
        """Medians of ``runs`` first stops (a new session id each) after a warm-up."""
        first = []
        for i in range(runs + 1):
            fresh_session()
            payload = {**stop_first, "transcript_path": str(path), "session_id": f"bench-{tag}-{os.getpid()}-{i}"}
            w, c, n, code = run_once(hook("stop"), payload, stop_env)
            if i:
                first.append((w, c, code))
        return {"wall_s": round(statistics.median(x[0] for x in first), 3),
                "cpu_s": round(statistics.median(x[1] for x in first), 3), "exit_codes": sorted({x[2] for x in first})}

    out["stop_first"] = first_stops("model", env)
    # The push-back rules alone, as in a store with no ONNX export of the model yet.
    out["stop_first_rules_only"] = first_stops("rules", {**env, "BRAINWORK_EMBEDDER": "lexical"})
    # The stop after a session's first turn: one prompt, nothing to embed (11-list-prs up to its first reply).
    lines = (FIXTURE.parent / "11-list-prs.jsonl").read_text(encoding="utf-8").splitlines()
    one = work / "one-prompt.jsonl"
    one.write_text("\n".join(lines[:5] + lines[6:7]) + "\n", encoding="utf-8")
    out["stop_one_prompt"] = first_stops("one", env, one)
    out["stop_again"] = measure(hook("stop"), {**stop_first, "session_id": f"bench-model-{os.getpid()}-1"}, env, runs)
    with Serve(vault, env):
        out["session_start_owner"] = measure(hook("session-start"), start, env, runs)
        out["prompt_owner"] = measure(hook("user-prompt-submit"), prompt, env, runs)
    shutil.rmtree(work, ignore_errors=True)
    return out


_GATE_CALL = """
import sys, time
from pathlib import Path
from brainwork.analysis.secrets import _gated_starts
pages = sorted(Path(sys.argv[1]).rglob("*.md"))
corpus = "\\n".join(line for p in pages for line in p.read_text(encoding="utf-8").splitlines() if line.isascii())
size, arrow = int(sys.argv[2]), sys.argv[3] == "arrow"
text = (corpus * (size // len(corpus) + 1))[:size]
low = text.lower()
limit = 0 if arrow else size + 1
times = []
for _ in range(2):
    t0 = time.process_time()
    _gated_starts(text, low, limit)
    times.append(time.process_time() - t0)
print(times[0], times[1])
"""


def gate_crossover(runs: int) -> dict:
    """``{size: {path: {"cold_s", "warm_s"}}}``: medians over ``runs`` new
    processes of the CPU seconds of the secret gate's first call (lazy
    imports included) and of its second call on one ASCII text."""
    out: dict = {}
    for size in (1_000, 4_000, 16_000, 32_000, 64_000, 128_000, 256_000, 1_000_000, 4_000_000, 16_000_000, 64_000_000):
        row = {}
        for path in ("plain", "arrow"):
            cold, warm = [], []
            for _ in range(runs):
                r = subprocess.run([sys.executable, "-c", _GATE_CALL, str(REPO / "sample_vault"), str(size), path],
                                   capture_output=True, text=True, check=True, timeout=600)
                a, b = map(float, r.stdout.split())
                cold.append(a)
                warm.append(b)
            row[path] = {"cold_s": round(statistics.median(cold), 4), "warm_s": round(statistics.median(warm), 4)}
        out[size] = row
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pages", type=int, default=10_000)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--workdir", type=Path, default=None)
    ap.add_argument("--gate-crossover", action="store_true",
                    help="measure the secret gate's plain and Arrow paths by text size instead")
    a = ap.parse_args(argv)
    if a.gate_crossover:
        figures = gate_crossover(a.runs)
        if a.json:
            print(json.dumps(figures, indent=2))
        else:
            print(f"{'chars':>9} {'plain cold':>11} {'arrow cold':>11} {'plain warm':>11} {'arrow warm':>11}")
            for size, row in figures.items():
                print(f"{size:>9} {row['plain']['cold_s']:>11} {row['arrow']['cold_s']:>11} "
                      f"{row['plain']['warm_s']:>11} {row['arrow']['warm_s']:>11}")
        return 0
    work = a.workdir or Path(tempfile.mkdtemp(prefix="bw-bench-hooks-"))
    env = {k: v for k, v in os.environ.items() if k != "BRAINWORK_VAULT"}
    results: dict = {}
    sample = work / "sample"
    shutil.rmtree(sample, ignore_errors=True)
    shutil.copytree(REPO / "sample_vault", sample, ignore=shutil.ignore_patterns(".brainwork"))
    subprocess.run([BRAINWORK, "index", "--vault", str(sample)], env=env, capture_output=True, check=True, timeout=600)
    results["sample_vault"] = bench_vault(sample, a.runs, env)
    if a.pages:
        from benchmarks.synth import generate

        big = work / f"synth{a.pages}"
        generate(big, a.pages, force=True)
        for page in (big / "rules").glob("*.md"):  # every rule active: the doctrine at its largest
            text = page.read_text()
            page.write_text(re.sub(r"^status: \w+$", "status: active", text, count=1, flags=re.M))
        subprocess.run([BRAINWORK, "index", "--vault", str(big)], env=env, capture_output=True, check=True, timeout=3600)
        results[f"synth_{a.pages}"] = bench_vault(big, a.runs, env)
        results[f"synth_{a.pages}"]["active_rules"] = len(list((big / "rules").glob("*.md")))
    if a.json:
        print(json.dumps(results, indent=2))
    else:
        for name, figures in results.items():
            print(name)
            for key, f in figures.items():
                print(f"  {key:24} {f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
