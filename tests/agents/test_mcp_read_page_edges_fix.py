"""``read_page`` over MCP (a real ``brainwork mcp`` subprocess, the SDK's
client) on a hub page: at most MCP_PAGE_EDGES_MAX edges each way, a line
saying how many more, and each way's total in the structured content; a
page with few edges lists them all, as before."""

from __future__ import annotations

import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from brainwork.thresholds import MCP_PAGE_EDGES_MAX

BRAINWORK = [sys.executable, "-c", "from brainwork.cli import main; main()"]
CALL_TIMEOUT = 300
LINKS_IN, LINKS_OUT = 3 * MCP_PAGE_EDGES_MAX + 5, MCP_PAGE_EDGES_MAX + 1


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


async def test_a_hub_pages_edges_are_capped_each_way(sample_vault_copy: Path, tmp_path: Path):
    vault = sample_vault_copy
    notes = vault / "notes"
    notes.mkdir(exist_ok=True)
    out_links = "\n".join(f"- [[notes/leaf-{i:03d}]]" for i in range(LINKS_OUT))
    (notes / "hub.md").write_text(f"---\ntitle: Hub\n---\n\n{out_links}\n", encoding="utf-8")
    for i in range(max(LINKS_IN, LINKS_OUT)):
        back = "See [[notes/hub]].\n" if i < LINKS_IN else ""
        (notes / f"leaf-{i:03d}.md").write_text(f"---\ntitle: Leaf {i}\n---\n\n{back}", encoding="utf-8")

    async with mcp_session(vault, tmp_path / "server.log") as s:
        r = await s.call_tool("read_page", {"page": "notes/hub"})
        assert not r.is_error, _texts(r)
        edges_text = _texts(r)[-1]
        lines = edges_text.splitlines()
        assert lines[0] == "Edges of notes/hub:"
        assert sum(1 for ln in lines if ln.startswith("- ← ")) == MCP_PAGE_EDGES_MAX
        assert sum(1 for ln in lines if " → " in ln) == MCP_PAGE_EDGES_MAX
        assert "- … and 1 more link out (`brainwork show notes/hub` lists them all)" in lines
        assert f"- … and {LINKS_IN - MCP_PAGE_EDGES_MAX:,} more backlinks in (`brainwork show notes/hub` lists them all)" in lines
        edges = r.structured_content["edges"]
        assert len(edges["out"]) == len(edges["in"]) == MCP_PAGE_EDGES_MAX
        assert edges["out_total"] == LINKS_OUT and edges["in_total"] == LINKS_IN

        r = await s.call_tool("read_page", {"page": "notes/leaf-000"})
        lines = _texts(r)[-1].splitlines()
        assert lines[1:] == ["- related → notes/hub (Hub)", "- ← related notes/hub (Hub)"], lines  # linked both ways
        assert r.structured_content["edges"]["in_total"] == 1 and r.structured_content["edges"]["out_total"] == 1
