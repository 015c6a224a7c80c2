"""capture refuses a record holding a secret unless --allow-secret (then it
warns on stderr), and never puts a secret into the page's file name."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from brainwork.config import load_config
from brainwork.learn.capture import SecretInRecord, capture, file_stem

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
BRAINWORK = str(Path(sys.executable).parent / "brainwork")


def _files(vault: Path) -> list[str]:
    return sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))


def test_capture_refuses_then_allows_without_the_secret_in_the_name(make_vault, tmp_path) -> None:
    vault = make_vault({"tools/gh.md": "# gh\n"})
    config = load_config(vault, tmp_path / "store")
    data = {"title": f"Rotate token {TOKEN} for CI", "request": "rotate the CI token", "outcome": "success", "used": "gh"}
    with pytest.raises(SecretInRecord, match="GitHub Token") as info:
        capture(config, None, "task", data)
    assert TOKEN not in str(info.value)
    assert _files(vault) == ["tools/gh.md"]  # nothing written

    result = capture(config, None, "task", data, allow_secret=True)
    assert TOKEN not in result.path and "rotate-token-for-ci" in result.path
    assert result.secrets and all(TOKEN not in s for s in result.secrets)
    assert TOKEN in (vault / result.path).read_text()  # allowed: the record itself is kept whole

    assert file_stem("password: hunter2isme was reset") == "password-was-reset"
    assert file_stem("Renew the TLS cert") == "renew-the-tls-cert"


def test_capture_command_refuses_with_one_line_and_warns_when_allowed(make_vault, tmp_path) -> None:
    vault = make_vault({"x.md": "# x\n"})
    args = [BRAINWORK, "capture", "correction", "--vault", str(vault), "--store", str(tmp_path / "store"),
            "--wrong", "used the old key", "--correct", f"use OPENAI_API_KEY=sk-proj-{'Ab1' * 10}", "--why", "rotated"]
    env = {**os.environ, "BRAINWORK_STORE_WAIT": "0"}
    refused = subprocess.run(args, capture_output=True, text=True, env=env, timeout=120)
    assert refused.returncode == 2 and "--allow-secret" in refused.stderr and "sk-proj-Ab1" not in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert not (vault / "corrections").exists()
    allowed = subprocess.run([*args, "--allow-secret", "--print-json"], capture_output=True, text=True, env=env, timeout=120)
    assert allowed.returncode == 0, allowed.stderr
    assert "warning" in allowed.stderr and "OpenAI Token" in allowed.stderr and "sk-proj-Ab1" not in allowed.stderr
    out = json.loads(allowed.stdout)
    assert (vault / out["path"]).exists() and out["secrets"]
