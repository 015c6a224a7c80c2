"""What ``brainwork index``, ``stats`` and ``show`` print: moved files,
empty vaults, links on one line, attachments as link targets."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from brainwork.cli import cli


@pytest.fixture
def run():
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(cli, list(args), catch_exceptions=False)

    return invoke


def test_index_text_counts_a_moved_file_once(run, make_vault, tmp_path):
    """A moved file was reported as "1 added, 1 removed, 1 moved"."""
    vault = make_vault({"a.md": "# A\n[[b]]\n", "b.md": "# B\nbody\n"})
    store = ["--vault", str(vault), "--store", str(tmp_path / "s")]
    assert run("index", *store).exit_code == 0
    (vault / "sub").mkdir()
    (vault / "b.md").rename(vault / "sub" / "b.md")
    r = run("index", *store)
    assert r.exit_code == 0, r.output
    assert "(0 added, 0 changed, 0 removed, 1 moved)" in r.stdout.splitlines()[0]
    # The JSON keeps the raw lists' lengths (a move is also an add and a removal).
    (vault / "sub" / "b.md").rename(vault / "b.md")
    data = json.loads(run("index", "--json", *store).stdout)
    assert data["moved"] == [["sub/b", "b"]] and data["added"] == 1 and data["removed"] == 1


def test_stats_of_an_empty_vault_says_none(run, make_vault, tmp_path):
    """``types:`` was printed with nothing after it."""
    vault = make_vault({})
    r = run("stats", "--vault", str(vault), "--store", str(tmp_path / "s"))
    assert r.exit_code == 0, r.output
    assert "types: none" in r.stdout.splitlines()


def test_show_tells_links_on_one_line_apart(run, make_vault, tmp_path):
    """Three links from one line to one page printed three identical lines
    (Obsidian help: ``[[Settings]] → [[Settings#Files and links|Files and links]]``)."""
    vault = make_vault({
        "a.md": "# A\n[[Settings]] then [[Settings#Files and links|Files and links]] then ![[Settings#Tail]]\n",
        "Settings.md": "# Settings\n",
    })
    store = ["--vault", str(vault), "--store", str(tmp_path / "s")]
    r = run("show", "a", *store)
    assert r.exit_code == 0, r.output
    lines = [l for l in r.stdout.splitlines() if "related →" in l]
    assert len(lines) == 3 and len(set(lines)) == 3
    assert any("Settings#Files and links|Files and links" in l for l in lines)
    out = json.loads(run("show", "a", "--json", *store).stdout)["edges"]["out"]
    assert {(e["heading"], e["label"], e["embed"]) for e in out} == {
        (None, None, False), ("Files and links", "Files and links", False), ("Tail", None, True),
    }


def test_show_finds_an_attachment_it_lists_as_a_link_target(run, make_vault, tmp_path):
    """``show`` listed ``related → Attachments/diagram.png`` but
    ``show Attachments/diagram.png`` said "no page named"."""
    vault = make_vault({"a.md": "# A\n![[diagram.png]]\n", "Attachments/diagram.png": b""})
    store = ["--vault", str(vault), "--store", str(tmp_path / "s")]
    out = run("show", "a", *store).stdout
    assert "related →        Attachments/diagram.png" in out
    for name in ("Attachments/diagram.png", "diagram.png"):
        r = run("show", name, *store)
        assert r.exit_code == 0, r.output
        assert r.stdout.splitlines()[0] == "diagram.png  [attachment]  Attachments/diagram.png"
        assert "← related        a" in r.stdout
    assert json.loads(run("show", "diagram.png", "--json", *store).stdout)["kind"] == "attachment"


def test_show_names_the_parse_error_of_a_page(run, make_vault, tmp_path):
    """A page whose frontmatter could not be parsed read like any untyped
    page: the error that explains its missing fields is shown with it."""
    vault = make_vault({"a.md": "---\ntitle: [broken\n---\nsee [[b]]\n", "b.md": "# B\n"})
    store = ["--vault", str(vault), "--store", str(tmp_path / "s")]
    r = run("show", "a", *store)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0] == "a  [untyped]  a"
    assert lines[1].startswith("  parse error: a.md:2: broken YAML frontmatter")
    data = json.loads(run("show", "a", "--json", *store).stdout)
    assert [e["line"] for e in data["parse_errors"]] == [2]
    assert json.loads(run("show", "b", "--json", *store).stdout)["parse_errors"] == []
