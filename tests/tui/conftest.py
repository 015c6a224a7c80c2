"""Fixtures for workbench tests.

Pilot tests run on a copy of ``sample_vault/`` (the demo vault README opens);
SVG snapshots run on ``tests/tui/snapshot_vault/``, a small vault owned by
these tests, so that editing the demo vault does not invalidate snapshots.
Both are copied into ``tmp_path`` and the working directory is moved there,
so the status bar shows the same relative vault path on every machine.
The learning panes' tests run on ``learning_config`` (an embedded copy, see
learning_support.py); ``rules_config`` also fixes the Rules pane's today.

Pilot tests assert on what the screen shows and on the messages the app
posts (``run_test(message_hook=messages.append)``; helpers in
screen_support.py), never on private attributes of the app, its screens or
Textual: a test then follows the behaviour, not how a pane keeps its state.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from textual.worker import WorkerCancelled

from brainwork.config import Config, load_config

from screen_support import screen_text

SNAPSHOT_VAULT = Path(__file__).resolve().parent / "snapshot_vault"


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user themes or theme choice from the machine running the tests."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("BRAINWORK_THEME", raising=False)
    monkeypatch.chdir(tmp_path)


def _copy(src: Path, tmp_path: Path, name: str) -> Path:
    dst = tmp_path / name
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".brainwork"))
    return dst


@pytest.fixture
def fresh_sample_config(sample_vault_copy: Path) -> Config:
    """A copy of ``sample_vault/`` without a store: the workbench's first
    sync indexes it (for tests of that first start)."""
    return load_config(sample_vault_copy)


@pytest.fixture
def sample_config(request: pytest.FixtureRequest) -> Config:
    """A copy of ``sample_vault/`` with its store indexed and embedded and
    the model's ONNX export in it (tests/conftest.py ``embedded_vault_copy``),
    as a vault is after its first session: the workbench starts on an
    unchanged index and loads ONNX, and the learning panes do not embed the
    sample again in every test. With ``BRAINWORK_EMBEDDER=lexical`` (no model
    to build the template with) it is a copy without a store."""
    if os.environ.get("BRAINWORK_EMBEDDER", "").lower() == "lexical":
        return request.getfixturevalue("fresh_sample_config")
    return load_config(request.getfixturevalue("embedded_vault_copy"))


@pytest.fixture
def snapshot_config(tmp_path: Path) -> Config:
    return load_config(_copy(SNAPSHOT_VAULT, tmp_path, "vault"))


async def _settle(pilot, rounds: int = 50) -> None:
    """Wait until no worker runs and the message queues are drained
    (workers start other workers through messages, hence the loop)."""
    app = pilot.app
    quiet = 0
    for _ in range(rounds):
        try:
            await app.workers.wait_for_complete()
        except WorkerCancelled:
            pass  # an exclusive worker gave way to a newer one: normal
        await pilot.pause()
        if any(not w.is_finished for w in app.workers):
            quiet = 0
            continue
        quiet += 1
        if quiet >= 3:
            return
    raise AssertionError("workbench did not settle")


@pytest.fixture
def settle():
    """``await settle(pilot)``: see :func:`_settle`."""
    return _settle


@pytest.fixture
def palette(settle):
    """``await palette(pilot, "pane: rules")``: ctrl+p, type the command, enter."""

    async def run(pilot, command: str) -> None:
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*command)
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)

    return run


@pytest.fixture
def learning_config(embedded_vault_copy: Path) -> Config:
    """``sample_config`` for the learning panes' tests, which need the real
    model (skipped under ``BRAINWORK_EMBEDDER=lexical``)."""
    return load_config(embedded_vault_copy)


@pytest.fixture
def rules_config(learning_config: Config, monkeypatch: pytest.MonkeyPatch) -> Config:
    """``learning_config`` with the Rules pane's today fixed at 2026-11-01
    (rules age and go stale against it; the sample vault's dates are 2026)."""
    from brainwork.tui.screens.rules import RulesScreen

    monkeypatch.setattr(RulesScreen, "TODAY", "2026-11-01")
    return learning_config


@pytest.fixture
def open_rename(settle):
    """``text = await open_rename(pilot)``: the rename dialog of tools/certbot,
    opened from the neighbourhood of tasks/renew-cert (snapshot vault) with
    ``r``; returns what the screen shows then."""
    from brainwork.tui.modals.rename_prompt import RenamePrompt
    from brainwork.tui.widgets.neighbour_tree import NeighbourTree

    async def open_(pilot) -> str:
        app = pilot.app
        await settle(pilot)
        app.open_page("tasks/renew-cert")
        await settle(pilot)
        assert app.screen.query_one(NeighbourTree).select_page("tools/certbot")
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, RenamePrompt)
        return "\n".join(screen_text(app))

    return open_
