"""An edge given an empty page name is refused (exit 2), not dropped: in
``T=$(brainwork capture task ...); brainwork capture correction --task "$T"``
a failed first command leaves T empty, and the correction must not be
written unlinked. A correction of no task (no ``--task``) stays valid."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from brainwork.errors import UserError
from brainwork.learn.capture import capture

LESSON = ["--wrong", "Checked only the leaf", "--correct", "Check the chain", "--why", "Old clients fail"]
EMPTY_TASK = "--task is empty: name the task this corrects"


def _run(vault: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("brainwork")
    return subprocess.run([str(exe), *args, "--vault", str(vault)], input=stdin, capture_output=True, text=True,
                          timeout=120)


def _pages(vault: Path) -> set[str]:
    return {p.relative_to(vault).as_posix() for p in vault.rglob("*.md") if ".brainwork" not in p.parts}


def test_readme_pattern_with_a_failed_task_capture(sample_config):
    vault = sample_config.vault
    before = _pages(vault)
    task = _run(vault, "capture", "task", "--title", "Renew TLS cert", "--outcome", "failure")
    assert task.returncode == 2 and task.stdout == ""
    assert "success, partial, failed" in task.stderr.replace("'", "")  # the valid outcomes are named
    res = _run(vault, "capture", "correction", "--task", task.stdout.strip(), *LESSON)
    assert res.returncode == 2 and res.stdout == ""
    assert EMPTY_TASK in res.stderr
    assert _pages(vault) == before


@pytest.mark.parametrize("task", ["", "   ", ["", "tasks/2026-09-02-renew-cert-billing-api"]])
def test_empty_task_in_json_is_refused(sample_config, task):
    vault = sample_config.vault
    before = _pages(vault)
    record = {"task": task, "wrong": "w", "correct": "c", "why": "y"}
    res = _run(vault, "capture", "correction", "--json", "-", stdin=json.dumps(record))
    assert res.returncode == 2 and res.stdout == "" and EMPTY_TASK in res.stderr
    assert _pages(vault) == before


def test_other_edges_given_empty_are_refused(sample_config):
    with pytest.raises(UserError, match="--used is empty"):
        capture(sample_config, None, "task", {"request": "r", "used": ""})
    with pytest.raises(UserError, match="--produced-by is empty"):
        capture(sample_config, None, "artifact", {"location": "x", "produced_by": [" "]})
    with pytest.raises(UserError, match="names no page"):
        capture(sample_config, None, "task", {"request": "r", "used": "[[#heading]]"})


@pytest.mark.parametrize("task", [None, []])
def test_no_task_at_all_is_a_correction_of_no_task(sample_config, task):
    data = {"wrong": "w", "correct": "c", "why": "y", "task": task}  # JSON null or [] is no task
    res = capture(sample_config, None, "correction", data)
    assert res.links == {}
    res = _run(sample_config.vault, "capture", "correction", *LESSON)
    assert res.returncode == 0 and res.stdout.startswith("corrections/")
