"""A tiny shared helper for the benchmark scripts in ``benchmarks/``.

Every ``bench_*.py`` script measures a few figures, prints them as a table
against their targets, and can write them as JSON to ``benchmarks/out/``::

    from benchmarks.harness import Bench, measure

    bench = Bench("index")                       # the script's name
    t = measure(lambda: do_work(), repeat=5, warmup=1)
    bench.add("full index, 10,000 pages", t, target=5.0, unit="s")
    bench.add("peak RSS", 312.0, target=400, unit="MB")
    bench.report(json_out=True)                  # table on stdout (+ JSON file)

Conventions: times are wall-clock seconds from :func:`time.perf_counter`;
the reported figure is the **median** of ``repeat`` runs after ``warmup``
unmeasured ones (min and max are kept too); memory is the resident set
high-water mark (``ru_maxrss``) in MB, measured in a child process so one
benchmark's allocations do not hide another's (:func:`run_child`).
A row is OK when its figure is at most its target (``lower_is_better``) or
at least it (for rates such as pages per second).
"""

from __future__ import annotations

import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

OUT_DIR = Path(__file__).resolve().parent / "out"
REPO = Path(__file__).resolve().parent.parent


@dataclass
class Timing:
    """Wall-clock seconds of ``runs`` measured calls; ``median`` is the figure.

    ``cpu`` (when measured) holds the process's CPU seconds (user + system,
    all threads) per run: on a shared, busy machine the wall clock mostly
    measures the queue for a core, the CPU time still what the code costs.
    """

    median: float
    min: float
    max: float
    runs: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    @classmethod
    def of(cls, runs: list[float], cpu: list[float] | None = None) -> "Timing":
        return cls(statistics.median(runs), min(runs), max(runs), list(runs), list(cpu or []))

    @property
    def cpu_median(self) -> float | None:
        return statistics.median(self.cpu) if self.cpu else None


def measure(fn: Callable[[], Any], repeat: int = 5, warmup: int = 1, setup: Callable[[], Any] | None = None) -> Timing:
    """Run ``fn`` ``warmup`` times unmeasured, then ``repeat`` times measured.

    ``setup`` (untimed) runs before every call, e.g. to make a fresh store.
    """
    for _ in range(warmup):
        if setup:
            setup()
        fn()
    runs, cpu = [], []
    for _ in range(repeat):
        if setup:
            setup()
        c0 = time.process_time()
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return Timing.of(runs, cpu)


def peak_rss_mb() -> float:
    """This process's resident set high-water mark in MB (Linux: ru_maxrss is KiB)."""
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kib / 1024 if sys.platform != "darwin" else kib / 1024 / 1024


def run_child(module: str, *args: str, timeout: float = 600) -> dict:
    """Run ``python -m module args...`` from the repository root and return
    the JSON object the child prints as its **last** stdout line.

    Raises:
        RuntimeError: the child failed (its stderr is in the message).
    """
    proc = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONHASHSEED": os.environ.get("PYTHONHASHSEED", "0")},
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{module} {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    lines = [l for l in proc.stdout.splitlines() if l.strip()]
    if not lines:
        raise RuntimeError(f"{module} {' '.join(args)} printed nothing; stderr:\n{proc.stderr[-4000:]}")
    return json.loads(lines[-1])


def machine() -> dict:
    """Where the figures were measured: CPU count, Python, kuzu, platform, load."""
    try:
        import kuzu

        kuzu_version = kuzu.__version__
    except Exception:  # pragma: no cover - kuzu missing
        kuzu_version = None
    try:
        load = os.getloadavg()
    except OSError:  # pragma: no cover
        load = None
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "kuzu": kuzu_version,
        "platform": platform.platform(),
        "load_average": load,
    }


@dataclass
class Row:
    """One reported figure: ``value`` in ``unit``; ``target`` None means
    "informational, no target"."""

    name: str
    value: float
    unit: str = "s"
    target: float | None = None
    lower_is_better: bool = True
    detail: str = ""
    runs: list[float] = field(default_factory=list)
    cpu: float | None = None  # median CPU seconds, when measured

    @property
    def ok(self) -> bool | None:
        if self.target is None:
            return None
        return self.value <= self.target if self.lower_is_better else self.value >= self.target


def _fmt(value: float, unit: str) -> str:
    if unit == "s" and value < 1:
        return f"{value * 1000:.1f} ms"
    if unit == "s":
        return f"{value:.2f} s"
    if unit == "ms":
        return f"{value:.1f} ms"
    if float(value).is_integer():
        return f"{int(value):,} {unit}".strip()
    return f"{value:,.1f} {unit}".strip()


class Bench:
    """Collects the rows of one benchmark script and reports them."""

    def __init__(self, name: str, params: dict | None = None):
        self.name = name
        self.params = params or {}
        self.rows: list[Row] = []

    def add(
        self,
        name: str,
        value: float | Timing,
        target: float | None = None,
        unit: str = "s",
        lower_is_better: bool = True,
        detail: str = "",
    ) -> Row:
        """Add a figure; a :class:`Timing` contributes its median (and runs)."""
        runs: list[float] = []
        cpu = None
        if isinstance(value, Timing):
            runs, cpu = value.runs, value.cpu_median
            value = value.median
        row = Row(name, float(value), unit, target, lower_is_better, detail, runs, cpu)
        self.rows.append(row)
        return row

    def table(self) -> str:
        """The rows as a plain-text table: figure, target, verdict, detail."""
        head = ("benchmark", "figure", "target", "", "detail")
        body = []
        for r in self.rows:
            tgt = "" if r.target is None else ("<= " if r.lower_is_better else ">= ") + _fmt(r.target, r.unit)
            verdict = "" if r.ok is None else ("ok" if r.ok else "OVER" if r.lower_is_better else "UNDER")
            spread = ""
            if len(r.runs) > 1:
                spread = f"{len(r.runs)} runs {_fmt(min(r.runs), r.unit)}..{_fmt(max(r.runs), r.unit)}"
            cpu = f"CPU {_fmt(r.cpu, r.unit)}" if r.cpu is not None else ""
            detail = "; ".join(x for x in (cpu, r.detail, spread) if x)
            body.append((r.name, _fmt(r.value, r.unit), tgt, verdict, detail))
        widths = [max(len(str(x[i])) for x in [head, *body]) for i in range(len(head))]
        lines = ["  ".join(str(c).ljust(w) for c, w in zip(head, widths)).rstrip()]
        lines.append("  ".join("-" * w for w in widths))
        lines += ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip() for row in body]
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {
            "benchmark": self.name,
            "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "machine": machine(),
            "params": self.params,
            "rows": [dict(asdict(r), ok=r.ok) for r in self.rows],
        }

    def report(self, json_out: bool | str | Path = False) -> int:
        """Print the table; write JSON to ``benchmarks/out/<name>.json`` (or
        the given path) when ``json_out`` is set. Returns 0 when every row
        with a target met it, else 1 (usable as an exit code)."""
        m = machine()
        load = m["load_average"]
        print(f"# {self.name} — {m['cpus']} CPUs, Python {m['python']}, kuzu {m['kuzu']}"
              + (f", load {load[0]:.2f}" if load else ""))
        print(self.table())
        if json_out:
            path = Path(json_out) if not isinstance(json_out, bool) else OUT_DIR / f"{self.name}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(self.to_json(), indent=1), encoding="utf-8")
            print(f"wrote {path}")
        return 0 if all(r.ok is not False for r in self.rows) else 1
