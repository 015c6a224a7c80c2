"""``brainwork search --type T`` with no page of that type matching: the
answer says the filter emptied it and how many other pages match."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from brainwork.cli import cli


@pytest.fixture
def run(make_vault):
    vault = make_vault({
        "Plugins.md": "# Plugins\n\n[[Plugin list]] [[tasks/2026-09-02-renew]]\n",
        "Plugin list.md": "# Plugin list\n\nEvery plugin.\n",
        "tools/plugin-loader.md": "---\ntitle: Plugin loader\ntype: tool\n---\nLoads.\n",
        "tasks/2026-09-02-renew.md": "---\ntitle: Renew the certificate\ntype: task\n---\nDone.\n",
    })
    runner = CliRunner()
    return lambda *args: runner.invoke(cli, ["--vault", str(vault), "search", *args], catch_exceptions=False)


def test_an_emptied_type_filter_says_what_other_pages_match(run) -> None:
    out = run("plugin", "--type", "task")
    assert out.exit_code == 0 and out.stdout == ""
    assert out.stderr == "no task page matches 'plugin' (3 other pages do; leave out --type to list them)\n"
    out = run("loader", "--type", "task")  # one other page, of another type
    assert out.stderr == "no task page matches 'loader' (1 other page does; leave out --type to list them)\n"


def test_no_match_anywhere_stays_the_plain_answer(run) -> None:
    out = run("zzzzqqqq", "--type", "task")
    assert out.exit_code == 0 and out.stderr == "no task page matches 'zzzzqqqq'\n"
    assert run("zzzzqqqq").stderr == "no page matches 'zzzzqqqq'\n"
    assert run("plugin", "--type", "task", "--json").stdout.strip() == "[]"  # JSON stays the list
