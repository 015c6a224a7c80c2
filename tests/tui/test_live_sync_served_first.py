"""Pilot test: a change a command served by the workbench synced before the
workbench's own live sync still reaches the views (tui/live_sync.py).

An agent writes a file and at once runs ``brainwork index``, which the open
workbench answers (cli/served.run_request, called here on the UI thread, so
the watcher's batch for that file waits behind it). The live sync that
follows then finds the store up to date and writes nothing; the status bar,
the page list and the findings must still show what a fresh start shows.
A real store, real files (one with a name that is not UTF-8), the real
watcher.
"""

from __future__ import annotations

import os

import pytest

from brainwork.cli.served import run_request
from brainwork.service.owner import Request
from brainwork.store import graph
from brainwork.tui.app import BrainworkApp
from brainwork.tui.widgets.page_list import PageList

from live_sync_support import SIZE, findings_after_first_check, live_syncs, open_with_watcher, until  # tests/tui is on sys.path

NEW = "topics/indexed-by-an-agent"


def served_index(app) -> str:
    reply = run_request(app.config, app.store, Request(argv=["index"]))
    assert reply.exit_code == 0, reply.stderr
    return reply.stdout


def fresh_counts(app) -> graph.GraphCounts:
    """What a workbench started now would show."""
    with app.store.use() as store:
        return graph.counts(store)


async def test_a_change_a_served_index_synced_first_reaches_the_views(sample_config, settle) -> None:
    vault = sample_config.vault
    messages: list = []
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await open_with_watcher(pilot, settle)
        graph_list = app.screen.query_one(PageList)
        findings = await findings_after_first_check(pilot, settle)
        pages, errors = app.counts.pages, app.counts.parse_errors

        # A new page: the page list and the counts.
        (vault / f"{NEW}.md").write_text("---\ntype: topic\n---\n# Indexed by an agent\n", encoding="utf-8")
        served_index(app)
        await until(pilot, lambda: any(not m.report.wrote for m in live_syncs(messages)), "the live sync after it")
        await until(pilot, lambda: app.counts.pages == pages + 1, "the new page counted")
        assert graph_list.row_count == pages + 1
        assert app.counts == fresh_counts(app)

        # A name that is not UTF-8: the parse error in the status bar and the findings.
        os.makedirs(vault / "hostile", exist_ok=True)
        try:
            with open(os.fsencode(vault) + b"/hostile/bad\xffname.md", "wb") as f:
                f.write(b"---\ntitle: x\ntype: topic\n---\nbody\n")
        except OSError as exc:
            pytest.skip(f"this file system refuses non-UTF-8 names: {exc}")
        messages.clear()
        assert "hostile/bad\\xffname.md:1: file name is not UTF-8" in served_index(app)
        await until(pilot, lambda: any(not m.report.wrote for m in live_syncs(messages)), "the live sync after it")
        await until(pilot, lambda: app.counts.parse_errors == errors + 1, "the parse error counted")
        assert f"{errors + 1} parse error" in str(findings.query_one("#status-counts").render())
        await until(
            pilot,
            lambda: [(f.path, f.line) for f in findings.findings or [] if f.code == "parse-error"]
            == [("hostile/bad\\xffname.md", 1)],
            "the parse error in the findings",
        )
        assert app.counts == fresh_counts(app)
