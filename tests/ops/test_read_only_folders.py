"""A folder without its owner write bit is not given new pages nor has
pages removed from it: creating a page for a dead link, a capture, a rename
(which adds a name and removes one) and undo are refused before anything is
written, as a read-only page is. The bits decide, not ``os.access``: the
tests run as root, for whom every folder is writable."""

from __future__ import annotations

import os

import pytest

from brainwork.config import load_config
from brainwork.errors import UserError
from brainwork.index.sync import sync
from brainwork.ops import changeset as cs
from brainwork.ops import fixes, journal
from brainwork.ops.rename import rename
from brainwork.store import Store

from ops_helpers import snapshot

FILES = {
    "systems/Hub.md": "# Hub\nsee [[Legacy FTP]] and [[./deeper/Gone]]\n",
    "notes/n1.md": "links [[Hub]]\n",
}


@pytest.fixture
def opened(make_vault, tmp_path):
    vault = make_vault(FILES, name="v")
    config = load_config(vault, tmp_path / "store")
    with Store(config.store) as store:
        sync(config, store)
        yield vault, config, store
    for folder in (vault, vault / "systems", vault / "notes", vault / "tasks"):
        if folder.exists():
            os.chmod(folder, 0o755)


def test_a_new_page_in_a_read_only_folder_is_refused(opened) -> None:
    vault, config, store = opened
    os.chmod(vault / "systems", 0o555)
    before = snapshot(vault)
    with pytest.raises(UserError, match=r"the folder systems/ is read-only; make it writable to create-page; nothing was written"):
        fixes.create_page(config, store, "Legacy FTP", from_page="systems/Hub")
    # A missing subfolder would be made in the read-only one: refused too.
    with pytest.raises(UserError, match=r"the folder systems/ is read-only"):
        fixes.create_page(config, store, "./deeper/Gone", from_page="systems/Hub")
    assert snapshot(vault) == before and not (vault / "systems" / "deeper").exists()
    # The page's own folder writable again: created where it belongs.
    os.chmod(vault / "systems", 0o755)
    op = fixes.create_page(config, store, "Legacy FTP", from_page="systems/Hub")
    assert op.details["path"] == "systems/Legacy FTP.md" and (vault / "systems" / "Legacy FTP.md").exists()


def test_the_vault_folder_itself_is_checked(opened) -> None:
    vault, config, store = opened
    os.chmod(vault, 0o555)
    before = snapshot(vault)
    with pytest.raises(UserError, match=r"the vault folder is read-only; make it writable to create-page"):
        # At the root, which [[Legacy FTP]] reaches as well (by file name).
        fixes.create_page(config, store, "Legacy FTP", folder="")
    assert snapshot(vault) == before


def test_rename_out_of_a_read_only_folder_and_undo_into_one_are_refused(opened) -> None:
    vault, config, store = opened
    os.chmod(vault / "systems", 0o555)
    before = snapshot(vault)
    # The page file is writable, its folder is not: the old name cannot go.
    with pytest.raises(UserError, match=r"the folder systems/ is read-only; make it writable to rename"):
        rename(config, store, "systems/Hub", "Center")
    assert snapshot(vault) == before
    os.chmod(vault / "systems", 0o755)
    rename(config, store, "systems/Hub", "Center")
    after = snapshot(vault)
    # Undo would put systems/Hub.md back into a folder made read-only since.
    os.chmod(vault / "systems", 0o555)
    with pytest.raises(UserError, match=r"cannot undo .*the folder systems/ is read-only; make it writable to undo"):
        cs.undo(config, store)
    assert snapshot(vault) == after
    os.chmod(vault / "systems", 0o755)
    cs.undo(config, store)
    assert snapshot(vault) == before


def test_a_capture_into_a_read_only_folder_is_refused(opened) -> None:
    """Captures write through the journal without the store; the same bits
    decide, checked before the journal's record is written."""
    vault, config, _ = opened
    (vault / "tasks").mkdir()
    os.chmod(vault / "tasks", 0o555)
    before = snapshot(vault)
    created = config.store / "created"
    records_before = sorted(created.iterdir()) if created.exists() else []
    with pytest.raises(UserError, match=r"the folder tasks/ is read-only; make it writable to create tasks/.*\.md there; "
                                        r"nothing was written"):
        journal.create_new_file(config, "tasks", "ro-test", b"---\ntype: task\n---\n", kind="capture",
                                describe=lambda rel: (f"capture {rel}", {}))
    assert snapshot(vault) == before
    assert (sorted(created.iterdir()) if created.exists() else []) == records_before
    os.chmod(vault / "tasks", 0o755)
    rel, made = journal.create_new_file(config, "tasks", "ro-test", b"---\ntype: task\n---\n", kind="capture",
                                        describe=lambda rel: (f"capture {rel}", {}))
    assert (rel, made) == ("tasks/ro-test.md", True)
