"""``brainwork check`` (docs/findings.md): formats, code filter, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from brainwork.cli import cli

PROSE = (
    "A page with enough prose to be no stub: it says what the thing is, why it matters, who looks "
    "after it and where to go next."
)


def page(title: str, body: str = PROSE, type_: str = "topic") -> str:
    return f"---\ntitle: {title}\ntype: {type_}\n---\n{body}\n"


@pytest.fixture
def run(tmp_path):
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(cli, [*args, "--store", str(tmp_path / "store")], catch_exceptions=False)

    return invoke


def test_text_format_like_a_linter_and_exit_1(make_vault, run):
    vault = make_vault({"a.md": page("A", PROSE + " [[b]] [[ghost]]"), "b.md": page("B", "tiny")})
    result = run("check", "--vault", str(vault))
    assert result.exit_code == 1, result.output
    assert result.output.splitlines() == [
        "a.md:5: dead-link link to missing page 'ghost'",
        "b.md:5: stub only 4 characters of body text (a stub has fewer than 120)",
    ]


def test_json_format_keys_and_code_filter(make_vault, run):
    vault = make_vault({"a.md": page("A", PROSE + " [[ghost]]"), "b.md": page("B", "tiny")})
    result = run("check", "--vault", str(vault), "--format", "json", "--code", "stub", "--code", "orphan")
    assert result.exit_code == 1
    rows = json.loads(result.output)
    assert [(r["code"], r["path"]) for r in rows] == [("orphan", "a.md"), ("orphan", "b.md"), ("stub", "b.md")]
    assert all(set(r) == {"code", "path", "line", "message", "target", "score", "other"} for r in rows)
    assert rows[2]["score"] == 4
    comma = json.loads(run("check", "--vault", str(vault), "--format", "json", "--code", "stub,orphan").output)
    assert comma == rows


def test_clean_vault_exits_0(make_vault, run):
    vault = make_vault({"a.md": page("A", PROSE + " [[b]]"), "b.md": page("B")})
    result = run("check", "--vault", str(vault))
    assert result.exit_code == 0 and result.output == ""
    assert json.loads(run("check", "--vault", str(vault), "--format", "json").output) == []


def test_dismissed_findings_leave_output_and_exit_code(make_vault, run, tmp_path):
    from brainwork.config import load_config
    from brainwork.store import Store, dismissals

    vault = make_vault({"a.md": page("A", PROSE + " [[b]]"), "b.md": page("B", "tiny")})
    assert run("check", "--vault", str(vault)).exit_code == 1
    store = Store(load_config(vault, tmp_path / "store").store)
    try:
        dismissals.dismiss(store, "stub:b", "kept short on purpose")
    finally:
        store.close()
    assert run("check", "--vault", str(vault)).exit_code == 0
    shown = run("check", "--vault", str(vault), "--include-dismissed")
    assert shown.exit_code == 0
    assert shown.output.strip().endswith("(dismissed)")
    rows = json.loads(run("check", "--vault", str(vault), "--include-dismissed", "--format", "json").output)
    assert [(r["code"], r["dismissed"]) for r in rows] == [("stub", True)]


def test_errors_exit_2(make_vault, tmp_path):
    vault = make_vault({"a.md": page("A")})
    runner = CliRunner()
    bad_code = runner.invoke(cli, ["check", "--vault", str(vault), "--store", str(tmp_path / "s"), "--code", "nope"])
    assert bad_code.exit_code == 2 and "unknown code nope" in bad_code.output
    missing = runner.invoke(cli, ["check", "--vault", str(tmp_path / "no-such-vault")])
    assert missing.exit_code == 2 and "is not a folder" in missing.output


def test_console_script_runs_in_a_subprocess(make_vault, tmp_path):
    vault = make_vault({"a.md": page("A")})
    proc = subprocess.run(
        [sys.executable, "-c", "from brainwork.cli import main; main()", "check", "--vault", str(vault),
         "--store", str(tmp_path / "store")],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == "a.md:1: orphan no links to or from other pages\n"


def test_keys_option_gives_what_dismiss_takes(make_vault, run):
    vault = make_vault({"a.md": page("A", PROSE + " [[b]]"), "b.md": page("B", "tiny")})
    text = run("check", "--vault", str(vault), "--keys")
    assert text.output.strip().endswith("[stub:b]")
    rows = json.loads(run("check", "--vault", str(vault), "--format", "json", "--keys").output)
    assert [r["key"] for r in rows] == ["stub:b"]
    assert run("dismiss", "stub:b", "--vault", str(vault), "--reason", "short on purpose").exit_code == 0
    assert run("check", "--vault", str(vault)).exit_code == 0
