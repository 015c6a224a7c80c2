"""``read_page`` over MCP (a real ``brainwork mcp`` subprocess, the SDK's
client): a long page comes in parts of at most MCP_PAGE_MAX_CHARS, cut at a
line's end, each naming the offset that reads on, and the parts add up to
the file; a file over max_file_bytes is not read; a tiny recall budget
still names the best task."""

from __future__ import annotations

import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from brainwork.thresholds import MAX_FILE_BYTES, MCP_PAGE_MAX_CHARS

BRAINWORK = [sys.executable, "-c", "from brainwork.cli import main; main()"]
CALL_TIMEOUT = 300


@asynccontextmanager
async def mcp_session(vault: Path, log: Path):
    params = StdioServerParameters(command=BRAINWORK[0], args=[*BRAINWORK[1:], "mcp", "--vault", str(vault)],
                                   env=dict(os.environ))
    with open(log, "a", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=CALL_TIMEOUT) as session:
                await session.initialize()
                yield session


def _texts(result) -> list[str]:
    return [c.text for c in result.content if getattr(c, "type", None) == "text"]


def _long_page() -> str:
    lines = [f"- step {n}: renew the certificate and check the chain the endpoint serves, run {n}" for n in range(900)]
    return "---\ntype: task\ntitle: Long runbook\n---\n" + "\n".join(lines) + "\nno newline at the end"


async def test_read_page_in_parts_and_a_file_too_large(embedded_vault_copy, tmp_path):
    vault = embedded_vault_copy
    long_text = _long_page()
    assert len(long_text) > 3 * MCP_PAGE_MAX_CHARS
    (vault / "notes").mkdir(exist_ok=True)
    (vault / "notes/long-runbook.md").write_text(long_text, encoding="utf-8")
    with open(vault / "notes/dump.md", "w", encoding="utf-8") as f:
        f.write("---\ntitle: Dump\n---\n")
        line = "x" * 99 + "\n"
        f.write(line * (MAX_FILE_BYTES // len(line) + 10))

    async with mcp_session(vault, tmp_path / "server.log") as s:
        # a page that fits comes whole, as before
        r = await s.call_tool("read_page", {"page": "tools/certbot"})
        assert not r.is_error
        assert _texts(r)[0] == (vault / "tools/certbot.md").read_text(encoding="utf-8")
        assert _texts(r)[1].startswith("Edges of tools/certbot:")
        assert r.structured_content["part"]["next_offset"] is None and r.structured_content["part"]["note"] is None

        # a long page: parts cut at line ends, each telling where to read on
        parts, offset, calls = [], 0, 0
        while offset is not None:
            r = await s.call_tool("read_page", {"page": "notes/long-runbook", "offset": offset})
            assert not r.is_error, _texts(r)
            text, note = _texts(r)[0], _texts(r)[1]
            part = r.structured_content["part"]
            assert len(text) <= MCP_PAGE_MAX_CHARS and r.structured_content["text"] == text
            assert "body" not in r.structured_content  # the whole body would come along
            assert part["offset"] == offset and part["total_chars"] == len(long_text)
            assert note.startswith(f"[notes/long-runbook.md: characters {offset:,}-")
            if part["next_offset"] is not None:
                assert text.endswith("\n")
                assert f"read_page with offset={part['next_offset']} reads on" in note
                assert str(vault / "notes/long-runbook.md") in note and "more characters" in note
            else:
                assert note.endswith("the end of the page]")
            parts.append(text)
            offset = part["next_offset"]
            calls += 1
        assert "".join(parts) == long_text and calls == 4

        r = await s.call_tool("read_page", {"page": "notes/long-runbook", "max_chars": 100})
        assert not r.is_error and _texts(r)[0] == long_text[: long_text.rfind("\n", 0, 100) + 1]

        # over the indexer's limit: said so, not read
        r = await s.call_tool("read_page", {"page": "notes/dump"})
        assert not r.is_error, _texts(r)
        assert f"over the {MAX_FILE_BYTES:,}-byte limit" in _texts(r)[0] and "not read" in _texts(r)[0]
        assert sum(len(t) for t in _texts(r)) < 2_000
        assert r.structured_content["text"] is None and r.structured_content["part"]["too_large"]

        for args, start in (
            ({"page": "notes/long-runbook", "offset": len(long_text) + 5}, "offset "),
            ({"page": "notes/long-runbook", "max_chars": MCP_PAGE_MAX_CHARS + 1}, "max_chars:"),
            ({"page": "notes/long-runbook", "offset": -1}, "offset:"),
        ):
            r = await s.call_tool("read_page", args)
            assert r.is_error and _texts(r)[0].startswith(start), (args, _texts(r))

        # recall at the tool's least budget still names the best task
        r = await s.call_tool("recall", {"task": "renew edge cert", "budget": 200})
        assert not r.is_error, _texts(r)
        text = _texts(r)[0]
        assert len(text) <= 200 and text.splitlines()[1].startswith("## 1. ")
        assert r.structured_content["tasks"][0]["id"] in text


def test_cut_part_ends_at_a_line_or_cuts_a_longer_line():
    from brainwork.agents.mcp_server import cut_part

    text = "ab\ncd\n" + "e" * 50 + "\nf"
    assert cut_part(text, 0, 4) == (0, 3)
    assert cut_part(text, 3, 4) == (3, 6)
    assert cut_part(text, 6, 10) == (6, 16)  # one line longer than the limit: cut at it
    assert cut_part(text, 0, len(text)) == (0, len(text))
    assert cut_part(text, 57, 10) == (57, len(text))
