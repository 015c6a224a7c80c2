"""A repeat of an active rule's lesson is proposed as evidence for it, not
left out as contradicting it: its ``wrong`` names the very mistake the rule
warns about, so it reads close to the rule's text, but it reads closer still
to what the rule's evidence calls wrong. The contradiction check compares it
with that evidence (docs/learning-loop.md, section 4). Real store, real
model, the commands as their own processes on a copy of sample_vault/."""

from __future__ import annotations

import json
import subprocess
import sys

BRAINWORK = [sys.executable, "-c", "from brainwork.cli import main; main()"]
CHAIN_RULE = "rules/verify-full-cert-chain"
DAY = "2026-12-04"


def _run(vault, *args: str) -> str:
    done = subprocess.run([*BRAINWORK, *args, "--vault", str(vault)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_repeat_of_the_chain_rule_is_proposed_as_its_evidence(embedded_vault_copy):
    vault = embedded_vault_copy
    task = _run(vault, "capture", "task", "--title", "Rotate the staging TLS cert", "--request", "rotate staging cert",
                "--outcome", "success", "--created", DAY)
    assert task == f"tasks/{DAY}-rotate-the-staging-tls-cert"
    correction = _run(vault, "capture", "correction", "--task", task, "--created", DAY,
                      "--wrong", "Checked only the leaf certificate",
                      "--correct", "Check the full chain the server presents",
                      "--why", "Old Android clients fail on a missing intermediate")
    assert correction.startswith("corrections/")
    report = json.loads(_run(vault, "consolidate", "--dry-run", "--json"))
    mine = [c for c in report["clusters"] if correction in c["corrections"]]
    assert len(mine) == 1, report["clusters"]
    assert mine[0]["action"] == "evidence" and mine[0]["rule"] == CHAIN_RULE, mine[0]
    assert mine[0]["candidate"] is None
    # the rest of the sample vault's proposals are unchanged: nothing drafted
    assert report["candidates_created"] == 0
    assert not [c for c in report["clusters"] if c.get("action") == "supersede"]
