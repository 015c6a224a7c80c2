"""``brainwork dream accept`` of a merge without --yes and without a terminal
to confirm on is refused like every other refusal: one line
``brainwork: error: ...`` and exit 2, nothing changed."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

SYSTEM = """---
title: {title}
type: system
---

The edge proxy terminates TLS for every public site and forwards to the app servers on port 8080.
It runs nginx on web-01 and web-02, configured from the infra repository by ansible.
"""
BRAINWORK = [sys.executable, "-c", "from brainwork.cli import main; main()"]


def _snapshot(vault):
    return {p.relative_to(vault).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in vault.rglob("*.md")}


def test_a_merge_without_yes_is_a_one_line_error_exit_2(make_vault, tmp_path):
    vault = make_vault({"systems/edge-proxy.md": SYSTEM.format(title="Edge proxy"),
                        "systems/edge-proxy-copy.md": SYSTEM.format(title="Edge proxy (copy)")})
    env = {k: v for k, v in os.environ.items() if k != "BRAINWORK_VAULT"}
    run = lambda *a: subprocess.run([*BRAINWORK, *a, "--vault", str(vault), "--store", str(tmp_path / "store")],  # noqa: E731
                                    capture_output=True, text=True, timeout=600, env=env, stdin=subprocess.DEVNULL)
    assert run("embed").returncode == 0
    out = run("dream", "--json")
    assert out.returncode == 0, out.stderr
    merge = next(p for p in json.loads(out.stdout)["proposals"] if p["kind"] == "merge")
    before = _snapshot(vault)
    refused = run("dream", "accept", str(merge["id"]))
    assert refused.returncode == 2, refused.stderr
    assert refused.stderr.startswith(f"brainwork: error: not applied: proposal {merge['id']} merges pages"), refused.stderr
    assert "--yes" in refused.stderr and refused.stderr.count("\n") == 1 and refused.stdout == ""
    assert _snapshot(vault) == before
    listed = json.loads(run("dream", "list", "--json").stdout)["proposals"]
    assert next(p for p in listed if p["id"] == merge["id"])["state"] == "pending"
    done = run("dream", "accept", str(merge["id"]), "--yes")
    assert done.returncode == 0, done.stderr
    assert len(_snapshot(vault)) == 1
