"""CLI and store behaviours: unique undo-log numbers, rebuild
messages and leftovers, one-line YAML errors, honest ``index --full``
counts, no orphan verdict for an unparsed page."""

from __future__ import annotations

import json

from click.testing import CliRunner

from brainwork.cli import cli


def _run(*args: str, input: str | None = None):
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def test_undo_log_numbers_are_never_reused(make_vault, tmp_path) -> None:
    vault = make_vault({"A.md": "# A\nalpha\n", "B.md": "# B\nbeta [[A]]\n", "C.md": "# C\n[[B]]\n"})
    base = ["--vault", str(vault), "--store", str(tmp_path / "s")]
    assert _run(*base, "rename", "A", "Alpha").exit_code == 0
    assert _run(*base, "rename", "B", "Beta").exit_code == 0
    assert _run(*base, "undo").exit_code == 0
    # The new operation drops the undone #2 from the log; it must not take its number.
    assert _run(*base, "rename", "C", "Gamma").exit_code == 0
    r = _run(*base, "log", "--json")
    ids = [op["id"] for op in json.loads(r.output)]
    assert sorted(ids) == [1, 3]


def test_rebuild_refusal_names_brainwork_serve(make_vault, tmp_path, monkeypatch) -> None:
    from brainwork.service import owner

    vault = make_vault({"A.md": "# A\n"})
    monkeypatch.setattr(owner, "status", lambda config: owner.OwnerStatus("serve", 4242, str(vault), str(tmp_path)))
    r = _run("--vault", str(vault), "--store", str(tmp_path / "s"), "index", "--rebuild")
    assert r.exit_code == 2
    assert "held by `brainwork serve` (process 4242); stop it (ctrl+c or kill 4242)" in r.output
    assert "open in the serve" not in r.output


def test_index_full_counts_only_changed_bytes_as_changed(make_vault, tmp_path) -> None:
    import os

    vault = make_vault({"A.md": "# A\nalpha [[B]]\n", "B.md": "# B\nbeta\n", "pic.png": "png"})
    base = ["--vault", str(vault), "--store", str(tmp_path / "s")]
    assert _run(*base, "index").exit_code == 0
    r = _run(*base, "index", "--full")
    assert "(0 added, 0 changed, 0 removed, 3 re-read unchanged)" in r.output
    # An edit behind the store's back: same size, same modification time.
    path = vault / "B.md"
    st = path.stat()
    path.write_text("# B\nBETA\n")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    r = _run(*base, "index", "--full", "--json")
    data = json.loads(r.output)
    assert (data["changed"], data["reread"], data["added"]) == (1, 2, 0)


def test_rebuild_of_an_emptied_store_says_the_history_is_lost(make_vault, tmp_path) -> None:
    vault = make_vault({"A.md": "# A\nalpha\n", "B.md": "# B\n[[A]]\n"})
    store = tmp_path / "s"
    base = ["--vault", str(vault), "--store", str(store)]
    assert _run(*base, "rename", "A", "Alpha").exit_code == 0
    (store / "graph.kuzu").write_bytes(b"")  # truncate -s 0
    r = _run(*base, "index", "--rebuild")
    assert r.exit_code == 0
    assert ("brainwork: history lost: the old store could not be read at all "
            "(the database file is empty but held a store when it was last closed)") in r.stderr


def test_rebuild_with_an_interrupted_operation_prints_the_recovered_figures(make_vault, tmp_path) -> None:
    import os
    import subprocess
    import sys

    files = {"Hub.md": "the hub\n", **{f"n{i}.md": f"note {i} links [[Hub]]\n" for i in range(6)}}
    vault = make_vault(files)
    store = tmp_path / "s"
    base = ["--vault", str(vault), "--store", str(store)]
    assert _run(*base, "index").exit_code == 0
    env = dict(os.environ, BRAINWORK_CRASH_AFTER_FILES="3")
    killed = subprocess.run([sys.executable, "-c", "from brainwork.cli import main; main()", *base,
                             "rename", "Hub", "Center"], env=env, capture_output=True, text=True, timeout=120)
    assert killed.returncode != 0 and (store / "journal.bin").exists()
    r = _run(*base, "index", "--rebuild")
    assert r.exit_code == 0 and "completed an interrupted apply of rename" in r.stderr
    # The rename was finished: every link resolves, and the printed line says so.
    assert "rebuilt: 7 pages, 0 attachments, 6 edges, 0 dead links" in r.stdout


def test_a_completed_rebuild_removes_leftovers_of_killed_ones(make_vault, tmp_path) -> None:
    vault = make_vault({"A.md": "# A\nalpha\n", "B.md": "# B\n[[A]]\n"})
    store = tmp_path / "s"
    base = ["--vault", str(vault), "--store", str(store)]
    assert _run(*base, "rename", "A", "Alpha").exit_code == 0
    # What a rebuild SIGKILLed during its export and its build leaves.
    export = store / "rebuild-export-20200101T000000Z"
    new = store / "rebuild-new-20200101T000000Z"
    export.mkdir()
    (export / "UndoOp.arrow").write_bytes(b"x")
    new.mkdir()
    (new / "graph.kuzu").write_bytes(b"x" * 100)
    r = _run(*base, "index", "--rebuild")
    assert r.exit_code == 0
    assert not export.exists() and not new.exists()
    assert "removed what earlier interrupted rebuilds left: rebuild-export-20200101T000000Z" in r.stdout
    assert _run(*base, "log", "--json").output.count('"rename"') == 1  # the history was kept
    r = _run(*base, "index", "--rebuild")
    assert "2 old stores kept aside by rebuilds take" in r.stdout
    r = _run(*base, "doctor")
    assert "rebuild-leftover" not in r.output


def test_a_control_character_in_yaml_is_one_line_with_line_and_column(make_vault, tmp_path) -> None:
    vault = make_vault({"topics/ctrl.md": '---\ntype: topic\ntitle: "esc\x1b[31mred"\n---\n\nbody\n', "o.md": "# O\n"})
    r = _run("--vault", str(vault), "--store", str(tmp_path / "s"), "check", "--code", "parse-error")
    lines = [l for l in r.output.splitlines() if "ctrl.md" in l or "unicode string" in l]
    assert lines == ["topics/ctrl.md:3: parse-error broken YAML frontmatter: control character U+001B at column 12 "
                     "(YAML does not allow it; write it as an escape in double quotes, e.g. \\x1b)"]


def test_an_unparsed_page_is_not_called_an_orphan(make_vault, tmp_path) -> None:
    vault = make_vault({"tools/certbot.md": "# certbot\n", "a.md": "# A\n[[tools/certbot]]\n", "lonely.md": "# L\n"})
    (vault / "topics").mkdir()
    (vault / "topics/latin1.md").write_bytes(
        b"---\ntitle: Latin1 page\ntype: topic\n---\n\nCaf\xe9 cr\xe8me [[tools/certbot]] and more text.\n")
    r = _run("--vault", str(vault), "--store", str(tmp_path / "s"), "check", "--code", "orphan,parse-error")
    out = r.output.splitlines()
    assert any(l.startswith("topics/latin1.md:6: parse-error not UTF-8") for l in out), r.output
    assert not any("latin1.md" in l and "orphan" in l for l in out), r.output
    assert any(l.startswith("lonely.md:1: orphan") for l in out), r.output
