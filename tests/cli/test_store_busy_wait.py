"""Commands wait a little for a store another process holds (parallel
``brainwork capture`` calls must not fail at once with "in use"), then give
up with one line."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

def _brainwork(*args: str, wait: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("BRAINWORK_STORE_WAIT", None)
    if wait is not None:
        env["BRAINWORK_STORE_WAIT"] = wait
    return subprocess.run(
        [sys.executable, "-c", "from brainwork.cli import main; main()", *args],
        capture_output=True, text=True, timeout=120, env=env,
    )


@pytest.fixture
def vault(make_vault):
    return make_vault({"a.md": "# A\n[[b]]\n", "b.md": "# B\n"})


def test_a_command_waits_for_a_short_holder(vault, tmp_path, hold_store):
    store = tmp_path / "s"
    holder = hold_store(store, 1.5)
    try:
        out = _brainwork("stats", "--json", "--vault", str(vault), "--store", str(store))
    finally:
        holder.wait(timeout=30)
    assert out.returncode == 0, out.stderr
    assert '"pages": 2' in out.stdout and out.stderr == ""  # no notice off a terminal


def test_a_command_gives_up_after_the_wait_with_one_line(vault, tmp_path, hold_store):
    store = tmp_path / "s"
    holder = hold_store(store, 30)
    try:
        started = time.monotonic()
        out = _brainwork("index", "--vault", str(vault), "--store", str(store), wait="1")
        took = time.monotonic() - started
    finally:
        holder.kill()
        holder.wait(timeout=30)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        f"brainwork: error: the store {store / 'graph.kuzu'} is in use by another brainwork process; close it and try again"
    ]
    assert 1 <= took < 20


def test_bad_wait_setting_is_a_user_error(vault, tmp_path):
    out = _brainwork("stats", "--vault", str(vault), "--store", str(tmp_path / "s"), wait="soon")
    assert out.returncode == 2
    assert out.stderr.strip() == "brainwork: error: BRAINWORK_STORE_WAIT must be a number of seconds, not 'soon'"
