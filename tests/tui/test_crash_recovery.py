"""The workbench finishes an operation interrupted by a crash before it
reads the vault (the same recovery the command line runs)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from brainwork.config import load_config
from brainwork.ops import changeset as cs
from brainwork.tui.app import BrainworkApp

FILES = {
    "Hub.md": "# Hub\n",
    **{f"n{i}.md": f"note {i} links [[Hub]] and [[Hub|the hub]]\n" for i in range(6)},
}


async def test_workbench_start_recovers_a_killed_rename(tmp_path: Path, settle) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    for name, text in FILES.items():
        (vault / name).write_text(text, encoding="utf-8")
    env = dict(os.environ, **{cs.CRASH_ENV: "3"})
    run = subprocess.run(
        [sys.executable, "-c", "from brainwork.cli import main; main()", "--vault", str(vault), "rename", "Hub", "Center"],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == -signal.SIGKILL
    config = load_config(vault)
    assert (config.store / cs.JOURNAL).exists()

    app = BrainworkApp(config)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert not (config.store / cs.JOURNAL).exists()
    texts = [(vault / f"n{i}.md").read_text(encoding="utf-8") for i in range(6)]
    # Rolled forward: every note now links the renamed page, none is half-done.
    assert all("[[Hub]]" not in t for t in texts)
    assert len(set(t.replace(str(i), "") for i, t in enumerate(texts))) == 1
