"""``brainwork index/stats/show/--version`` and user errors (one line, exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from brainwork import __version__
from brainwork.cli import cli
from brainwork.vocabulary import EDGE_NAMES

FILES = {
    "tasks/t1.md": '---\ntitle: "2026-07-29"\ntype: task\nused: "[[hammer]]"\n---\nSee [[Home]] and [[Ghost]].\n',
    "tools/hammer.md": "---\ntype: tool\n---\n# Hammer\n",
    "corrections/c1.md": '---\ntype: correction\ncorrects: "[[t1]]"\n---\nUse a [[hammer]].\n',
    "Home.md": "# Home\n[[t1]]\n",
    "broken.md": "---\ntitle: x\ntags: [a\n---\n",
    "img.png": b"",
}


@pytest.fixture
def vault(make_vault):
    return make_vault(FILES)


@pytest.fixture
def run(tmp_path):
    runner = CliRunner()

    def invoke(*args: str, env: dict | None = None):
        return runner.invoke(cli, list(args), env=env, catch_exceptions=False)

    return invoke


def test_version(run):
    r = run("--version")
    assert r.exit_code == 0 and r.stdout.strip() == f"brainwork, version {__version__}"


def test_index_json_shape(run, vault, tmp_path):
    r = run("index", "--json", "--vault", str(vault), "--store", str(tmp_path / "s"))
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    # The four keys scripts read (docs/vault-format.md "The store"), first and with these types ...
    assert list(data)[:4] == ["pages", "edges", "dead_links", "parse_errors"]
    assert data["pages"] == 5  # Markdown pages, not attachments
    assert list(data["edges"]) == list(EDGE_NAMES)
    assert data["edges"] == {
        "used": 1, "cited": 0, "produced": 0, "corrected_by": 1, "promoted_to": 0, "supersedes": 0, "related": 3,
    }
    assert data["dead_links"] == 1
    assert data["parse_errors"] == [
        {
            "path": "broken.md",
            "line": 3,
            "message": "broken YAML frontmatter: did not find expected ',' or ']' "
            "(while parsing a flow sequence that starts on this line; noticed on line 3)",
        }
    ]
    # ... plus extras documented in docs/vault-format.md.
    assert data["attachments"] == 1 and data["wrote"] is True and data["ambiguous_links"] == 0
    r = run("index", "--json", "--vault", str(vault), "--store", str(tmp_path / "s"))
    again = json.loads(r.stdout)
    assert again["wrote"] is False and again["added"] == 0
    assert {k: again[k] for k in ("pages", "edges", "dead_links", "parse_errors")} == {
        k: data[k] for k in ("pages", "edges", "dead_links", "parse_errors")
    }


def test_index_human_output_and_default_store(run, vault):
    r = run("index", "--vault", str(vault))
    assert r.exit_code == 0
    first = r.stdout.splitlines()[0]
    assert first.startswith("5 pages, 1 attachments, 5 edges, 1 dead links, 1 parse errors (6 added")
    assert "  broken.md:3: broken YAML frontmatter" in r.stdout
    assert (vault / ".brainwork" / "graph.kuzu").exists()


def test_vault_from_environment_and_group_options(run, vault, tmp_path):
    r = run("index", "--json", "--store", str(tmp_path / "s1"), env={"BRAINWORK_VAULT": str(vault)})
    assert json.loads(r.stdout)["pages"] == 5
    r = run("--vault", str(vault), "--store", str(tmp_path / "s2"), "index", "--json")
    assert json.loads(r.stdout)["pages"] == 5


def test_stats(run, vault, tmp_path):
    r = run("stats", "--json", "--vault", str(vault), "--store", str(tmp_path / "s"))
    data = json.loads(r.stdout)
    assert data["pages"] == 5 and data["attachments"] == 1 and data["dead_links"] == 1
    assert data["parse_errors"] == 1 and data["types"] == {"task": 1, "tool": 1, "correction": 1, "": 2}
    r = run("stats", "--vault", str(vault), "--store", str(tmp_path / "s"))
    assert r.exit_code == 0
    assert "pages: 5  attachments: 1" in r.stdout and "(untyped) 2" in r.stdout
    assert "related 3" in r.stdout and "dead links: 1  parse errors: 1" in r.stdout


def test_show_json_edges_both_ways(run, vault, tmp_path):
    r = run("show", "t1", "--json", "--vault", str(vault), "--store", str(tmp_path / "s"))
    assert r.exit_code == 0, r.output
    page = json.loads(r.stdout)
    assert page["id"] == "tasks/t1" and page["title"] == "2026-07-29" and page["type"] == "task"
    assert page["fields"]["title"] == "2026-07-29"
    out = [(e["edge"], e["other"], e["dead"], e["file"], e["line"]) for e in page["edges"]["out"]]
    assert out == [
        ("used", "tools/hammer", False, "tasks/t1", 4),
        ("corrected_by", "corrections/c1", False, "corrections/c1", 3),
        ("related", "Home", False, "tasks/t1", 6),
        ("related", "ghost", True, "tasks/t1", 6),
    ]
    inc = [(e["edge"], e["other"], e["file"], e["line"]) for e in page["edges"]["in"]]
    assert inc == [("related", "Home", "Home", 2)]


def test_show_text(run, vault, tmp_path):
    r = run("show", "tools/hammer.md", "--vault", str(vault), "--store", str(tmp_path / "s"))
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert lines[0] == "Hammer  [tool]  tools/hammer"
    assert any(l.strip().startswith("← used") and "tasks/t1" in l and "[tasks/t1:4]" in l for l in lines)
    assert any("← related" in l and "corrections/c1" in l for l in lines)


def one_line_error(r) -> str:
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.output
    assert lines[0].startswith("brainwork: error: ")
    return lines[0]


def test_user_errors_are_one_line_exit_2(run, vault, tmp_path):
    store = ["--store", str(tmp_path / "s")]
    assert "is not a folder" in one_line_error(run("index", "--vault", str(tmp_path / "nope")))
    assert "is a file" in one_line_error(run("index", "--vault", str(vault / "Home.md")))
    msg = one_line_error(run("show", "Nothing like it", "--vault", str(vault), *store))
    assert "no page named 'Nothing like it'" in msg
    assert "No such command" in one_line_error(run("frobnicate"))
    assert "No such option" in one_line_error(run("index", "--frob"))
    assert "No such option" in one_line_error(run("--frob", "index"))
    assert "Missing argument" in one_line_error(run("show", "--vault", str(vault), *store))
    (vault / "brainwork.toml").write_text("[thresholds\n")
    assert "brainwork.toml" in one_line_error(run("index", "--vault", str(vault), *store))
    (vault / "brainwork.toml").write_text("[thresholds]\nstub_chars = 'many'\n")
    assert "stub_chars" in one_line_error(run("index", "--vault", str(vault), *store))
    (vault / "brainwork.toml").write_text("[thresholds]\nno_such = 1\n")
    assert "unknown threshold" in one_line_error(run("index", "--vault", str(vault), *store))


def test_store_that_cannot_be_created(run, vault):
    msg = one_line_error(run("index", "--vault", str(vault), "--store", str(vault / "Home.md" / "s")))
    assert "cannot create store folder" in msg


def test_console_script_runs(vault, tmp_path):
    """The installed entry point, as a user runs it."""
    script = Path(sys.executable).with_name("brainwork")
    cmd = [str(script)] if script.exists() else [sys.executable, "-c", "from brainwork.cli import main; main()"]
    out = subprocess.run([*cmd, "--version"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and __version__ in out.stdout
    out = subprocess.run(
        [*cmd, "index", "--json", "--vault", str(vault), "--store", str(tmp_path / "s")],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0 and json.loads(out.stdout)["pages"] == 5
    assert out.stderr == ""  # no progress bar when stderr is not a terminal
