"""Files that cannot be parsed fully still become pages (a bad file is a
finding, never a crash: docs/vault-format.md "Parse errors"), and page
ids/titles follow the format."""

from __future__ import annotations

import hashlib
import unicodedata

import pytest

from brainwork.thresholds import MAX_FILE_BYTES
from brainwork.vault.parse import page_id, parse_file, parse_text


def test_page_id_is_path_without_md_nfc():
    assert page_id("Projects/Note.md") == "Projects/Note"
    assert page_id("Projects/Note.MD") == "Projects/Note"
    assert page_id("a.b.md") == "a.b"
    nfd = unicodedata.normalize("NFD", "café.md")
    assert page_id(nfd) == unicodedata.normalize("NFC", "café")


def test_fields_hash_size():
    data = b"---\ntitle: A\n---\ntext\n"
    p = parse_text("x/a.md", data, mtime_ns=123)
    assert p.id == "x/a" and p.path == "x/a.md"
    assert p.hash == hashlib.sha256(data).hexdigest()
    assert p.size == len(data) and p.mtime_ns == 123


def test_not_utf8_names_file_and_line():
    data = "---\ntitle: x\n---\nline four\ncaf\xe9\n".encode("latin-1")
    p = parse_text("old/latin1.md", data)
    (err,) = p.errors
    assert err.path == "old/latin1.md" and err.line == 5
    assert "not UTF-8" in err.message and "0xe9" in err.message
    assert p.id == "old/latin1" and p.title == "latin1" and p.links == []
    assert p.hash == hashlib.sha256(data).hexdigest()


def test_utf16_file_is_not_utf8():
    data = "# Title\n[[x]]\n".encode("utf-16")
    p = parse_text("w.md", data)
    assert len(p.errors) == 1 and p.links == []


def test_binary_file():
    data = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
    p = parse_text("image-saved-as.md", data)
    (err,) = p.errors
    assert err.line == 3 and "binary" in err.message  # the NUL is after the second \n
    assert p.title == "image-saved-as" and p.fields == {} and p.links == []


def test_huge_file_is_not_parsed_but_is_a_page():
    data = b"---\ntitle: Big\n---\n" + b"[[x]] " * (MAX_FILE_BYTES // 6 + 1)
    assert len(data) > MAX_FILE_BYTES
    p = parse_text("dump.md", data)
    (err,) = p.errors
    assert err.line == 1 and "limit" in err.message and f"{MAX_FILE_BYTES:,}" in err.message
    assert p.title == "dump" and p.links == [] and p.size == len(data)


def test_limit_is_configurable():
    p = parse_text("a.md", b"# A\n" + b"x" * 100, max_bytes=50)
    assert p.errors and "50-byte limit" in p.errors[0].message
    assert parse_text("a.md", b"# A\n", max_bytes=50).errors == []


def test_empty_file():
    p = parse_text("empty.md", b"")
    assert p.errors == [] and p.title == "empty" and p.body == "" and p.links == []


def test_parse_file_unreadable(tmp_path):
    p = parse_file(tmp_path, "missing.md")
    assert p.errors and p.errors[0].path == "missing.md" and "cannot read" in p.errors[0].message
    assert p.errors[0].line == 1  # the whole file: its first line, as lines are 1-based


def test_parse_file_reads_mtime(tmp_path):
    (tmp_path / "n.md").write_bytes(b"# N\n")
    p = parse_file(tmp_path, "n.md")
    assert p.title == "N" and p.mtime_ns == (tmp_path / "n.md").stat().st_mtime_ns


def test_type_and_field_text():
    p = parse_text("t.md", b"---\ntype: ' task '\nsummary: [a, b]\noutcome: success\n---\n")
    assert p.type == "task"
    assert p.field_text("summary") == "a, b" and p.field_text("outcome") == "success"
    assert p.field_text("missing") is None
    assert parse_text("t.md", b"---\ntype: [a]\n---\n").type is None


@pytest.mark.parametrize("spelling", ["null", "~", "Null", "NULL", ""])
def test_yaml_null_spellings_mean_no_type(spelling):
    page = parse_text("a.md", f"---\ntype: {spelling}\n---\nbody\n".encode())
    assert page.type is None
