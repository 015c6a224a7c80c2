"""Crash safety: a process SIGKILLed between two file writes of an operation
leaves a journal; the next start (recover) completes the operation, or rolls
it back when someone changed one of its files meanwhile."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys

import pytest

from brainwork.config import load_config
from brainwork.ops import changeset as cs
from brainwork.store import Store

from ops_helpers import snapshot

FILES = {
    "Hub.md": "# Hub\n",
    **{f"n{i}.md": f"note {i} links [[Hub]] and [[Hub|the hub]]\n" for i in range(6)},
}


def _cli(vault, store, *args, crash_after: int | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop(cs.CRASH_ENV, None)
    if crash_after is not None:
        env[cs.CRASH_ENV] = str(crash_after)
    return subprocess.run(
        [sys.executable, "-c", "from brainwork.cli import main; main()", "--vault", str(vault), "--store", str(store), *args],
        env=env, capture_output=True, text=True, timeout=120,
    )


@pytest.fixture
def reference(make_vault, tmp_path):
    """The vault after a clean (uncrashed) rename, for comparison."""
    ref = make_vault(FILES, name="reference")
    r = _cli(ref, tmp_path / "ref-store", "rename", "Hub", "Center")
    assert r.returncode == 0, r.stderr
    return snapshot(ref)


def test_kill_mid_rename_is_completed_at_next_start(make_vault, tmp_path, reference) -> None:
    vault = make_vault(FILES, name="v")
    store_dir = tmp_path / "store"
    original = snapshot(vault)
    r = _cli(vault, store_dir, "rename", "Hub", "Center", crash_after=3)
    assert r.returncode == -signal.SIGKILL
    half = snapshot(vault)
    assert half != original and half != reference  # really stopped halfway
    assert (store_dir / cs.JOURNAL).exists()

    config = load_config(vault, store_dir)
    with Store(config.store) as store:
        message = cs.recover(config, store)
        assert message and message.startswith("completed an interrupted apply of rename")
        assert snapshot(vault) == reference
        assert not (store_dir / cs.JOURNAL).exists()
        [op] = cs.history(store)
        assert op.kind == "rename" and op.state == "done"
        cs.undo(config, store)  # the recovered operation is a normal undo-log entry
        assert snapshot(vault) == original


def test_kill_mid_undo_is_completed_by_the_next_command(make_vault, tmp_path) -> None:
    vault = make_vault(FILES, name="v")
    store_dir = tmp_path / "store"
    original = snapshot(vault)
    assert _cli(vault, store_dir, "rename", "Hub", "Center").returncode == 0
    r = _cli(vault, store_dir, "undo", crash_after=2)
    assert r.returncode == -signal.SIGKILL
    assert snapshot(vault) != original
    r = _cli(vault, store_dir, "log", "--json")  # any command recovers first
    assert r.returncode == 0, r.stderr
    assert "completed an interrupted undo of rename" in r.stderr
    assert snapshot(vault) == original
    assert '"state": "undone"' in r.stdout


def test_foreign_change_during_crash_rolls_back(make_vault, tmp_path) -> None:
    vault = make_vault(FILES, name="v")
    store_dir = tmp_path / "store"
    original = snapshot(vault)
    r = _cli(vault, store_dir, "rename", "Hub", "Center", crash_after=3)
    assert r.returncode == -signal.SIGKILL
    changed = [p for p, data in snapshot(vault).items() if original.get(p) != data and p in original]
    victim = changed[0]
    (vault / victim).write_text("a person edited this after the crash\n")
    config = load_config(vault, store_dir)
    with Store(config.store) as store:
        message = cs.recover(config, store)
        assert message.startswith("rolled back") and victim in message
        after = snapshot(vault)
        assert after[victim] == b"a person edited this after the crash\n"
        assert {p: d for p, d in after.items() if p != victim} == {p: d for p, d in original.items() if p != victim}
        assert cs.history(store) == []


def test_torn_journal_is_discarded(make_vault, tmp_path) -> None:
    vault = make_vault(FILES, name="v")
    config = load_config(vault, tmp_path / "store")
    with Store(config.store) as store:
        (config.store / cs.JOURNAL).write_text('{"token": "x", "chan')
        assert "discarded an unreadable operation journal" in cs.recover(config, store)
        assert cs.recover(config, store) is None
    assert snapshot(vault) == {k: v.encode() for k, v in FILES.items()}


def test_kill_after_the_files_before_the_graph_update_is_resynced(make_vault, tmp_path, reference) -> None:
    """The window after an operation's files are written and recorded but
    before the graph update commits: the journal is still there, the next
    command re-syncs, and the store equals a fresh index of the vault."""
    vault = make_vault(FILES, name="v")
    store_dir = tmp_path / "store"
    assert _cli(vault, store_dir, "index").returncode == 0
    env = dict(os.environ, **{cs.CRASH_BEFORE_SYNC_ENV: "1"})
    r = subprocess.run(
        [sys.executable, "-c", "from brainwork.cli import main; main()", "--vault", str(vault), "--store",
         str(store_dir), "rename", "Hub", "Center"], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == -signal.SIGKILL
    assert snapshot(vault) == reference  # every file written
    assert (store_dir / cs.JOURNAL).exists()  # the journal outlived the missing graph update
    (vault / ".bw-leftover.tmp").write_bytes(b"half")  # what a kill inside atomic_write leaves

    shown = _cli(vault, store_dir, "show", "Center", "--json")
    assert shown.returncode == 0, shown.stderr
    assert not (store_dir / cs.JOURNAL).exists()
    assert not (vault / ".bw-leftover.tmp").exists()
    fresh = _cli(vault, tmp_path / "fresh-store", "show", "Center", "--json")
    import json

    def links(out: str) -> list:
        edges = json.loads(out)["edges"]
        return sorted(json.dumps(e, sort_keys=True) for e in (edges["in"] if isinstance(edges, dict) and "in" in edges else edges))

    assert links(shown.stdout) == links(fresh.stdout) and links(shown.stdout)
