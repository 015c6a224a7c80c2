"""``brainwork log -n N`` takes N >= 1: zero or a negative count is a usage
error (exit 2) naming the option, not a store traceback or the whole log."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from brainwork.cli import cli


@pytest.fixture
def base(make_vault, tmp_path):
    vault = make_vault({"a.md": "# a\n", "b.md": "# b\n[[a]]\n"})
    base = ["--vault", str(vault), "--store", str(tmp_path / "store")]
    runner = CliRunner()
    for page in ("a", "b"):
        r = runner.invoke(cli, [*base, "set-type", page, "topic"], catch_exceptions=False)
        assert r.exit_code == 0, r.output
    return base


@pytest.mark.parametrize("n", ["-3", "0"])
def test_log_refuses_a_count_below_one(base, n) -> None:
    r = CliRunner().invoke(cli, [*base, "log", "-n", n])
    assert r.exit_code == 2, r.output
    assert "Invalid value for '--limit' / '-n'" in r.output and ">=1" in r.output
    assert "Traceback" not in r.output and "kuzu" not in r.output.lower()


def test_log_n_one_lists_the_newest_operation(base) -> None:
    r = CliRunner().invoke(cli, [*base, "log", "-n", "1"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert len(lines) == 1 and "set-type" in lines[0] and "#2" in lines[0]
    r = CliRunner().invoke(cli, [*base, "log"], catch_exceptions=False)
    assert len(r.output.splitlines()) == 2
