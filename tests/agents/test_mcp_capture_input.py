"""``capture_correction`` over MCP with text no page can hold: a lone
surrogate or a field far beyond a few sentences is a tool error naming the
field, and nothing is written; control characters are kept, escaped.

The lone surrogate is sent in process (the SDK's ``Client`` on the server
object): every JSON transport refuses to encode one, so only an in-process
caller can hand it over. The size limit is also checked through a real
``brainwork mcp`` subprocess over stdio, and in the CLI, which goes through
the same check in :mod:`brainwork.learn.capture`."""

from __future__ import annotations

import sys

from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from brainwork.agents.mcp_server import build_server
from brainwork.cli import cli
from brainwork.config import load_config
from brainwork.learn.capture import FIELD_MAX

TASK = "tasks/2026-09-09-renew-cert-edi-endpoint"
BRAINWORK = [sys.executable, "-c", "from brainwork.cli import main; main()"]


def _no_store(config, argv):  # the capture tools never call the store's side
    raise AssertionError(f"unexpected store call {argv}")


def _text(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


def _pages(vault) -> set[str]:
    return {p.relative_to(vault).as_posix() for p in vault.rglob("*.md")}


def _record(**fields) -> dict:
    return {"task": TASK, "wrong": "Checked the leaf only", "correct": "Check the whole chain",
            "why": "Old clients need the intermediate", **fields}


async def test_a_lone_surrogate_and_a_huge_field_are_tool_errors_naming_the_field(sample_vault_copy):
    vault = sample_vault_copy
    before = _pages(vault)
    server = build_server(load_config(vault), _no_store)
    async with Client(server) as client:
        r = await client.call_tool("capture_correction", _record(why="half \ud800 a pair"))
        assert r.is_error
        assert _text(r) == "field 'why' is not UTF-8 text (lone surrogate U+D800 at character 6); nothing was written"

        huge = "x" * (5 * 1024 * 1024)
        r = await client.call_tool("capture_correction", _record(wrong=huge))
        assert r.is_error
        assert _text(r) == (f"field 'wrong' is 5,242,880 characters (5,242,880 bytes); a field holds at most "
                            f"{FIELD_MAX:,}; nothing was written")
        r = await client.call_tool("capture_correction", _record(correct="y" * FIELD_MAX))
        assert not r.is_error, _text(r)  # the limit itself is accepted
        assert len(_pages(vault)) == len(before) + 1

        r = await client.call_tool("capture_correction", _record(wrong="Ran it \x00twice, saw \x1b[31mred\x1b[0m"))
        assert not r.is_error, _text(r)
        page = (vault / r.structured_content["path"]).read_text(encoding="utf-8")
        assert "\x00" not in page and "\x1b" not in page
        assert 'wrong: "Ran it \\\\x00twice, saw \\\\x1b[31mred\\\\x1b[0m"' in page  # kept, visibly escaped


async def test_a_huge_field_over_stdio_is_a_tool_error(sample_vault_copy, tmp_path):
    vault = sample_vault_copy
    before = _pages(vault)
    params = StdioServerParameters(command=BRAINWORK[0], args=[*BRAINWORK[1:], "mcp", "--vault", str(vault)])
    async with Client(params, read_timeout_seconds=120) as client:
        r = await client.call_tool("capture_correction", _record(why="z" * (FIELD_MAX + 1)))
        assert r.is_error
        assert _text(r).startswith(f"field 'why' is {FIELD_MAX + 1:,} characters")
    assert _pages(vault) == before


def test_the_cli_refuses_a_huge_field_the_same_way(sample_vault_copy):
    vault = sample_vault_copy
    before = _pages(vault)
    r = CliRunner().invoke(cli, ["capture", "correction", "--vault", str(vault), "--task", TASK,
                                 "--wrong", "é" * (FIELD_MAX + 1), "--correct", "c", "--why", "w"])
    assert r.exit_code == 2
    assert (f"field 'wrong' is {FIELD_MAX + 1:,} characters ({2 * (FIELD_MAX + 1):,} bytes); "
            f"a field holds at most {FIELD_MAX:,}; nothing was written") in r.output
    assert _pages(vault) == before
