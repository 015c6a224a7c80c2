"""``brainwork mcp install``: the diff, the merge that keeps other servers
and keys, idempotence, and the files it refuses to touch. Real subprocesses,
with HOME pointed into tmp_path for the user scope."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BRAINWORK = [sys.executable, "-c", "from brainwork.cli import main; main()"]


def _run(*args: str, cwd: Path, home: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["HOME"] = str(home)
    env.pop("BRAINWORK_VAULT", None)
    return subprocess.run([*BRAINWORK, *args], cwd=cwd, capture_output=True, text=True, input=stdin or "",
                          timeout=120, env=env)


@pytest.fixture
def places(tmp_path, make_vault):
    vault = make_vault({"notes/a.md": "# A\n"}, name="agent-memory")
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    return vault, project, home


def test_project_scope_shows_the_diff_keeps_other_servers_and_is_idempotent(places):
    vault, project, home = places
    mcp_json = project / ".mcp.json"
    original = {"mcpServers": {"github": {"command": "npx", "args": ["-y", "server-github"], "env": {"T": "x"}}},
                "other": [1, 2]}
    mcp_json.write_text(json.dumps(original, indent=2) + "\n", encoding="utf-8")

    out = _run("mcp", "install", "--vault", str(vault), "--yes", cwd=project, home=home)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"--- {mcp_json}\n+++ {mcp_json}\n")
    added = [line for line in out.stdout.splitlines() if line.startswith("+") and not line.startswith("+++")]
    removed = [line for line in out.stdout.splitlines() if line.startswith("-") and not line.startswith("---")]
    assert '+    "brainwork": {' in added and all("github" not in line for line in added)
    assert removed == []  # the entry is added; no line of the file is taken away

    data = json.loads(mcp_json.read_text(encoding="utf-8"))
    assert data["mcpServers"]["github"] == original["mcpServers"]["github"]
    assert data["other"] == [1, 2]
    assert list(data) == ["mcpServers", "other"]
    assert data["mcpServers"]["brainwork"] == {"command": "brainwork", "args": ["mcp", "--vault", str(vault.resolve())]}

    before = mcp_json.read_bytes()
    mtime = mcp_json.stat().st_mtime_ns
    again = _run("mcp", "install", "--vault", str(vault), "--yes", cwd=project, home=home)
    assert again.returncode == 0, again.stderr
    assert "already configured" in again.stdout and "+++" not in again.stdout
    assert mcp_json.read_bytes() == before and mcp_json.stat().st_mtime_ns == mtime
    assert not (home / ".claude.json").exists()  # the project scope writes nowhere else
    assert sorted(p.name for p in project.iterdir()) == [".mcp.json"]


def test_project_scope_creates_the_file(places):
    vault, project, home = places
    out = _run("mcp", "install", "--vault", str(vault), "--scope", "project", "--yes", cwd=project, home=home)
    assert out.returncode == 0, out.stderr
    assert "--- /dev/null" in out.stdout
    data = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))
    assert data == {"mcpServers": {"brainwork": {"command": "brainwork", "args": ["mcp", "--vault", str(vault.resolve())]}}}


def test_user_scope_merges_into_claude_json_and_keeps_its_mode(places):
    vault, project, home = places
    claude = home / ".claude.json"
    state = {"numStartups": 12, "projects": {"/x": {"mcpServers": {"local-one": {"command": "a"}}}},
             "mcpServers": {"context7": {"type": "stdio", "command": "npx", "args": ["ctx7"]}}, "tipsHistory": {}}
    claude.write_text(json.dumps(state, indent=2), encoding="utf-8")  # no trailing newline, as Claude Code writes it
    claude.chmod(0o600)

    out = _run("mcp", "install", "--vault", str(vault), "--scope", "user", "--yes", cwd=project, home=home)
    assert out.returncode == 0, out.stderr
    assert f"+++ {claude}" in out.stdout
    text = claude.read_text(encoding="utf-8")
    assert not text.endswith("\n")
    data = json.loads(text)
    assert data["mcpServers"]["context7"] == state["mcpServers"]["context7"]
    assert data["projects"] == state["projects"] and data["numStartups"] == 12
    assert data["mcpServers"]["brainwork"]["args"] == ["mcp", "--vault", str(vault.resolve())]
    assert claude.stat().st_mode & 0o777 == 0o600
    assert not (project / ".mcp.json").exists()
    assert sorted(p.name for p in home.iterdir()) == [".claude.json"]  # no temp file left, no backup written


def test_a_changed_vault_replaces_only_the_brainwork_entry(places, make_vault):
    vault, project, home = places
    other = make_vault({"b.md": "# B\n"}, name="other-memory")
    assert _run("mcp", "install", "--vault", str(vault), "--yes", cwd=project, home=home).returncode == 0
    out = _run("mcp", "install", "--vault", str(other), "--yes", cwd=project, home=home)
    assert out.returncode == 0, out.stderr
    assert f'-        "{vault.resolve()}"' in out.stdout and f'+        "{other.resolve()}"' in out.stdout
    assert "replaced the previous brainwork entry" in out.stderr
    data = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))
    assert data["mcpServers"]["brainwork"]["args"][-1] == str(other.resolve())


def test_without_a_terminal_or_yes_nothing_is_written(places):
    vault, project, home = places
    out = _run("mcp", "install", "--vault", str(vault), cwd=project, home=home, stdin="y\n")
    assert out.returncode == 2
    assert "+++" in out.stdout  # the diff is still shown
    assert out.stderr.strip().splitlines()[-1].startswith("brainwork: error: nothing written")
    assert not (project / ".mcp.json").exists()


@pytest.mark.parametrize("content, message", [
    ("{not json", "is not valid JSON"),
    ("[1, 2]", "does not hold a JSON object"),
    ('{"mcpServers": []}', "mcpServers is not an object"),
])
def test_a_file_it_cannot_read_is_left_alone(places, content, message):
    vault, project, home = places
    (project / ".mcp.json").write_text(content, encoding="utf-8")
    out = _run("mcp", "install", "--vault", str(vault), "--yes", cwd=project, home=home)
    assert out.returncode == 2 and message in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert (project / ".mcp.json").read_text(encoding="utf-8") == content


def test_the_vault_must_be_named(places):
    vault, project, home = places
    out = _run("mcp", "install", "--yes", cwd=vault, home=home)
    assert out.returncode == 2 and "--vault" in out.stderr
    assert not (vault / ".mcp.json").exists()
