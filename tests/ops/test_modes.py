"""Permission bits through operations: a renamed page keeps its source's
bits through rename, undo, redo and crash recovery; a page without its
owner write bit is refused before anything is written."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys

import pytest

from brainwork.config import load_config
from brainwork.errors import UserError
from brainwork.index.sync import sync
from brainwork.ops import changeset as cs
from brainwork.ops.journal import FileChange, pack, unpack
from brainwork.ops.rename import rename
from brainwork.store import Store
from brainwork.vault.write import atomic_write

from ops_helpers import snapshot

FILES = {
    "Hub.md": "# Hub\n",
    **{f"n{i}.md": f"note {i} links [[Hub]]\n" for i in range(3)},
}


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("bits", [0o640, 0o600])
def test_rename_undo_redo_keep_the_bits(make_vault, tmp_path, bits) -> None:
    vault = make_vault(FILES, name="v")
    os.chmod(vault / "Hub.md", bits)
    os.chmod(vault / "n1.md", 0o600)
    config = load_config(vault, tmp_path / "store")
    with Store(config.store) as store:
        sync(config, store)
        rename(config, store, "Hub", "Center")
        assert _mode(vault / "Center.md") == bits and not (vault / "Hub.md").exists()
        assert _mode(vault / "n1.md") == 0o600  # rewritten in place, kept
        cs.undo(config, store)
        assert _mode(vault / "Hub.md") == bits and not (vault / "Center.md").exists()
        assert _mode(vault / "n1.md") == 0o600
        cs.redo(config, store)
        assert _mode(vault / "Center.md") == bits


def test_read_only_page_is_refused_and_nothing_written(make_vault, tmp_path) -> None:
    vault = make_vault(FILES, name="v")
    os.chmod(vault / "Hub.md", 0o444)
    config = load_config(vault, tmp_path / "store")
    with Store(config.store) as store:
        sync(config, store)
        before = snapshot(vault)
        with pytest.raises(UserError, match=r"Hub\.md is read-only; make it writable to rename"):
            rename(config, store, "Hub", "Center")
        assert snapshot(vault) == before and _mode(vault / "Hub.md") == 0o444
        # A page that links to it, read-only, blocks the rename too.
        os.chmod(vault / "Hub.md", 0o644)
        os.chmod(vault / "n2.md", 0o444)
        with pytest.raises(UserError, match=r"n2\.md is read-only"):
            rename(config, store, "Hub", "Center")
        assert snapshot(vault) == before
        # Undo refuses a file made read-only after the operation.
        os.chmod(vault / "n2.md", 0o644)
        rename(config, store, "Hub", "Center")
        os.chmod(vault / "Center.md", 0o444)
        after = snapshot(vault)
        with pytest.raises(UserError, match=r"cannot undo .*Center\.md is read-only; make it writable to undo"):
            cs.undo(config, store)
        assert snapshot(vault) == after


def test_atomic_write_refuses_a_read_only_file_and_takes_a_mode_for_a_new_one(tmp_path) -> None:
    page = tmp_path / "a.md"
    page.write_bytes(b"old\n")
    os.chmod(page, 0o444)
    with pytest.raises(UserError, match="a.md is read-only"):
        atomic_write(tmp_path, "a.md", b"new\n")
    assert page.read_bytes() == b"old\n"
    full = atomic_write(tmp_path, "b.md", b"new\n", mode=0o600)
    assert _mode(full) == 0o600


def test_journal_keeps_modes_and_reads_rows_without_them() -> None:
    changes = [FileChange("a.md", b"x", None, 0o640, None), FileChange("b.md", None, b"y", None, 0o600)]
    meta, back = unpack(pack({"k": 1}, changes))
    assert back == changes and meta == {"k": 1}
    assert back[0].reverse() == FileChange("a.md", None, b"x", None, 0o640)
    # A change set written before modes were kept: rows of three.
    import json
    head = json.dumps({"files": [["a.md", 1, -1]]}).encode()
    old = b"BWC1" + len(head).to_bytes(8, "big") + head + b"x"
    assert unpack(old)[1] == [FileChange("a.md", b"x", None)]


def _cli(vault, store, *args, crash_after: int) -> subprocess.CompletedProcess:
    env = dict(os.environ, **{cs.CRASH_ENV: str(crash_after)})
    return subprocess.run(
        [sys.executable, "-c", "from brainwork.cli import main; main()", "--vault", str(vault), "--store", str(store), *args],
        env=env, capture_output=True, text=True, timeout=120,
    )


@pytest.mark.parametrize("foreign", [False, True])
def test_recovery_keeps_the_bits(make_vault, tmp_path, foreign) -> None:
    """Killed after the old name is deleted (deletions go first): recovery
    creates the new name (or, rolling back, the old one) with the source's bits."""
    vault = make_vault(FILES, name="v")
    os.chmod(vault / "Hub.md", 0o640)
    store_dir = tmp_path / "store"
    r = _cli(vault, store_dir, "rename", "Hub", "Center", crash_after=1)
    assert r.returncode == -signal.SIGKILL, r.stderr
    assert not (vault / "Hub.md").exists() and not (vault / "Center.md").exists()
    if foreign:
        (vault / "n0.md").write_text("someone else's words\n")
    config = load_config(vault, store_dir)
    with Store(config.store) as store:
        cs.recover(config, store)
    if foreign:
        assert _mode(vault / "Hub.md") == 0o640 and not (vault / "Center.md").exists()
    else:
        assert _mode(vault / "Center.md") == 0o640 and not (vault / "Hub.md").exists()
