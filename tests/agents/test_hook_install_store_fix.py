"""``brainwork hook install`` writes the store it was given into every hook
command, and ``brainwork hook EVENT --store S`` uses it: a Stop hook
installed for a vault whose store lives elsewhere leaves no second store
(``VAULT/.brainwork``, with its model export) inside the vault."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
BRAINWORK = str(Path(sys.executable).with_name("brainwork"))


def _env(tmp_path: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "BRAINWORK_VAULT"}
    env["HOME"] = str(tmp_path / "home")
    return env


def test_installed_hooks_carry_the_store_and_the_stop_hook_uses_it(tmp_path: Path, sample_vault_copy: Path):
    vault, store = sample_vault_copy, tmp_path / "elsewhere store"
    project = tmp_path / "proj"
    project.mkdir()
    r = subprocess.run([BRAINWORK, "--store", str(store), "hook", "install", "--vault", str(vault), "--yes"],
                       capture_output=True, text=True, cwd=project, env=_env(tmp_path), timeout=120)
    assert r.returncode == 0, r.stderr
    hooks = json.loads((project / ".claude" / "settings.json").read_text())["hooks"]
    commands = {name: groups[0]["hooks"][0]["command"] for name, groups in hooks.items()}
    assert set(commands) == {"SessionStart", "UserPromptSubmit", "PreCompact", "Stop"}
    for command in commands.values():
        argv = shlex.split(command)
        assert argv[argv.index("--store") + 1] == str(store.resolve()), command
        assert argv[argv.index("--vault") + 1] == str(vault.resolve()), command

    # Claude Code runs the Stop command as written (a shell line)
    transcript = tmp_path / "t.jsonl"
    shutil.copy(FIXTURES / "10-backfill.jsonl", transcript)
    argv = shlex.split(commands["Stop"])
    assert argv[0] == "brainwork"
    payload = json.dumps({"session_id": "store-sess", "transcript_path": str(transcript), "hook_event_name": "Stop"})
    stop = subprocess.run([BRAINWORK, *argv[1:]], input=payload, capture_output=True, text=True,
                          env=_env(tmp_path), cwd=tmp_path, timeout=120)
    assert stop.returncode == 0 and stop.stderr == "", stop.stderr
    assert not (vault / ".brainwork").exists()  # no second store in the vault
    assert any((store / "hooks").iterdir())  # the hook's memory of the session is in the given store
    tasks = [p for p in (vault / "tasks").glob("*.md") if 'session: "store-sess"' in p.read_text(encoding="utf-8")
             or "session: store-sess" in p.read_text(encoding="utf-8")]
    assert len(tasks) == 1

    # installing again with the same store changes nothing; the option after the command works too
    again = subprocess.run([BRAINWORK, "hook", "install", "--vault", str(vault), "--store", str(store), "--yes"],
                           capture_output=True, text=True, cwd=project, env=_env(tmp_path), timeout=120)
    assert again.returncode == 0 and "already installed" in again.stdout, again.stdout + again.stderr


def test_the_default_store_is_not_spelt_out_and_every_event_takes_store(tmp_path: Path, sample_vault_copy: Path):
    project = tmp_path / "proj"
    project.mkdir()
    r = subprocess.run([BRAINWORK, "hook", "install", "--vault", str(sample_vault_copy), "--yes"],
                       capture_output=True, text=True, cwd=project, env=_env(tmp_path), timeout=120)
    assert r.returncode == 0, r.stderr
    hooks = json.loads((project / ".claude" / "settings.json").read_text())["hooks"]
    assert all("--store" not in g["hooks"][0]["command"] for groups in hooks.values() for g in groups)
    for event in ("session-start", "user-prompt-submit", "pre-compact", "stop", "install"):
        h = subprocess.run([BRAINWORK, "hook", event, "--help"], capture_output=True, text=True, timeout=60)
        assert h.returncode == 0 and "--store" in h.stdout, (event, h.stdout)
