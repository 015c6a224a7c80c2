"""VaultWatcher.ready while the watch restarts after a name that is not
valid UTF-8: clear from the failure until the catch-up batch
(:data:`EVERYWHERE`) has been handed on, so an owner asking whether it
follows the vault (service.freshness) syncs instead of answering from a
store that may lag. A real file with such a name in a real vault, the real
watcher; waits have deadlines.
"""

from __future__ import annotations

import os
import queue
import threading

import pytest

from brainwork.config import load_config
from brainwork.index.watch import EVERYWHERE, VaultWatcher

WAIT = 10.0  # seconds: a restart, then a poll of 1 s, on a busy machine


def test_ready_is_clear_from_the_failure_until_the_catch_up_batch(make_vault) -> None:
    vault = make_vault({"notes/a.md": "# A\n"})
    batches: queue.Queue[tuple[list[str], bool]] = queue.Queue()
    warned: list[bool] = []  # ready.is_set() when the name was said
    said = threading.Event()
    w: VaultWatcher | None = None

    def on_warning(_warning) -> None:
        warned.append(w.ready.is_set())
        said.set()

    w = VaultWatcher(load_config(vault), lambda paths: batches.put((paths, w.ready.is_set())), on_warning=on_warning)
    w.start()
    try:
        assert w.ready.wait(WAIT)
        try:
            with open(os.fsencode(vault) + b"/notes/caf\xe9.md", "wb") as f:
                f.write(b"# x\n")
        except OSError as exc:
            pytest.skip(f"this file system refuses non-UTF-8 names: {exc}")
        assert said.wait(WAIT) and warned == [False]
        while True:
            paths, ready = batches.get(timeout=WAIT)
            if EVERYWHERE in paths:
                break
        assert not ready  # the owner hears of the catch-up before ready says it follows again
        assert w.ready.wait(WAIT) and w.is_running and w.polling
    finally:
        w.stop()
