"""``brainwork mcp``: a real server subprocess driven by the MCP SDK's own
client (``ClientSession`` over ``stdio_client``, and the streamable HTTP
client for ``--http``), on a copy of sample_vault: alone, several at once,
beside ``brainwork serve`` and beside the open workbench (Pilot, in this
process).
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from brainwork.config import load_config
from brainwork.service import owner

BRAINWORK = [sys.executable, "-c", "from brainwork.cli import main; main()"]
CERT_TASK = "tasks/2026-09-09-renew-cert-edi-endpoint"
TOOLS = {"capture_task", "capture_correction", "capture_source", "capture_tool", "capture_decision",
         "capture_artifact", "recall", "doctrine", "search", "read_page"}
#: Seconds one tool call may take: a first recall loads the model in the
#: server process (and embeds up to 32 pages itself, service.embedding).
CALL_TIMEOUT = 600
#: Seconds several agent sessions together may take: past it they are
#: cancelled and the SDK's client ends their server processes.
AGENTS_TIMEOUT = 400


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra)
    return env


@asynccontextmanager
async def mcp_session(vault: Path, log: Path, **env: str):
    """An initialised client session with ``brainwork mcp --vault VAULT``;
    the server's stderr goes to ``log``."""
    params = StdioServerParameters(command=BRAINWORK[0], args=[*BRAINWORK[1:], "mcp", "--vault", str(vault)],
                                   env=_env(**env))
    with open(log, "a", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=CALL_TIMEOUT) as session:
                await session.initialize()
                yield session


