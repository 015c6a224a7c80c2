"""``mcp install`` and ``hook install`` write entries that name ``brainwork``
bare; both warn, in the same words, when this PATH has no such command,
and say nothing when it has one. Real subprocesses; HOME in tmp_path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BRAINWORK = [sys.executable, "-c", "from brainwork.cli import main; main()"]
WARNING = "brainwork: warning: `brainwork` is not on PATH; Claude Code will not find the command"


def _install(kind: str, vault: Path, cwd: Path, path: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, HOME=str(cwd / "home"), PATH=path)
    env.pop("BRAINWORK_VAULT", None)
    return subprocess.run([*BRAINWORK, kind, "install", "--vault", str(vault), "--scope", "project", "--yes"],
                          cwd=cwd, capture_output=True, text=True, timeout=120, env=env)


@pytest.mark.parametrize("kind", ["mcp", "hook"])
def test_install_warns_when_brainwork_is_not_on_path(kind, tmp_path, make_vault):
    vault = make_vault({"notes/a.md": "# A\n"}, name="agent-memory")
    bare = tmp_path / "bare"
    bare.mkdir()
    out = _install(kind, vault, bare, "/usr/bin:/bin")
    assert out.returncode == 0, out.stderr
    assert WARNING in out.stderr, out.stderr

    found = tmp_path / "found"
    (found / "bin").mkdir(parents=True)
    fake = found / "bin" / "brainwork"
    fake.write_text("#!/bin/sh\n", encoding="utf-8")
    fake.chmod(0o755)
    out = _install(kind, vault, found, f"{found / 'bin'}:/usr/bin:/bin")
    assert out.returncode == 0, out.stderr
    assert "wrote " in out.stdout + out.stderr and "not on PATH" not in out.stderr, out.stderr
