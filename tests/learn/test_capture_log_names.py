"""The undo log names the page a capture actually wrote: a title captured
again the same day goes to ``...-2.md``, ``...-3.md``, and the log's
summary and details say so (not the first, taken, name)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import date
from pathlib import Path

from brainwork.learn.capture import capture
from brainwork.ops.undo import history


def _run(vault: Path, *args: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("brainwork")
    return subprocess.run([str(exe), *args, "--vault", str(vault)], capture_output=True, text=True, timeout=120)


def test_log_names_each_numbered_page(sample_config):
    vault = sample_config.vault
    ids = []
    for n in range(3):
        res = _run(vault, "capture", "task", "--title", "Same title", "--request", f"request {n}", "--outcome", "failed")
        assert res.returncode == 0, res.stderr
        ids.append(res.stdout.strip())
    assert len(set(ids)) == 3 and ids[1] == ids[0] + "-2" and ids[2] == ids[0] + "-3"
    log = _run(vault, "log")
    assert log.returncode == 0, log.stderr
    lines = log.stdout.splitlines()[:3]  # newest first
    assert [line.split()[-1] for line in lines] == ids[::-1]
    rows = json.loads(_run(vault, "log", "--json").stdout)[:3]
    for row, pid in zip(rows, ids[::-1]):
        assert row["summary"] == f"capture task {pid}" and row["paths"] == [pid + ".md"]


def test_operation_of_a_numbered_capture(sample_config, sample_store):
    data = {"request": "Renew the cert", "title": "Twice the same"}
    first = capture(sample_config, sample_store, "task", data, today=date(2026, 11, 2))
    second = capture(sample_config, sample_store, "task", data | {"request": "again"}, today=date(2026, 11, 2))
    assert second.id == first.id + "-2"
    ops = {op.id: op for op in history(sample_store, None)}
    assert ops[second.operation].summary == f"capture task {second.id}"
    assert ops[second.operation].details["page"] == second.id
    assert ops[first.operation].summary == f"capture task {first.id}"
