"""Permission bits through operations: a renamed page keeps its source's
bits through rename, undo, redo and crash recovery; a split's new pages get
the bits of a new file; a page without its owner write bit is refused
before anything is written, by an operation, undo, crash recovery and the
store-free replace of a captured page."""

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
from brainwork.ops import files
from brainwork.ops.journal import CREATED_DIR, FileChange, JournalEntry, pack, read_journal, replace_file, unpack, write_journal
from brainwork.ops.recovery import recover_journal
from brainwork.ops.rename import rename
from brainwork.ops.split import split_page
from brainwork.store import Store
from brainwork.vault.write import NEW_FILE_MODE, atomic_write

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


def _cli(vault, store, *args, crash_after: int | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != cs.CRASH_ENV}
    if crash_after is not None:
        env[cs.CRASH_ENV] = str(crash_after)
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


def test_split_pages_get_the_new_file_mode(make_vault, tmp_path) -> None:
    """A split's sections are new files: NEW_FILE_MODE (0666 less the
    umask), not the bits of the page they came from."""
    bits = 0o640 if NEW_FILE_MODE != 0o640 else 0o600
    vault = make_vault({"Big.md": "# Big\nintro\n\n## A\na\n\n## B\nb\n"}, name="v")
    os.chmod(vault / "Big.md", bits)
    config = load_config(vault, tmp_path / "store")
    with Store(config.store) as store:
        sync(config, store)
        new = [vault / s.path for s in split_page(config, store, "Big").plan.sections]
        assert len(new) == 2 and [_mode(p) for p in new] == [NEW_FILE_MODE] * 2
        assert _mode(vault / "Big.md") == bits  # rewritten in place, kept
        cs.undo(config, store)
        assert not any(p.exists() for p in new) and _mode(vault / "Big.md") == bits
        cs.redo(config, store)
        assert [_mode(p) for p in new] == [NEW_FILE_MODE] * 2 and _mode(vault / "Big.md") == bits


def test_replace_file_keeps_the_bits_and_refuses_a_read_only_page(make_vault, tmp_path) -> None:
    vault = make_vault({"t.md": "old\n", "ro.md": "old\n"}, name="v")
    config = load_config(vault, tmp_path / "store")
    os.chmod(vault / "t.md", 0o640)
    assert replace_file(config, "t.md", b"old\n", b"new\n", kind="capture", summary="s", details={})
    assert (vault / "t.md").read_bytes() == b"new\n" and _mode(vault / "t.md") == 0o640
    records = set(os.listdir(config.store / CREATED_DIR))
    os.chmod(vault / "ro.md", 0o444)
    with pytest.raises(UserError, match=r"ro\.md is read-only; make it writable to update it"):
        replace_file(config, "ro.md", b"old\n", b"new\n", kind="capture", summary="s", details={})
    assert (vault / "ro.md").read_bytes() == b"old\n" and _mode(vault / "ro.md") == 0o444
    assert set(os.listdir(config.store / CREATED_DIR)) == records  # no undo record for a write not made


# A journal written, no file touched yet (a crash right after the journal's
# fsync), then the vault changed before recovery: which file is made
# read-only, which one someone else rewrote (forcing a roll back).
RECOVERY_CASES = {
    "forward-rewrite": ("a.md", None, "complete", "complete it"),
    "forward-delete": ("b.md", None, "complete", "complete it"),
    "back-rewrite": ("a.md", "b.md", "roll back", "roll it back"),
    "back-delete-created": ("c.md", "b.md", "roll back", "roll it back"),
}


@pytest.mark.parametrize("case", list(RECOVERY_CASES))
def test_recovery_refuses_a_file_made_read_only_and_writes_nothing(make_vault, tmp_path, case) -> None:
    read_only, foreign, doing, to = RECOVERY_CASES[case]
    vault = make_vault({"a.md": "a\n", "b.md": "b\n"}, name="v")
    config = load_config(vault, tmp_path / "store")
    with Store(config.store) as store:
        sync(config, store)
        changes = files.normalise(files.VaultPaths(config), [
            FileChange("a.md", b"a\n", b"A\n"), FileChange("b.md", b"b\n", None), FileChange("c.md", None, b"c\n"),
        ])
        write_journal(config, JournalEntry.new("apply", "test", "three files"), changes)
        if foreign:  # the files the operation had written before the crash
            (vault / "a.md").write_bytes(b"A\n")
            (vault / "c.md").write_bytes(b"c\n")
            (vault / foreign).write_bytes(b"someone else's words\n")
        os.chmod(vault / read_only, 0o444)
        before = snapshot(vault)
        modes = {p.name: _mode(p) for p in vault.iterdir()}
        with pytest.raises(UserError, match=rf"cannot {doing} an interrupted apply of test \(three files\): "
                                            rf"{read_only.replace('.', '[.]')} is read-only; make it writable to {to}; nothing was written"):
            recover_journal(config, store)
        assert snapshot(vault) == before and {p.name: _mode(p) for p in vault.iterdir()} == modes
        assert read_journal(config) is not None  # kept for the next try
        os.chmod(vault / read_only, 0o644)
        assert recover_journal(config, store).startswith("completed" if doing == "complete" else "rolled back")
        assert read_journal(config) is None
        want = {"a.md": b"A\n", "c.md": b"c\n"} if not foreign else {"a.md": b"a\n", "b.md": b"someone else's words\n"}
        assert snapshot(vault) == want


def test_a_command_after_a_crash_refuses_a_page_made_read_only(make_vault, tmp_path) -> None:
    """Killed after the old name is deleted; a page the rename still has to
    rewrite is made read-only: the next command says which page and why,
    writes nothing, and finishes the rename once the page is writable."""
    vault = make_vault(FILES, name="v")
    store_dir = tmp_path / "store"
    r = _cli(vault, store_dir, "rename", "Hub", "Center", crash_after=1)
    assert r.returncode == -signal.SIGKILL, r.stderr
    os.chmod(vault / "n1.md", 0o444)
    before = snapshot(vault)
    r = _cli(vault, store_dir, "log")
    assert r.returncode != 0 and "cannot complete an interrupted apply of rename" in r.stderr, r.stderr
    assert "n1.md is read-only; make it writable to complete it; nothing was written" in r.stderr
    assert snapshot(vault) == before
    os.chmod(vault / "n1.md", 0o644)
    config = load_config(vault, store_dir)
    with Store(config.store) as store:
        assert cs.recover(config, store).startswith("completed an interrupted apply of rename")
    assert (vault / "Center.md").exists() and "[[Center]]" in (vault / "n1.md").read_text()
