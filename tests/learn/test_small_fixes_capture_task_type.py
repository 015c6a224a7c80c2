"""A correction's task must be a task: a name that resolves to another
record (an earlier correction, by its title) is refused, naming what it
resolved to and its type; a name of no page keeps its own error."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from brainwork.config import load_config
from brainwork.errors import PageNotFound, UserError
from brainwork.learn.capture import capture

BRAINWORK = [sys.executable, "-c", "from brainwork.cli import main; main()"]
LESSON = {"wrong": "served the leaf", "correct": "serve the chain", "why": "strict clients fail"}


@pytest.fixture
def vault(make_vault):
    return make_vault({
        "tasks/2026-01-01-renew.md": "---\ntype: task\ntitle: Renew the web certificate\n---\n",
        "corrections/2026-01-01-leaf.md": "---\ntype: correction\ntitle: Served only the leaf\nwrong: a\ncorrect: b\n"
        "why: c\nstatus: open\ncorrects: '[[tasks/2026-01-01-renew]]'\n---\n",
        "notes/plain.md": "# A note\n",
    })


def _corrections(vault) -> list[str]:
    return sorted(p.name for p in (vault / "corrections").iterdir())


@pytest.mark.parametrize("name, shown, what", [
    ("Served only the leaf", "'Served only the leaf' is corrections/2026-01-01-leaf,", "a correction"),
    ("corrections/2026-01-01-leaf", "corrections/2026-01-01-leaf is", "a correction"),
    ("notes/plain", "notes/plain is", "a page of no type"),
])
def test_a_task_that_is_no_task_is_refused(vault, name, shown, what):
    config = load_config(vault)
    before = _corrections(vault)
    for key in ("task", "corrects"):
        with pytest.raises(UserError) as exc:
            capture(config, None, "correction", {key: name, **LESSON})
        msg = str(exc.value)
        assert f"{shown} {what}, not a task" in msg and "nothing was written" in msg, msg
    assert _corrections(vault) == before


def test_a_real_task_and_an_unknown_name_keep_their_behaviour(vault):
    config = load_config(vault)
    r = capture(config, None, "correction", {"task": "Renew the web certificate", **LESSON})
    assert r.links == {"corrects": ["tasks/2026-01-01-renew"]}
    with pytest.raises(PageNotFound, match="task: no page named 'nothing-like-it'"):
        capture(config, None, "correction", {"task": "nothing-like-it", **LESSON})


def test_cli_option_and_json(vault):
    env = dict(os.environ)
    env.pop("BRAINWORK_VAULT", None)
    before = _corrections(vault)
    out = subprocess.run([*BRAINWORK, "capture", "correction", "--vault", str(vault), "--task", "Served only the leaf",
                          "--wrong", "x", "--correct", "y", "--why", "z"], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 2 and "brainwork: error: the task this correction corrects: 'Served only the leaf' is " \
        "corrections/2026-01-01-leaf, a correction, not a task" in out.stderr, out.stderr
    out = subprocess.run([*BRAINWORK, "capture", "correction", "--vault", str(vault), "--json", "-"],
                         input=json.dumps({"task": "Served only the leaf", **LESSON}), capture_output=True, text=True,
                         timeout=120, env=env)
    assert out.returncode == 2 and "a correction, not a task" in out.stderr, out.stderr
    assert _corrections(vault) == before
