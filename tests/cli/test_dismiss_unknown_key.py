"""``brainwork dismiss KEY`` dismisses a finding that exists: a key no
current finding has (a typo, an unknown code) is refused, exit 2, nothing
logged, with the close keys suggested."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from brainwork.cli import cli


@pytest.fixture
def run(make_vault, tmp_path):
    vault = make_vault({"Hub.md": "# Hub\nhub page\n", "a.md": "links [[Hub]] and [[Ghost]]\n"})
    base = ["--vault", str(vault), "--store", str(tmp_path / "store")]
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, [*base, *args])


def _log(run) -> list[str]:
    return [e["kind"] for e in json.loads(run("log", "--json").output)]


def test_a_key_with_an_unknown_code_is_refused(run) -> None:
    r = run("dismiss", "bogus:key")
    assert r.exit_code == 2, r.output
    assert "no finding has the key 'bogus:key': a key starts with a finding code (" in r.output
    assert "`brainwork check --keys` lists them" in r.output
    assert _log(run) == []


def test_a_misspelt_key_is_refused_with_the_close_keys(run) -> None:
    r = run("dismiss", "dead-link:a|ghots")
    assert r.exit_code == 2, r.output
    assert "no finding has the key 'dead-link:a|ghots'; did you mean 'dead-link:a|ghost'?" in r.output
    assert _log(run) == []


def test_a_current_key_is_dismissed_and_again_once_dismissed(run) -> None:
    keys = run("check", "--keys").output
    assert "[dead-link:a|ghost]" in keys
    r = run("dismiss", "dead-link:a|ghost", "--reason", "on purpose")
    assert r.exit_code == 0 and "dismiss dead-link:a|ghost (on purpose) (operation #1)" in r.output
    assert "dead-link" not in run("check").output
    # A dismissed finding still exists: dismissing it again is not a typo.
    assert run("dismiss", "dead-link:a|ghost").exit_code == 0
    assert _log(run) == ["dismiss", "dismiss"]
