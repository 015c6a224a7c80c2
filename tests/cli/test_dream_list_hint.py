"""An unknown proposal id names the command that only lists the review
queue (`brainwork dream list`), not `brainwork dream`, which gathers anew."""

from __future__ import annotations

from click.testing import CliRunner

from brainwork.cli import cli


def test_an_unknown_proposal_points_to_dream_list(tmp_path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n", encoding="utf-8")
    r = CliRunner().invoke(cli, ["--vault", str(vault), "--store", str(tmp_path / "store"), "dream", "accept", "999"])
    assert r.exit_code != 0
    assert "no proposal 999 in the review queue (`brainwork dream list` lists them)" in r.output
    assert "dream --json" not in r.output
