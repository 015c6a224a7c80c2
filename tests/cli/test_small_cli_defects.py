"""Small CLI defects: "did you mean" only suggests resembling pages, capture
without a type is one line, a cancelled merge exits 1."""

from __future__ import annotations

from click.testing import CliRunner

from brainwork.cli import cli


def _run(*args: str, input: str | None = None):
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def test_did_you_mean_suggests_only_resembling_pages(make_vault, tmp_path) -> None:
    vault = make_vault({"tools/Postgres.md": "# Postgres\n", "tasks/renew.md": "---\ntitle: Renew TLS cert\n---\nx\n"})
    base = ["--vault", str(vault), "--store", str(tmp_path / "s")]
    r = _run("show", "Postgress", *base)
    assert r.exit_code == 2 and "did you mean 'tools/Postgres'?" in r.output and "renew" not in r.output
    r = _run("show", "xyzzy plugh", *base)
    assert r.exit_code == 2 and "no page named 'xyzzy plugh'" in r.output and "did you mean" not in r.output


def test_capture_without_a_type_is_one_line() -> None:
    r = _run("capture")
    assert r.exit_code == 2
    assert r.output.strip().count("\n") == 0 and "capture needs a type: task, correction" in r.output


def test_a_cancelled_merge_exits_1(make_vault, tmp_path) -> None:
    vault = make_vault({"A.md": "# A\nalpha\n", "B.md": "# B\nbeta [[A]]\n"})
    r = _run("--vault", str(vault), "--store", str(tmp_path / "s"), "merge", "B", "A", input="n\n")
    assert r.exit_code == 1 and "merge cancelled" in r.output
    assert (vault / "B.md").exists()
