"""One lock order in the workbench: the store handle's exclusive claim, then
the store's writer lock.

A served command holds the handle exclusively and then takes the store's
writer lock for its writes (adopting a capture, an approve). The indexer
once took them the other way round (the writer lock for the whole sync, the
handle only at its "writing" step), and an agent's capture followed by its
next command deadlocked the open workbench. Here the served command's side
is played by a thread, step by step, so the order is checked every run
rather than when the timing happens to hit.
"""

from __future__ import annotations

import threading
import time

from brainwork.config import load_config


async def test_the_indexer_never_holds_the_writer_lock_while_waiting_for_the_handle(sample_vault_copy):
    from brainwork.tui.app import BrainworkApp

    vault = sample_vault_copy
    app = BrainworkApp(load_config(vault), serve=False)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(1200):
            if app.store.is_open and app.indexed and not any(w.group == "index" and not w.is_finished for w in app.workers):
                break
            await pilot.pause(0.1)
        assert app.indexed

        holding = threading.Event()
        release = threading.Event()
        outcome: dict[str, bool] = {}

        def served_command() -> None:
            with app.store.exclusive() as store:  # as cli.common.open_store does for a served command
                holding.set()
                release.wait(60)
                # the command's write: the store's writer lock, bounded so a
                # wrong order fails the test instead of hanging it
                got = store._write_lock.acquire(timeout=10)
                outcome["wrote"] = got
                if got:
                    store._write_lock.release()

        thread = threading.Thread(target=served_command, daemon=True)
        thread.start()
        assert holding.wait(30)
        # a change on disk, then a sync of it while the command holds the handle
        (vault / "lock-order-probe.md").write_text("# Lock order probe\n\nA page.\n", encoding="utf-8")
        app.action_reindex(quiet=True)
        await pilot.pause(2.0)  # the indexer is now waiting for the handle
        release.set()
        deadline = time.monotonic() + 60
        while thread.is_alive() and time.monotonic() < deadline:
            await pilot.pause(0.1)
        assert outcome.get("wrote") is True, "the served command could not take the writer lock: the indexer held it"
        # and the sync went on once the command let go
        for _ in range(600):
            if app.counts is not None and any(p.id == "lock-order-probe" for p in (app.pages or [])):
                break
            await pilot.pause(0.1)
        assert any(p.id == "lock-order-probe" for p in (app.pages or []))
