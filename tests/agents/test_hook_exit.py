"""The prompt hook on a store whose pages have no vectors yet, with no owner
alive: it answers in its own process, ranks the pages by words, and exits 0
with the same output every time. A whole-vault embedding pass must not be
left running in it: the interpreter's teardown under a thread inside ONNX
Runtime aborts the process (exit 134) after the answer was printed, in some
runs only, so each run also reports the threads still alive when the
interpreter starts its teardown (a ``sitecustomize`` on ``PYTHONPATH``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from brainwork.config import load_config
from brainwork.store import Store
from brainwork.store import vectors as vstore

BRAINWORK = str(Path(sys.executable).with_name("brainwork"))
RUNS = 8
PROMPT = {"session_id": "abc", "prompt": "renew the tls cert on api"}
#: Registered before brainwork is imported, so it runs after every other
#: exit handler, just before the interpreter stops its daemon threads.
THREADS_AT_EXIT = """\
import atexit, sys, threading
atexit.register(lambda: sys.stderr.write("".join(
    f"alive at exit: {t.name}\\n" for t in threading.enumerate() if t is not threading.main_thread())))
"""


@pytest.fixture
def never_embedded(tmp_path: Path, exported_template: Path) -> Path:
    """A sample vault whose store is indexed and holds the ONNX export (so a
    run does not pay torch and an export) but no vectors."""
    dest = tmp_path / "sample_vault"
    shutil.copytree(exported_template, dest)
    with Store(load_config(dest).store) as store:
        vstore.clear(store)
    return dest


def test_the_prompt_hook_exits_0_with_the_same_output_on_a_store_without_vectors(never_embedded, tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(THREADS_AT_EXIT, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("BRAINWORK_VAULT", "BRAINWORK_EMBEDDER")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    payload = json.dumps({**PROMPT, "cwd": str(tmp_path)})
    outputs = []
    for _ in range(RUNS):
        r = subprocess.run([BRAINWORK, "hook", "user-prompt-submit", "--vault", str(never_embedded)], input=payload,
                           capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
        assert r.returncode == 0, r.stderr[-2000:]
        assert "terminate called" not in r.stderr, r.stderr[-2000:]
        assert "alive at exit: brainwork-embed" not in r.stderr, r.stderr[-2000:]
        outputs.append(r.stdout)
    assert outputs[0], "the hook printed nothing"
    assert all(out == outputs[0] for out in outputs)
    context = json.loads(outputs[0])["hookSpecificOutput"]["additionalContext"]
    # Nothing embeds the rest in a process about to exit: the answer says who does.
    assert "results for the rest by words (`brainwork embed` embeds them)" in context
    with Store(load_config(never_embedded).store) as store:
        assert vstore.count(store) == 0


async def test_the_mcp_server_with_no_owner_starts_no_embedding_pass(never_embedded, tmp_path):
    """The MCP server opens the store for each call when no owner is alive
    and closes it after: a pass started by its recall would lose the store
    at the call's end, so recall ranks the pages without vectors by words
    and says that ``brainwork embed`` embeds them; no vector is written."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {k: v for k, v in os.environ.items() if k not in ("BRAINWORK_VAULT", "BRAINWORK_EMBEDDER")}
    params = StdioServerParameters(command=sys.executable,
                                   args=["-c", "from brainwork.cli import main; main()", "mcp", "--vault",
                                         str(never_embedded)], env=env)
    with open(tmp_path / "mcp.log", "a", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool("recall", {"task": PROMPT["prompt"]})
    text = "\n".join(c.text for c in result.content if getattr(c, "type", None) == "text")
    assert not result.is_error, text
    assert "brainwork embed" in text, text
    with Store(load_config(never_embedded).store) as store:
        assert vstore.count(store) == 0
