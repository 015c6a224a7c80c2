"""Operations on vaults written to break link tools: file names in NFD
(as macOS and synced Obsidian vaults write them), files that are not UTF-8,
CRLF line ends, control characters. Each vault is made in the test; file
names are written as bytes (``os.fsencode`` of the NFD string) so the name on
disk really is decomposed."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest

from brainwork.config import load_config
from brainwork.errors import UserError
from brainwork.index.sync import sync
from brainwork.ops import changeset as cs
from brainwork.ops.fixes import set_type
from brainwork.ops.merge import merge_pages
from brainwork.ops.rename import rename
from brainwork.store import graph
from brainwork.vault.edit import frontmatter_fields

from ops_helpers import snapshot

NFD_CAFE = unicodedata.normalize("NFD", "Café")
NFD_NOTE = unicodedata.normalize("NFD", "Übersicht Größe")


def _write(root: Path, name: str, data: bytes) -> None:
    """Write ``data`` under the exact bytes of ``name`` (no normalisation)."""
    path = os.path.join(os.fsencode(root), os.fsencode(name))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(data)


def _names(root: Path) -> set[bytes]:
    return {os.fsencode(n) for n in os.listdir(os.fsencode(root))}


@pytest.fixture
def nfd_vault(tmp_path: Path):
    root = tmp_path / "nfd"
    root.mkdir()
    _write(root, f"{NFD_CAFE}.md", f"# {NFD_CAFE}\r\nsee [[Plain]] and [[{NFD_NOTE}]]\r\n".encode())
    _write(root, f"notes/{NFD_NOTE}.md", "---\ntype: note\n---\nback to [[Café]]\n".encode())
    _write(root, "Plain.md", f"links [[Café]] [[{NFD_CAFE}|nfd]] [c](Caf%C3%A9.md)\n".encode())
    config = load_config(root, tmp_path / "store")
    return root, config


def test_nfd_names_resolve_in_nfc_and_open_by_name_on_disk(nfd_vault, store) -> None:
    root, config = nfd_vault
    sync(config, store)
    assert graph.get_page(store, "Café") is not None  # ids are NFC
    assert graph.get_page(store, "Café").path == f"{NFD_CAFE}.md"  # path as on disk
    before = snapshot(root)

    # rename a page an NFD page links to: the NFD file is rewritten in place
    rename(config, store, "Plain", "Simple")
    assert (root / f"{NFD_CAFE}.md").read_bytes() == f"# {NFD_CAFE}\r\nsee [[Simple]] and [[{NFD_NOTE}]]\r\n".encode()
    assert os.fsencode(f"{NFD_CAFE}.md") in _names(root)
    # rename the NFD page itself: the new file gets the typed (NFC) name
    rename(config, store, "Café", "Tea Room")
    assert (root / "Tea Room.md").exists() and os.fsencode(f"{NFD_CAFE}.md") not in _names(root)
    assert "[[Tea Room]] [[Tea Room|nfd]] [c](Tea%20Room.md)" in (root / "Simple.md").read_text()
    assert "back to [[Tea Room]]" in (root / f"notes/{NFD_NOTE}.md").read_text()
    # an operation on a page inside an NFD-named file
    set_type(config, store, "notes/Übersicht Größe", "topic")
    assert "type: topic" in (root / f"notes/{NFD_NOTE}.md").read_text()

    for _ in range(3):
        cs.undo(config, store)
    assert snapshot(root) == before
    assert os.fsencode(f"{NFD_CAFE}.md") in _names(root)
    sync(config, store)
    assert graph.get_page(store, "Café").path == f"{NFD_CAFE}.md"
    # merge an NFD page into another (the page linking to it is NFD too)
    merge_pages(config, store, "notes/Übersicht Größe", "Plain", prefer="target")
    assert not (root / f"notes/{NFD_NOTE}.md").exists()
    assert "[[Plain]] and [[Plain]]" in (root / f"{NFD_CAFE}.md").read_text()


LATIN1 = b"---\r\ntags: [caf\xe9]\r\nrel: '[[Old Page]]'\r\n---\r\nCaf\xe9 cr\xe8me: [[Old Page]], [[old page|l\xe9gende]], [o](Old%20Page.md)\r\n"


def test_rename_rewrites_links_in_a_latin1_file_byte_safely(make_vault, store, tmp_path) -> None:
    root = make_vault({"Old Page.md": "# Old Page\n", "latin.md": LATIN1, "other.md": "[[Old Page]]\n"})
    config = load_config(root, tmp_path / "store")
    sync(config, store)
    assert any(e.path == "latin.md" for e in graph.parse_errors(store))  # the index cannot read it
    before = snapshot(root)
    result = rename(config, store, "Old Page", "New Page")
    assert (root / "latin.md").read_bytes() == LATIN1.replace(b"Old%20Page", b"New%20Page").replace(
        b"Old Page", b"New Page").replace(b"old page", b"New Page")  # the new name as typed
    assert "latin.md" in result.plan.files
    assert {e.path for e in result.plan.edits} >= {"latin.md", "other.md"}
    cs.undo(config, store)
    assert snapshot(root) == before


def test_rename_refuses_naming_a_binary_file_that_may_link_to_the_page(make_vault, store, tmp_path) -> None:
    root = make_vault({"Old Page.md": "# Old Page\n", "bin.md": b"\x00\x01 see [[Old Page]]\n", "x.md": "[[Old Page]]\n"})
    config = load_config(root, tmp_path / "store")
    before = snapshot(root)
    with pytest.raises(UserError, match="bin.md"):
        rename(config, store, "Old Page", "New Page")
    assert snapshot(root) == before
    # a binary file that does not mention the page does not block anything
    (root / "bin.md").write_bytes(b"\x00\x01 nothing here\n")
    rename(config, store, "Old Page", "New Page")
    assert (root / "x.md").read_text() == "[[New Page]]\n"


def test_rename_as_obsidian_does_it(make_vault, store, tmp_path) -> None:
    page = "---\ntags: [db]\n---\n# SQL Tips\r\nSee [[SQL Tips#Joins]] and [[Other]].\r\n"
    root = make_vault({
        "SQL Tips.md": page,
        "Other.md": "[[SQL Tips]] [[sql tips|lower]] [[SQL TIPS]] [s](SQL%20Tips.md) [[sql tips#Joins|j]]\n",
    })
    config = load_config(root, tmp_path / "store")
    result = rename(config, store, "SQL Tips", "Sql Tips")  # case only
    assert os.listdir(root) and "Sql Tips.md" in os.listdir(root) and "SQL Tips.md" not in os.listdir(root)
    assert (root / "Other.md").read_text() == (
        "[[Sql Tips]] [[Sql Tips|lower]] [[Sql Tips]] [s](Sql%20Tips.md) [[Sql Tips#Joins|j]]\n"
    )
    # the page's own bytes: only the link to itself changed; no alias, no title key
    assert (root / "Sql Tips.md").read_bytes() == page.replace("[[SQL Tips#Joins]]", "[[Sql Tips#Joins]]").encode()
    assert result.plan.new_title == "SQL Tips"  # its heading still gives the title
    cs.undo(config, store)

    # asked for: the option, then the vault setting
    rename(config, store, "SQL Tips", "Query Notes", keep_alias=True, add_title=True)
    fields = frontmatter_fields((root / "Query Notes.md").read_text())
    assert fields["title"] == "Query Notes" and fields["aliases"] == ["SQL Tips"]
    cs.undo(config, store)
    (root / "brainwork.toml").write_text("[rename]\nkeep_alias = true\n")
    config = load_config(root, tmp_path / "store")
    assert config.rename.keep_alias and not config.rename.add_title
    rename(config, store, "Other", "Another")
    fields = frontmatter_fields((root / "Another.md").read_text())
    assert "title" not in fields and fields["aliases"] == ["Other"]
    rename(config, store, "Another", "Third", keep_alias=False)  # the option beats the setting
    assert frontmatter_fields((root / "Third.md").read_text())["aliases"] == ["Other"]
    (root / "brainwork.toml").write_text("[rename]\nkeep_alias = 'yes'\n")
    with pytest.raises(UserError, match="keep_alias"):
        load_config(root, tmp_path / "store")


def test_undo_right_after_a_merge_says_so_and_names_the_next(make_vault, store, tmp_path) -> None:
    root = make_vault({"A.md": "# A\nsee [[B]]\n", "B.md": "# B\nbody b\n", "C.md": "# C\n[[A]]\r\n", "Old.md": "old\n"})
    config = load_config(root, tmp_path / "store")
    done = rename(config, store, "Old", "Older")
    merge_pages(config, store, "B", "A", prefer="target")
    merged = snapshot(root)
    with pytest.raises(UserError, match=rf"merge #\d+ .* cannot be undone; the next undo would revert rename #{done.operation.id} "):
        cs.undo(config, store)
    assert snapshot(root) == merged  # nothing was reverted
    assert cs.can_undo(store).id == done.operation.id
    cs.undo(config, store)  # now the rename, as announced
    assert (root / "Old.md").exists() and not (root / "Older.md").exists()
    assert not (root / "B.md").exists()  # the merge stays


def test_a_control_character_in_a_file_name_does_not_block_renames(make_vault, store, tmp_path) -> None:
    root = make_vault({"Target.md": "# Target\n", "bad\x01name.md": "see [[Target]]\r\n", "CON.md": "[[Target]]\n"})
    config = load_config(root, tmp_path / "store")
    before = snapshot(root)
    rename(config, store, "Target", "Goal")
    assert (root / "bad\x01name.md").read_bytes() == b"see [[Goal]]\r\n"
    assert (root / "CON.md").read_text() == "[[Goal]]\n"
    rename(config, store, "bad\x01name", "Clean name")  # the odd file itself moves to a clean name
    assert (root / "Clean name.md").exists() and not (root / "bad\x01name.md").exists()
    cs.undo(config, store)
    cs.undo(config, store)
    assert snapshot(root) == before
    with pytest.raises(UserError):  # but no operation makes up such a name
        rename(config, store, "Target", "x", "bad\x02.md")


def test_labels_and_headings_are_trimmed_as_obsidian_reads_them(make_vault, store, tmp_path) -> None:
    from brainwork.vault.parse import parse_text

    text = "see [[Alpha | first]] and [[Alpha # Part | second ]]\r\n"
    links = parse_text("x.md", text.encode()).links
    assert [(l.target, l.heading, l.label) for l in links] == [("Alpha", None, "first"), ("Alpha", "Part", "second")]
    root = make_vault({"Alpha.md": "# Alpha\n## Part\n", "x.md": text})
    config = load_config(root, tmp_path / "store")
    rename(config, store, "Alpha", "Beta")
    assert (root / "x.md").read_bytes() == b"see [[Beta | first]] and [[Beta # Part | second ]]\r\n"
