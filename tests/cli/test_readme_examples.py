"""README examples run as typed: the daily workflow's capture commands
chain on a small vault, and the workbench paragraph names every pane."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def _daily_workflow_capture_block() -> str:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Daily workflow", 1)[1]
    return re.search(r"```bash\n(.*?)```", section, re.S).group(1)


def test_daily_workflow_capture_commands_run_as_typed(make_vault, tmp_path) -> None:
    vault = make_vault({"tools/certbot.md": "# certbot\n"})
    block = _daily_workflow_capture_block()
    # The JSON line's "..." task is a placeholder for the reader; the rest runs as written.
    commands = "\n".join(l for l in block.replace("\\\n", " ").splitlines() if "--json -" not in l)
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    r = subprocess.run(["bash", "-e", "-c", commands], cwd=vault, env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert list((vault / "corrections").glob("*.md")) and list((vault / "tasks").glob("*renew-tls-cert-for-api.md"))


def test_readme_names_every_workbench_pane() -> None:
    from brainwork.tui.panes import PANES

    text = README.read_text(encoding="utf-8")
    for pane in PANES:
        assert f"**{pane.key} {pane.title}**" in text, pane.title
