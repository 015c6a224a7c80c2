"""``brainwork merge`` without a terminal to answer says what to do."""

from __future__ import annotations

from click.testing import CliRunner

from brainwork.cli import cli


def test_merge_without_an_answer_says_what_to_do(make_vault, tmp_path) -> None:
    """With stdin closed (a script, an agent) and no --yes, click printed only
    "Aborted!"."""
    vault = make_vault({"Hub.md": "# Hub\n", "Hub copy.md": "# Hub copy\n[[Hub]]\n", "a.md": "[[Hub copy]]\n"})
    r = CliRunner().invoke(
        cli, ["merge", "Hub copy", "Hub", "--vault", str(vault), "--store", str(tmp_path / "s")], input="",
        catch_exceptions=False,
    )
    assert r.exit_code == 1
    assert "Aborted!" not in r.output
    assert "brainwork: merge cancelled (no answer; add --yes to merge); nothing was changed" in r.output
    assert (vault / "Hub copy.md").exists() and (vault / "a.md").read_text() == "[[Hub copy]]\n"
