"""``brainwork --store S hook EVENT --vault V`` uses the store S, as every
other command does, instead of opening (and creating) ``V/.brainwork``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

BRAINWORK = str(Path(sys.executable).with_name("brainwork"))


def test_the_prompt_hook_uses_the_store_given_before_the_command(tmp_path: Path, exported_template: Path):
    vault, store = tmp_path / "vault", tmp_path / "store"
    shutil.copytree(exported_template, vault, ignore=shutil.ignore_patterns(".brainwork"))
    shutil.copytree(exported_template / ".brainwork", store)
    env = {k: v for k, v in os.environ.items() if k not in ("BRAINWORK_VAULT", "BRAINWORK_EMBEDDER")}
    payload = json.dumps({"session_id": "abc", "prompt": "renew the tls cert on api", "cwd": str(tmp_path)})
    r = subprocess.run([BRAINWORK, "--store", str(store), "hook", "user-prompt-submit", "--vault", str(vault)],
                       input=payload, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    context = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "tasks/2026-09-02-renew-cert-billing-api" in context
    assert not (vault / ".brainwork").exists()
