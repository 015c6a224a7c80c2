"""Kùzu 0.11.3 corrupts a STRING column when a row with NULL in it is
inserted after values of that column were SET in place and checkpointed
(set-type, then create-page, then every command segfaulted).
Absent page columns are therefore stored as '' and read back as None."""

from __future__ import annotations

import subprocess
import sys

from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.store import Store, graph


def _cli(vault, *args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "from brainwork.cli import main; main()", "--vault", str(vault), *args],
        capture_output=True, text=True, timeout=300,
    )


def test_set_type_then_new_untyped_pages_keep_every_type(sample_vault_copy) -> None:
    vault = sample_vault_copy
    assert _cli(vault, "index").returncode == 0
    # In-place SETs of `type` (each a separate process, so each checkpoints) ...
    assert _cli(vault, "set-type", "topics/on-call-handover", "topic").returncode == 0
    assert _cli(vault, "set-type", "weekly-sync-2026-10-01", "task").returncode == 0
    # ... then new pages with no type at all.
    assert _cli(vault, "create-page", "systems/legacy-ftp").returncode == 0
    (vault / "untyped-note.md").write_text("A note without frontmatter.\n", encoding="utf-8")
    stats = _cli(vault, "stats", "--json")
    assert stats.returncode == 0, stats.stderr
    config = load_config(vault)
    with Store(config.store) as store:
        sync(config, store)
        types = {p.id: p.type for p in graph.list_pages(store)}
    assert types["topics/on-call-handover"] == "topic"
    assert types["weekly-sync-2026-10-01"] == "task"
    assert types["untyped-note"] is None
    assert set(types.values()) <= set(config.page_types) | {None}
