"""``brainwork rename/merge/split/undo/redo/log`` and the fix commands."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from brainwork.cli import cli

FILES = {
    "Hub.md": "# Hub\nhub page\n",
    "Hub copy.md": "---\ntype: topic\n---\nA duplicate of the hub. [[Hub]]\n",
    "a.md": "links [[Hub]] and [[Hub copy|copy]] and [[Ghost]]\n",
    "big.md": "intro\n\n## One\n\nfirst\n\n## Two\n\nsecond\n",
}


@pytest.fixture
def vault(make_vault):
    return make_vault(FILES)


@pytest.fixture
def run(vault, tmp_path):
    runner = CliRunner()
    base = ["--vault", str(vault), "--store", str(tmp_path / "store")]

    def invoke(*args: str, input: str | None = None):
        return runner.invoke(cli, [*base, *args], input=input, catch_exceptions=False)

    return invoke


def test_rename_log_undo_redo(run, vault) -> None:
    r = run("rename", "Hub", "Center")
    assert r.exit_code == 0, r.output
    # the page keeps its bytes (its "# Hub" heading still gives its title): only the file moves
    assert "rename Hub.md -> Center.md: 2 links in 2 files" in r.output
    assert "a.md:1: [[Hub]] -> [[Center]]" in r.output
    assert (vault / "a.md").read_text().startswith("links [[Center]]")
    r = run("log", "--json")
    [entry] = json.loads(r.output)
    assert entry["kind"] == "rename" and entry["state"] == "done" and entry["details"]["links_rewritten"] == 2
    r = run("undo")
    assert r.exit_code == 0 and r.output.startswith("undo #1 rename")
    assert (vault / "Hub.md").exists() and not (vault / "Center.md").exists()
    assert run("log").output.startswith("*#1")
    assert run("redo").exit_code == 0
    assert (vault / "Center.md").exists()
    r = run("log", "--diff")
    assert "-links [[Hub]]" in r.output and "+links [[Center]]" in r.output


def test_rename_dry_run_and_json(run, vault) -> None:
    r = run("rename", "Hub", "Center", "--dry-run", "--json")
    data = json.loads(r.output)
    assert data["dry_run"] and data["operation"] is None and data["links_rewritten"] == 2
    assert (vault / "Hub.md").exists()


def test_user_errors_exit_2(run, vault) -> None:
    for args in (("rename", "Hub", "x", "--path", "../out"), ("rename", "Nope", "x"), ("undo",), ("redo",),
                 ("rename", "Hub", "bad|title"), ("set-type", "a", "bogus"), ("create-page", "../../x")):
        r = run(*args)
        assert r.exit_code == 2, (args, r.output)
        assert r.output.startswith("brainwork: error: ") and r.output.count("\n") == 1, r.output
    assert not (vault.parent / "out.md").exists()


def test_undo_refuses_when_file_changed(run, vault) -> None:
    run("rename", "Hub", "Center")
    (vault / "a.md").write_text("someone else's edit\n")
    r = run("undo")
    assert r.exit_code == 2
    assert "cannot undo rename #1" in r.output and "a.md was changed since it was applied" in r.output
    assert (vault / "a.md").read_text() == "someone else's edit\n"


def test_merge_asks_and_defaults_to_no(run, vault) -> None:
    r = run("merge", "Hub copy", "Hub", input="\n")
    assert r.exit_code == 1
    assert "A merge cannot be undone." in r.output and "merge cancelled" in r.output
    assert (vault / "Hub copy.md").exists()
    r = run("merge", "Hub copy", "Hub", "--json")
    assert r.exit_code == 1 and json.loads(r.output.split("\nbrainwork:")[0])["applied"] is False
    r = run("merge", "Hub copy", "Hub", input="y\n")
    assert r.exit_code == 0, r.output
    assert "merged Hub copy into Hub" in r.output
    assert not (vault / "Hub copy.md").exists()
    assert (vault / "a.md").read_text() == "links [[Hub]] and [[Hub|copy]] and [[Ghost]]\n"
    [entry] = json.loads(run("log", "--json").output)  # recorded without its bytes, as a stop for undo
    assert entry["kind"] == "merge" and entry["reversible"] is False
    r = run("undo")
    assert r.exit_code == 2 and "cannot be undone; there is nothing older to undo" in r.output


def test_merge_yes(run, vault) -> None:
    r = run("merge", "Hub copy", "Hub", "--yes", "--json")
    assert r.exit_code == 0
    assert json.loads(r.output)["applied"] is True


def test_split_and_fixes(run, vault) -> None:
    assert run("split", "big").exit_code == 0
    assert (vault / "big - One.md").exists() and (vault / "big - Two.md").exists()
    assert run("set-type", "a", "topic").exit_code == 0
    assert run("retarget", "a", "Ghost", "Hub", "--line", "4").exit_code == 0  # below the new type: block
    assert (vault / "a.md").read_text().endswith("and [[Hub]]\n")
    assert run("undo").exit_code == 0
    assert run("unlink", "a", "Ghost").exit_code == 0
    assert (vault / "a.md").read_text().endswith("and Ghost\n")
    assert run("undo").exit_code == 0
    r = run("create-page", "Ghost", "--type", "topic", "--from", "a")
    assert r.exit_code == 0 and "create Ghost.md for [[Ghost]] (1 dead link revived)" in r.output
    assert run("dismiss", "untyped:Hub", "--reason", "fine").exit_code == 0
    assert run("undismiss", "untyped:Hub").exit_code == 0
    kinds = [e["kind"] for e in json.loads(run("log", "--json").output)]
    assert kinds == ["undismiss", "dismiss", "create-page", "set-type", "split"]
