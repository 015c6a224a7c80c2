"""Permission bits of written pages: a new page gets the umask's mode, a
rewritten one keeps its own."""

from __future__ import annotations

import os
import stat

from brainwork.vault.write import NEW_FILE_MODE, atomic_write


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_new_file_gets_the_umask_mode_not_0600(tmp_path):
    """A renamed, captured or split page came out 0600 (mkstemp's mode), so a
    vault shared with a group, a sync tool or a web server lost read access;
    a read-only page renamed and renamed back came back 0600 too."""
    mask = os.umask(0o022)
    os.umask(mask)
    assert NEW_FILE_MODE == 0o666 & ~mask
    full = atomic_write(tmp_path, "notes/new page.md", b"# New\n")
    assert full.read_bytes() == b"# New\n"
    assert _mode(full) == NEW_FILE_MODE
    assert not [p for p in full.parent.iterdir() if p.name.startswith(".bw-")]  # no temp file left


def test_existing_file_keeps_its_mode(tmp_path):
    page = tmp_path / "a.md"
    page.write_bytes(b"old\n")
    os.chmod(page, 0o640)
    atomic_write(tmp_path, "a.md", b"new\n", fsync=False)
    assert page.read_bytes() == b"new\n" and _mode(page) == 0o640
