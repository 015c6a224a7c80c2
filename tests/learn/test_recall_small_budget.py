"""A recall budget too small for the intro and the best task's full line
still serves the best task: its heading, shortened, after the header, and
the line counting what was left out; the answer stays within the budget."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from brainwork.learn.recall import SQUEEZED_TITLE_CHARS, RecallItem, _more, fit, recall

DESC = "Renew the TLS certificate for api.acme.example"
BRAINWORK = [sys.executable, "-c", "from brainwork.cli import main; main()"]


@pytest.mark.parametrize("budget", [200, 250, 300, 400])  # 200: the MCP tool's least
def test_a_small_budget_serves_the_best_task(embedded_sample, embedder, budget):
    config, store = embedded_sample
    full = recall(config, store, DESC, embedder=embedder, record=False)
    best = full.tasks[0]
    small = recall(config, store, DESC, budget=budget, embedder=embedder, record=False)
    assert small.chars == len(small.text) <= budget, small.text
    lines = small.text.splitlines()
    assert lines[0].startswith("# Recall: Renew the TLS")
    heading = next((line for line in lines if line.startswith("## 1. ")), None)
    assert heading is not None and (heading.endswith(f" — {best.id}") or f" — {best.id} [" in heading), lines
    title = heading[len("## 1. "):].split(" — ")[0].rstrip("…")
    assert len(title) >= SQUEEZED_TITLE_CHARS and (best.title.startswith(title) or title.startswith(best.title)), heading
    assert best.id in small.served
    assert lines[-1].startswith(f"… {small.left_out} more line") and small.truncated


def test_a_budget_with_room_keeps_the_plain_layout(embedded_sample, embedder):
    config, store = embedded_sample
    r = recall(config, store, DESC, budget=900, embedder=embedder, record=False)
    assert r.text.splitlines()[1].startswith("Prior tasks that bear on this one")


def test_too_small_for_any_title_stays_a_header():
    # Recall refuses a budget this small; fit() still keeps to it with whole lines.
    heading = "## 1. Renew TLS certificate for api.acme.example — tasks/2026-09-02-renew-cert-billing-api [1.45]"
    entries = [("# Recall: " + DESC, None), ("Prior tasks that bear on this one.", None),
               (heading, RecallItem("task", "tasks/2026-09-02-renew-cert-billing-api", "Renew", "Renew"))]
    squeeze = lambda room: None  # noqa: E731 -- no room for a dozen characters of the title
    text, served, left = fit(entries, 130, keep=2, squeeze=squeeze)
    assert len(text) <= 130 and "## 1." not in text and not served and left == 2
    assert text.splitlines() == ["# Recall: " + DESC, _more(2)]


def test_cli_recall_budget_300(embedded_vault_copy):
    env = dict(os.environ)
    env.pop("BRAINWORK_VAULT", None)
    out = subprocess.run([*BRAINWORK, "recall", "--vault", str(embedded_vault_copy), "--budget", "300", "--", "renew edge cert"],
                         capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(out.stdout) <= 300 and lines[0] == "# Recall: renew edge cert", out.stdout
    assert lines[1].startswith("## 1. ") and " — tasks/" in lines[1], out.stdout
