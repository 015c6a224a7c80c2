"""How fast the open workbench follows the vault on disk (tui/live_sync.py).

``python -m benchmarks.bench_live_sync [--pages 2000] [--runs 7] [--json]``

Runs the workbench headless (``App.run_test``) and measures, from the moment
a file is written by this process (as an agent, an editor or git would):

- one correction page written, on a copy of ``sample_vault/`` (129 pages):
  until the page list and counts are re-read (``VaultLoaded``: the status
  bar, the graph's list), target <= 2 s; and, with the inbox pane showing,
  until the inbox has re-read (``InboxLoaded``), target <= 2 s;
- the same on a synthetic vault of ``--pages`` pages (:mod:`benchmarks.synth`);
- a burst of 1,000 new pages (one folder, written back to back): the number
  of syncs it caused (target 1) and the time until all are counted;
- the sync the workbench's own operation causes (a rename; it finds
  nothing): the sync's own wall time (``SyncReport.seconds``), informational;
- on the synthetic vault without the workbench: what syncing one new page
  costs with the full sync (what a live sync runs) and with
  :func:`~brainwork.index.incremental.sync_paths` (informational: the
  figure a live sync limited to the batch's files would approach).

CPU seconds (user + system, all threads of the process) are measured over
the same window; on this shared machine the wall clock mostly measures the
queue for a core. The figure is the median of ``--runs`` writes, one every
1.5 s.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import REPO, Bench, Timing
from benchmarks.synth import generate

TARGET = 2.0

PAGE = """---
title: Live sync probe {n}
type: correction
created: 2026-12-01
status: open
wrong: Waited for ctrl+r.
correct: The workbench follows the vault.
why: Agents write while people curate.
---

