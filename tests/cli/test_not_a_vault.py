"""Commands in a folder that is not a vault (no pages, no store) fail with
exit 2 and one line, and create nothing there."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BRAINWORK = str(Path(sys.executable).parent / "brainwork")


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "BRAINWORK_VAULT"}
    return subprocess.run([BRAINWORK, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120)


def test_commands_refuse_a_folder_without_pages_or_store(tmp_path: Path) -> None:
    folder = tmp_path / "not-a-vault"
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "main.py").write_text("print('hi')\n")
    (folder / ".hidden").mkdir()
    (folder / ".hidden" / "x.md").write_text("# hidden pages do not make a vault\n")
    for args in (["stats"], ["check"], ["doctrine"], ["index"], ["show", "x"]):
        r = _run(folder, *args)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert r.stderr.count("\n") == 1 and "is not a vault" in r.stderr, (args, r.stderr)
    assert not (folder / ".brainwork").exists()


def test_a_folder_with_one_page_is_a_vault(tmp_path: Path) -> None:
    folder = tmp_path / "vault"
    (folder / "notes").mkdir(parents=True)
    (folder / "notes" / "First.md").write_text("# First\r\n")
    r = _run(folder, "stats")
    assert r.returncode == 0, r.stderr
    assert (folder / ".brainwork").is_dir()
