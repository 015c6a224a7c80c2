"""The store and read-only vaults: no store folder is made in one, an
existing store there still opens."""

from __future__ import annotations

import os
import stat

import pytest

from brainwork.errors import UserError
from brainwork.store import Store


def test_no_store_folder_inside_a_read_only_folder_even_as_root(tmp_path):
    """Indexing a read-only vault without --store created VAULT/.brainwork
    when run as root (CI and this machine run as root; the corpora under
    ../shared are laid out without write bits)."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n")
    os.chmod(vault, stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP)
    try:
        with pytest.raises(UserError, match="read-only.*--store"):
            Store(vault / ".brainwork")
        assert not (vault / ".brainwork").exists()
        with pytest.raises(UserError, match="read-only"):
            Store(vault / "deeper" / "store")  # the nearest existing folder counts
    finally:
        os.chmod(vault, 0o755)
    store = Store(tmp_path / "elsewhere")  # a writable place works as before
    store.close()


def test_existing_store_in_a_read_only_folder_still_opens(tmp_path):
    """A store made before the folder became read-only is not refused (Kùzu
    then reports what it can or cannot do)."""
    vault = tmp_path / "vault"
    vault.mkdir()
    Store(vault / ".brainwork").close()
    before = sorted(p.name for p in vault.iterdir())
    os.chmod(vault, 0o555)
    try:
        with Store(vault / ".brainwork") as store:
            assert store.scalar("RETURN 1") == 1
    finally:
        os.chmod(vault, 0o755)
    assert sorted(p.name for p in vault.iterdir()) == before