Probe {n}.
"""


async def _wait(pilot, condition, deadline: float = 60.0) -> None:
    end = time.monotonic() + deadline
    while not condition():
        if time.monotonic() > end:
            raise RuntimeError("timed out")
        await pilot.pause(0.01)


async def _session(vault: Path, runs: int, inbox: bool, burst: bool, rename_page: str | None) -> dict:
    from brainwork.config import load_config
    from brainwork.ops.rename import rename
    from brainwork.tui import live_sync
    from brainwork.tui.app import BrainworkApp
    from brainwork.tui.messages import IndexFinished, VaultLoaded
    from brainwork.tui.screens.inbox import InboxLoaded

    config = load_config(vault)
    events: list[tuple[float, object]] = []

    def hook(message) -> None:
        if isinstance(message, (live_sync.VaultFilesChanged, IndexFinished, VaultLoaded, InboxLoaded)):
            events.append((time.monotonic(), message))

    def first(kind, since: float) -> float | None:
        return next((t - since for t, m in events if isinstance(m, kind) and t >= since), None)

    out: dict = {"counts": [], "counts_cpu": [], "inbox": [], "inbox_cpu": []}
    app = BrainworkApp(config)
    async with app.run_test(size=(160, 50), message_hook=hook) as pilot:
        await _wait(pilot, lambda: app.indexed and app.counts is not None and app.watcher is not None)
        app.watcher.ready.wait(10)
        if inbox:
            await pilot.press("4")
            await pilot.pause(8)  # the embedding model loads once
        for n in range(runs):
            pages = app.counts["pages"]
            c0, t0 = time.process_time(), time.monotonic()
            (vault / "corrections" / f"2026-12-01-live-probe-{n}.md").write_text(PAGE.format(n=n), encoding="utf-8")
            wanted = InboxLoaded if inbox else VaultLoaded
            await _wait(pilot, lambda: app.counts["pages"] == pages + 1 and first(wanted, t0) is not None)
            cpu = time.process_time() - c0
            out["counts"].append(first(VaultLoaded, t0))
            out["counts_cpu"].append(cpu)
            if inbox:
                out["inbox"].append(first(InboxLoaded, t0))
                out["inbox_cpu"].append(cpu)
            await pilot.pause(1.5)
        if burst:
            pages = app.counts["pages"]
            folder = vault / "burst"
            folder.mkdir()
            await pilot.pause(0.5)  # the watch on the new folder is in place
            c0, t0 = time.process_time(), time.monotonic()
            for i in range(1000):
                (folder / f"burst-{i:04}.md").write_text(f"---\ntype: topic\n---\n# Burst {i}\n", encoding="utf-8")
            await _wait(pilot, lambda: app.counts["pages"] == pages + 1000)
            out["burst_seconds"] = time.monotonic() - t0
            out["burst_cpu"] = time.process_time() - c0
            await pilot.pause(4)  # anything late would be a second sync
            out["burst_syncs"] = sum(
                1 for t, m in events if t >= t0 and isinstance(m, IndexFinished) and getattr(m, "live", False)
            )
        if rename_page:
            t0 = time.monotonic()
            worker = app.operations.run(
                "rename", lambda c, s: rename(c, s, rename_page, new_title="Renamed by the live-sync bench")
            )
            await _wait(pilot, lambda: worker.is_finished)
            await _wait(pilot, lambda: any(
                t >= t0 and isinstance(m, IndexFinished) and getattr(m, "live", False) for t, m in events
            ))
            msg = next(m for t, m in events if t >= t0 and isinstance(m, IndexFinished) and getattr(m, "live", False))
            out["own_op_sync"] = msg.report.seconds  # the sync itself, in its worker
            out["own_op_wrote"] = msg.report.wrote
    return out


def _sync_costs(vault: Path, runs: int) -> tuple[Timing, Timing]:
    """One new page, synced by the full sync (what a live sync runs) and by
    :func:`~brainwork.index.incremental.sync_paths` (what an operation runs
    for the files it wrote), without the workbench."""
    from brainwork.config import load_config
    from brainwork.index.incremental import sync_paths
    from brainwork.index.sync import sync
    from brainwork.store import Store

    config = load_config(vault)
    store = Store(config.store)
    full: list[tuple[float, float]] = []
    part: list[tuple[float, float]] = []
    try:
        sync(config, store)
        for n in range(runs):
            for kind, out in (("full", full), ("paths", part)):
                rel = f"corrections/2026-12-01-cost-{kind}-{n}.md"
                (vault / rel).write_text(PAGE.format(n=n), encoding="utf-8")
                c0, t0 = time.process_time(), time.perf_counter()
                if kind == "full":
                    sync(config, store)
                else:
                    sync_paths(config, store, [rel], counts=False)
                out.append((time.perf_counter() - t0, time.process_time() - c0))
    finally:
        store.close()
    return (Timing.of([w for w, _ in full], [c for _, c in full]), Timing.of([w for w, _ in part], [c for _, c in part]))


def _copy(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns(".brainwork"))
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=2000, help="pages of the synthetic vault")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--json", action="store_true", help="also write benchmarks/out/live_sync.json")
    args = ap.parse_args(argv)
    bench = Bench("live_sync", {"pages": args.pages, "runs": args.runs})
    with tempfile.TemporaryDirectory(prefix="bench-live-") as tmp:
        tmp = Path(tmp)
        sample = asyncio.run(_session(_copy(REPO / "sample_vault", tmp / "a"), args.runs, False, True, "tools/certbot"))
        bench.add("page written → counts, sample_vault", Timing.of(sample["counts"], sample["counts_cpu"]), TARGET)
        bench.add("1,000 new pages at once: syncs", sample["burst_syncs"], 1, unit="syncs")
        bench.add("1,000 new pages at once → counted", Timing.of([sample["burst_seconds"]], [sample["burst_cpu"]]))
        bench.add("sync after the workbench's own rename", sample["own_op_sync"],
                  detail=f"found nothing: {not sample['own_op_wrote']}")
        inbox = asyncio.run(_session(_copy(REPO / "sample_vault", tmp / "b"), args.runs, True, False, None))
        bench.add("page written → inbox re-read, sample_vault", Timing.of(inbox["inbox"], inbox["inbox_cpu"]), TARGET)
        synth = generate(tmp / "synth", args.pages)
        del synth
        big = asyncio.run(_session(tmp / "synth", args.runs, False, False, None))
        bench.add(f"page written → counts, {args.pages:,} pages", Timing.of(big["counts"], big["counts_cpu"]), TARGET)
        full, paths = _sync_costs(tmp / "synth", args.runs)
        bench.add(f"  of which: full sync of one new page, {args.pages:,} pages", full)
        bench.add(f"  sync_paths of the same page instead (not used)", paths)
    return bench.report(json_out=args.json)


if __name__ == "__main__":
    sys.exit(main())
