"""Recall's least budget is one constant for the CLI and the library, and
the line counting what was left out is never cut: at any budget an answer
is whole lines."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from brainwork.errors import UserError
from brainwork.learn.recall import RecallItem, _more, fit, recall
from brainwork.thresholds import RECALL_MIN_BUDGET_CHARS

BRAINWORK = [sys.executable, "-c", "from brainwork.cli import main; main()"]
DESC = "renew TLS certificate"


def _entries() -> list[tuple[str, RecallItem | None]]:
    lines = [(f"# Recall: {DESC}", None), ("Prior tasks that bear on this one, best first.", None)]
    for k in range(1, 6):
        pid = f"tasks/2026-09-0{k}-renew-cert-{k}"
        lines.append((f"## {k}. Renew certificate {k} — {pid} [1.{k}0]", RecallItem("task", pid, "t", "t")))
        lines.append((f"- lesson (corrections/c{k}): served the leaf only -> serve fullchain.pem", None))
    return lines


def test_fit_never_cuts_a_line_at_any_budget():
    entries = _entries()
    whole = {line for line, _ in entries} | {_more(n) for n in range(1, len(entries) + 1)}
    for budget in range(1, 700):
        text, served, left = fit(entries, budget)
        assert len(text) <= budget, budget
        assert all(line in whole for line in text.splitlines()), (budget, text)
        if left and text:
            assert text.splitlines()[-1] == _more(left), (budget, text)
        assert all(x.id in text for x in served)


def test_the_left_out_line_fits_at_the_least_budget():
    entries = _entries()
    text, _, left = fit(entries, RECALL_MIN_BUDGET_CHARS)
    assert left and text.splitlines()[-1] == _more(left)


def test_recall_refuses_a_budget_under_the_least(embedded_sample, embedder):
    config, store = embedded_sample
    with pytest.raises(UserError, match=f"at least {RECALL_MIN_BUDGET_CHARS} characters, got 199"):
        recall(config, store, DESC, budget=RECALL_MIN_BUDGET_CHARS - 1, embedder=embedder, record=False)
    r = recall(config, store, DESC, budget=RECALL_MIN_BUDGET_CHARS, embedder=embedder, record=False)
    assert r.chars <= RECALL_MIN_BUDGET_CHARS and r.left_out
    assert r.text.splitlines()[-1] == _more(r.left_out)


def test_cli_budget_bound_and_whole_last_line(embedded_vault_copy):
    env = dict(os.environ)
    env.pop("BRAINWORK_VAULT", None)
    run = lambda b: subprocess.run(  # noqa: E731
        [*BRAINWORK, "recall", "--vault", str(embedded_vault_copy), "--no-record", "--budget", str(b), "--", DESC],
        capture_output=True, text=True, timeout=300, env=env)
    for low in (1, 50, RECALL_MIN_BUDGET_CHARS - 1):
        out = run(low)
        assert out.returncode == 2 and f"x>={RECALL_MIN_BUDGET_CHARS}" in out.stderr, (low, out.stderr)
        assert out.stdout == ""
    out = run(RECALL_MIN_BUDGET_CHARS)
    assert out.returncode == 0, out.stderr
    last = out.stdout.splitlines()[-1]
    assert len(out.stdout) <= RECALL_MIN_BUDGET_CHARS
    assert last.startswith("… ") and last.endswith("left out (budget reached: `brainwork recall --budget N`)"), out.stdout
