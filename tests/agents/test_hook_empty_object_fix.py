"""A hook given ``{}`` on stdin says the JSON object is empty, not that
stdin is empty (real ``brainwork hook`` subprocesses); a blank stdin still
says stdin is empty. Either way: one line on stderr, exit 0, and only the
session start answers (with the doctrine)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BRAINWORK = str(Path(sys.executable).with_name("brainwork"))


def _hook(event: str, stdin: str, vault: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "BRAINWORK_VAULT"}
    return subprocess.run([BRAINWORK, "hook", event, "--vault", str(vault)], input=stdin, capture_output=True,
                          text=True, env=env, timeout=120)


@pytest.mark.parametrize("event", ["session-start", "user-prompt-submit", "pre-compact", "stop"])
@pytest.mark.parametrize(("stdin", "says"), [
    ("{}", "the hook's JSON object is empty"),
    ("  {  }\n", "the hook's JSON object is empty"),
    ("", "stdin is empty"),
    (" \n", "stdin is empty"),
])
def test_an_empty_object_is_not_called_an_empty_stdin(event, stdin, says, sample_vault_copy):
    r = _hook(event, stdin, sample_vault_copy)
    assert r.returncode == 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"brainwork hook {event}: {says}"), r.stderr
    if "JSON object" in says:
        assert "stdin is empty" not in r.stderr
    if event == "session-start":
        assert "rules/verify-full-cert-chain" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    else:
        assert r.stdout == ""