def _text(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")


async def _ok(session: ClientSession, tool: str, **arguments):
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, (tool, _text(result))
    return result


def _index(vault: Path) -> None:
    out = subprocess.run([*BRAINWORK, "--vault", str(vault), "index"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr


async def test_tools_list_and_each_tool_answers(embedded_vault_copy, tmp_path):
    vault = embedded_vault_copy
    async with mcp_session(vault, tmp_path / "server.log") as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert set(tools) == TOOLS
        props = tools["capture_task"].input_schema["properties"]
        assert {"request", "summary", "outcome", "used", "cited", "produced", "tags", "title"} <= set(props)
        assert set(tools["capture_correction"].input_schema["required"]) == {"wrong", "correct", "why"}
        assert "task" in tools["capture_correction"].input_schema["properties"]
        assert "whenever the user corrects you" in tools["capture_correction"].description
        assert "before starting a task" in tools["recall"].description

        r = await _ok(s, "capture_task", request="Renew the partner cert via MCP", outcome="success",
                      used=["tools/certbot"], tags=["tls", "mcp"])
        task = r.structured_content["id"]
        assert task.startswith("tasks/") and (vault / f"{task}.md").is_file()
        assert r.structured_content["links"] == {"used": ["tools/certbot"]}
        assert task in _text(r)

        r = await _ok(s, "capture_correction", task=task, wrong="Checked the local file only",
                      correct="Check the chain the endpoint serves", why="Clients see the served chain")
        corr = r.structured_content["id"]
        text = (vault / f"{corr}.md").read_text(encoding="utf-8")
        assert "status: open" in text and f"[[{task}]]" in text

        for tool, args in (
            ("capture_source", {"ref": "https://example.org/chains-via-mcp", "reliability": "held-up", "cited_by": task}),
            ("capture_tool", {"name": "mcp-inspector-tool", "right_choice": True, "used_by": [task]}),
            ("capture_decision", {"choice": "Serve the full chain from the proxy", "reasoning": "old clients"}),
            ("capture_artifact", {"location": "ops/mcp-runbook.md", "kind": "runbook", "produced_by": task}),
        ):
            r = await _ok(s, tool, **args)
            assert (vault / r.structured_content["path"]).is_file(), tool

        r = await _ok(s, "doctrine")
        assert "verify-full-cert-chain" in _text(r)
        assert r.structured_content["rules"]

        r = await _ok(s, "search", query="certbot")
        assert r.structured_content["pages"][0]["id"] == "tools/certbot"
        assert _text(r).splitlines()[0].startswith("tools/certbot")
        r = await _ok(s, "search", query="Renew the partner cert via MCP", type="task", limit=3)
        assert r.structured_content["pages"][0]["id"] == task  # captured just now: the owner-less call syncs first

        r = await _ok(s, "read_page", page="tools/certbot")
        assert r.content[0].text == (vault / "tools/certbot.md").read_text(encoding="utf-8")
        assert "← used " in r.content[1].text
        assert any(e["other"] == task for e in r.structured_content["edges"]["in"])

        r = await _ok(s, "recall", task="renew the partner endpoint certificate")
        assert "Renew" in _text(r) and r.structured_content["tasks"]
    assert owner.status(load_config(vault)) is None  # the server never became the store's owner


async def test_bad_arguments_are_tool_errors_and_the_server_goes_on(embedded_vault_copy, tmp_path):
    vault = embedded_vault_copy
    async with mcp_session(vault, tmp_path / "server.log") as s:
        for tool, args, start in (
            ("capture_correction", {"wrong": "w", "correct": "c"}, "missing argument: why"),
            ("capture_task", {"request": "x", "outcome": "bogus"}, "outcome must be one of success, partial, failed"),
            ("capture_task", {"request": "x", "used": ["no such tool anywhere"]}, "used: no page named"),
            ("capture_task", {}, "give the task a title"),
            ("capture_task", {"request": "x", "created": "2026-13-45"}, "created must be a real date"),
            ("read_page", {"page": "no such page at all"}, "no page named"),
            ("search", {"query": "cert", "limit": 0}, "limit:"),
            ("search", {"query": "cert", "type": "nonsense"}, "unknown type 'nonsense'"),
            ("search", {"query": "   "}, "give something to search for"),
            ("recall", {}, "missing argument: task"),
            ("capture_task", {"request": "x", "sumary": "typo"}, "unknown argument 'sumary'; capture_task takes:"),
            ("doctrine", {"budget": 3}, "unknown argument 'budget'; doctrine takes: none"),
        ):
            r = await s.call_tool(tool, args)
            assert r.is_error, (tool, args)
            message = _text(r)
            assert message.startswith(start), (tool, message)
            assert "\n" not in message.strip() and "Error executing tool" not in message
        assert not list((vault / "tasks").glob("*-x.md"))  # nothing half-written
        # still answering
        r = await _ok(s, "doctrine")
        assert "verify-full-cert-chain" in _text(r)

        # the doctrine as a prompt and as a resource
        prompts = {p.name for p in (await s.list_prompts()).prompts}
        assert "doctrine" in prompts
        prompt = await s.get_prompt("doctrine")
        assert "verify-full-cert-chain" in prompt.messages[0].content.text
        resources = {str(r.uri): r for r in (await s.list_resources()).resources}
        assert "brainwork://doctrine" in resources
        contents = (await s.read_resource("brainwork://doctrine")).contents
        assert "verify-full-cert-chain" in contents[0].text
        assert contents[0].text == _text(await _ok(s, "doctrine"))


async def test_several_servers_at_once_against_one_vault(embedded_vault_copy, tmp_path):
    """Three agent sessions, no owner: each call opens the store for itself
    and closes it, so the three take turns and none fails."""
    vault = embedded_vault_copy
    _index(vault)

    async def agent(n: int) -> str:
        async with mcp_session(vault, tmp_path / f"server{n}.log", BRAINWORK_STORE_WAIT="120") as s:
            r = await _ok(s, "capture_task", request=f"Parallel MCP job {n}", outcome="success", used="tools/certbot")
            pid = r.structured_content["id"]
            await _ok(s, "doctrine")
            r = await _ok(s, "search", query=f"Parallel MCP job {n}", type="task", limit=1)
            assert r.structured_content["pages"][0]["id"] == pid
            r = await _ok(s, "read_page", page=pid)
            assert f"Parallel MCP job {n}" in r.content[0].text
            return pid

    ids = await asyncio.wait_for(asyncio.gather(*(agent(n) for n in range(3))), AGENTS_TIMEOUT)
    assert len(set(ids)) == 3
    assert owner.status(load_config(vault)) is None


async def _two_agents(vault: Path, tmp_path: Path, prefix: str) -> list[str]:
    """Two sessions at once against a vault whose store another process
    owns: every store call goes to the owner (the store cannot be opened
    beside it), captures write their pages beside it."""

    async def agent(n: int) -> str:
        async with mcp_session(vault, tmp_path / f"{prefix}{n}.log") as s:
            r = await _ok(s, "capture_task", request=f"{prefix} job {n}", outcome="partial", used=["tools/certbot"])
            pid = r.structured_content["id"]
            r = await _ok(s, "capture_correction", task=pid, wrong=f"wrong {n}", correct=f"correct {n}", why=f"why {n}")
            assert "verify-full-cert-chain" in _text(await _ok(s, "doctrine"))
            r = await _ok(s, "read_page", page=CERT_TASK)
            assert r.structured_content["id"] == CERT_TASK
            r = await _ok(s, "search", query=f"{prefix} job {n}", type="task", limit=1)
            assert r.structured_content["pages"][0]["id"] == pid
            bad = await s.call_tool("read_page", {"page": "no such page at all"})
            assert bad.is_error and _text(bad).startswith("no page named")
            return pid

    return list(await asyncio.wait_for(asyncio.gather(*(agent(n) for n in range(2))), AGENTS_TIMEOUT))


async def test_servers_work_while_brainwork_serve_runs(serving, tmp_path):
    vault, proc = serving
    ids = await _two_agents(vault, tmp_path, "Served MCP")
    assert len(set(ids)) == 2
    st = owner.status(load_config(vault))
    assert st is not None and st.pid == proc.pid  # serve kept the store throughout


async def _until(predicate, seconds: float, pilot) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        await pilot.pause(0.1)
    return predicate()


def _pages(counts) -> int:
    """The page count of the workbench's counts (a mapping or a record)."""
    return counts["pages"] if isinstance(counts, dict) else counts.pages


def test_servers_work_while_the_workbench_is_open(embedded_vault_copy, tmp_path):
    """Two MCP servers at once, each driven by the SDK client, while the
    workbench (Pilot) owns the store: in a process of its own
    (``workbench_agents.py``) with a timeout, so that nothing in it can hang
    the test run; on a hang its stacks are on stderr."""
    import json

    vault = embedded_vault_copy
    budget = 420
    proc = subprocess.Popen([sys.executable, str(Path(__file__).with_name("workbench_agents.py")), str(vault), str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env=_env(WORKBENCH_AGENTS_BUDGET=str(budget)))
    try:
        out, err = proc.communicate(timeout=budget + 60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the workbench and the MCP servers it started
        out, err = proc.communicate(timeout=30)
    logs = "".join(f"\n--- {p.name}\n{p.read_text(encoding='utf-8', errors='replace')[-3000:]}" for p in sorted(tmp_path.glob("*.log")))
    assert proc.returncode == 0, f"exit {proc.returncode}\n{err[-12000:]}{logs}"
    result = json.loads(out.strip().splitlines()[-1])
    assert len(set(result["ids"])) == 2
    assert result["owner_kind"] == "workbench" and result["owner_pid"] == result["pid"]
    assert result["shown"], result  # the open workbench shows the agents' pages (2 tasks, 2 corrections)
    assert result["pages_after"] == result["pages_before"] + 4


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_http_transport_on_loopback(embedded_vault_copy, tmp_path):
    from mcp.client.streamable_http import streamable_http_client

    vault = embedded_vault_copy
    port = _free_port()
    log = open(tmp_path / "http.log", "w", encoding="utf-8")
    proc = subprocess.Popen([*BRAINWORK, "mcp", "--vault", str(vault), "--http", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=log, env=_env())
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, (tmp_path / "http.log").read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the HTTP server did not come up"
                await asyncio.sleep(0.2)

        async def agent(n: int) -> str:
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=CALL_TIMEOUT) as s:
                    await s.initialize()
                    assert {t.name for t in (await s.list_tools()).tools} == TOOLS
                    r = await _ok(s, "capture_task", request=f"HTTP MCP job {n}", outcome="success")
                    assert "verify-full-cert-chain" in _text(await _ok(s, "doctrine"))
                    return r.structured_content["id"]

        ids = await asyncio.wait_for(asyncio.gather(*(agent(n) for n in range(2))), AGENTS_TIMEOUT)  # two sessions share one daemon
        assert len(set(ids)) == 2 and all((vault / f"{i}.md").is_file() for i in ids)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
        log.close()


def test_mcp_refuses_a_non_loopback_host(sample_vault_copy):
    from brainwork.agents.mcp_server import serve_http
    from brainwork.cli.served import call
    from brainwork.errors import UserError

    with pytest.raises(UserError, match="loopback only"):
        serve_http(load_config(sample_vault_copy), 8765, call, host="0.0.0.0")


def test_capture_tool_arguments_follow_the_vocabulary():
    """The tools' arguments are the capture command's fields: nothing to keep in step by hand."""
    from brainwork.agents.mcp_server import capture_parameters
    from brainwork.service.capture_options import EDGE_OPTIONS
    from brainwork.learn.capture import CAPTURE_TYPES
    from brainwork.vocabulary import TYPE_FIELDS

    for type_ in CAPTURE_TYPES:
        params, keys = capture_parameters(type_)
        names = {p.name for p in params}
        assert {k for k in TYPE_FIELDS[type_] if k != "status"} <= names
        assert {o.replace("-", "_") for o in EDGE_OPTIONS[type_]} <= names
        assert {keys[o.replace("-", "_")] for o in EDGE_OPTIONS[type_]} == set(EDGE_OPTIONS[type_].values())
