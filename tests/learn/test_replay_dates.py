"""Replay walks only tasks with a calendar date: a ``created`` that is no
ISO 8601 date (``2026-13-45``, ``yesterday``) leaves its task undated, as
``brainwork check`` reports it (``invalid-field``)."""

from __future__ import annotations

from brainwork.analysis.findings import check
from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.learn.replay import replay
from brainwork.store import Store


def _task(created: str) -> str:
    return f"---\ntype: task\ncreated: {created}\nrequest: renew the cert\n---\n\nrenew the cert\n"


def test_an_invalid_date_leaves_its_task_undated(make_vault, embedder) -> None:
    vault = make_vault({
        "tasks/a.md": _task("2026-03-01"),
        "tasks/b.md": _task("2026-03-02T09:30"),
        "tasks/c.md": _task("2026-13-45"),
        "tasks/d.md": _task("yesterday"),
        "tasks/e.md": _task("2026-02-30 and more"),
    })
    config = load_config(vault)
    store = Store(config.store)
    try:
        sync(config, store)
        rep = replay(config, store, embedder=embedder)
        invalid = {f.page for f in check(config, store, ["invalid-field"])}
    finally:
        store.close()
    assert (rep.tasks, rep.undated_tasks) == (2, 3)
    assert {"tasks/c", "tasks/d", "tasks/e"} <= invalid
