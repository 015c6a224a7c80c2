"""``read_page`` over MCP (a real ``brainwork mcp`` subprocess, the SDK's
client) on files that are not UTF-8 text: a binary file (a NUL byte) and a
Latin-1 file answer with one line saying so (for the latter, the byte, its
offset and its line), as the indexer parses neither, instead of their bytes
decoded with replacement characters."""

from __future__ import annotations

import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

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


async def test_binary_and_non_utf8_pages_are_named_not_sent(sample_vault_copy: Path, tmp_path: Path):
    vault = sample_vault_copy
    (vault / "notes").mkdir(exist_ok=True)
    (vault / "notes/blob.md").write_bytes(b"---\ntitle: Blob\n---\nsome text\n\x00\x01\x02\xff\xfe binary tail\n" * 50)
    latin = "---\ntitle: Caf\xe9\n---\n\nLe caf\xe9 est pr\xeat.\n".encode("latin-1")
    (vault / "notes/latin.md").write_bytes(latin)
    bad_at = latin.index(b"\xe9")

    async with mcp_session(vault, tmp_path / "server.log") as s:
        r = await s.call_tool("read_page", {"page": "notes/blob"})
        assert not r.is_error, _texts(r)
        texts = _texts(r)
        assert "\ufffd" not in "".join(texts) and "\x00" not in "".join(texts)
        note = texts[0]
        assert note.startswith("(notes/blob.md is a binary file (NUL byte at offset 30, line 5), not text: not parsed")
        assert "\n" not in note and len(note) < 400
        assert texts[1].startswith("Edges of ") and len(texts) == 2
        part = r.structured_content["part"]
        assert r.structured_content["text"] is None and part["not_text"] == "binary"
        assert part["total_chars"] is None and not part["too_large"] and part["next_offset"] is None

        r = await s.call_tool("read_page", {"page": "notes/latin"})
        assert not r.is_error, _texts(r)
        texts = _texts(r)
        assert "\ufffd" not in "".join(texts)
        assert texts[0].startswith(f"(notes/latin.md is not UTF-8 (byte 0xe9 at offset {bad_at}, line 2): not parsed")
        assert r.structured_content["text"] is None and r.structured_content["part"]["not_text"] == "not UTF-8"

        # a UTF-8 page still comes whole
        r = await s.call_tool("read_page", {"page": "tools/certbot"})
        assert _texts(r)[0] == (vault / "tools/certbot.md").read_text(encoding="utf-8")
        assert r.structured_content["part"]["not_text"] is None
