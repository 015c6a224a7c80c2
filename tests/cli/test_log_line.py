"""``brainwork log`` prints each operation's kind once, in its own column,
followed by what happened."""

from __future__ import annotations

from click.testing import CliRunner

from brainwork.cli import cli
from brainwork.config import load_config
from brainwork.learn.capture import propose_correction

TASK = "tasks/2026-09-02-renew-cert-billing-api"


def test_log_line_names_the_kind_once(sample_vault_copy, tmp_path) -> None:
    vault = sample_vault_copy
    base = ["--vault", str(vault), "--store", str(tmp_path / "store")]
    runner = CliRunner()
    assert runner.invoke(cli, [*base, "index"], catch_exceptions=False).exit_code == 0
    config = load_config(vault, tmp_path / "store")
    proposed = propose_correction(config, {"title": "Proposed: no, check the served chain", "wrong": "no, check the served chain",
                                           "corrects": TASK, "session": "s-1", "turn": "1", "created": "2026-11-30"})
    assert runner.invoke(cli, [*base, "rename", "Edge proxy", "Edge gateway"], catch_exceptions=False).exit_code == 0
    r = runner.invoke(cli, [*base, "log"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    rename, propose = lines[0], next(line for line in lines if proposed.id in line)
    assert rename.split()[2:4] == ["rename", "title"] and rename.count("rename") == 1
    assert propose.split()[2:] == ["propose-correction", "correction", proposed.id]
    # the summaries start in one column, however long the kind
    assert rename.index(" title ") == propose.index(" correction ")
