"""The workbench open (Pilot) and two MCP agents at once against its vault,
in a process of its own: ``python workbench_agents.py VAULT LOGDIR``.

Run by ``test_mcp_server.test_servers_work_while_the_workbench_is_open``
with a timeout. The workbench runs in-process with its thread workers, and a
thread that never returns (a deadlock between the workbench's indexer and a
served command did exactly that) keeps a process from exiting: here it can
only end this process, which the test kills, never the test run. Before the
test's own timeout, faulthandler prints every thread's stack and exits, so a
hang reports where each thread waits.

Prints one JSON line (ids, owner, page counts); exits 1 on a failed check.
"""

from __future__ import annotations

import asyncio
import faulthandler
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import test_mcp_server as t  # noqa: E402 - the helpers the in-process tests use

from brainwork.config import load_config  # noqa: E402
from brainwork.service import owner  # noqa: E402

#: Seconds before the stacks are dumped and this process exits (the test
#: waits a little longer).
BUDGET = float(os.environ.get("WORKBENCH_AGENTS_BUDGET", "420"))


async def main(vault: Path, logs: Path) -> dict:
    from brainwork.cli.served import run_request
    from brainwork.tui.app import BrainworkApp

    app = BrainworkApp(load_config(vault), serve=run_request)
    async with app.run_test(size=(120, 40)) as pilot:
        if not await t._until(lambda: app.owner is not None and app.indexed, 120, pilot):
            raise AssertionError("the workbench did not open and index the vault")
        pages_before = t._pages(app.counts)
        ids = await t._two_agents(vault, logs, "Workbench MCP")
        st = owner.status(app.config)
        # the open workbench shows the agents' pages (2 tasks, 2 corrections)
        shown = await t._until(lambda: app.counts and t._pages(app.counts) == pages_before + 4, 30, pilot)
        return {
            "ids": ids, "owner_kind": st.kind if st else None, "owner_pid": st.pid if st else None,
            "pid": os.getpid(), "pages_before": pages_before, "pages_after": t._pages(app.counts), "shown": shown,
        }


if __name__ == "__main__":
    faulthandler.dump_traceback_later(BUDGET, exit=True)
    result = asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2])))
    print(json.dumps(result), flush=True)
    # still armed: a thread that keeps the process from exiting gets its stack printed too
