"""StoreHandle: reads and the indexer's write share one Kùzu store safely."""

from __future__ import annotations

import threading
from contextlib import ExitStack

import pytest

from brainwork.index.sync import sync
from brainwork.store import graph
from brainwork.config import load_config
from brainwork.service.handle import StoreHandle, StoreUnavailable


def test_sync_commits_while_other_threads_keep_reading(sample_vault_copy) -> None:
    sample_config = load_config(sample_vault_copy)
    """Without the exclusive claim Kùzu's checkpoint at commit times out
    while reads keep arriving (see brainwork.service.handle's module doc)."""
    handle = StoreHandle(sample_config)
    handle.open()
    stop = threading.Event()
    errors: list[BaseException] = []
    reads = 0

    def reader() -> None:
        nonlocal reads
        while not stop.is_set():
            try:
                with handle.use() as store:
                    graph.list_pages(store)
                    graph.counts(store)
                reads += 1
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)
                return

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        with handle.borrow() as store, ExitStack() as writing:

            def progress(done: int, total: int, phase: str) -> None:
                if phase == "writing":
                    writing.enter_context(handle.exclusive())

            report = sync(sample_config, store, progress)
    finally:
        stop.set()
        thread.join()
    assert report.wrote and report.pages > 80
    assert errors == [] and reads > 0
    with handle.use() as store:
        assert graph.counts(store).pages == report.pages
    handle.close()
    with pytest.raises(StoreUnavailable):
        with handle.use():
            pass


def test_close_waits_for_running_work(sample_vault_copy) -> None:
    snapshot_config = load_config(sample_vault_copy)
    handle = StoreHandle(snapshot_config)
    handle.open()
    inside = threading.Event()
    release = threading.Event()

    def work() -> None:
        with handle.use() as store:
            inside.set()
            release.wait(5)
            graph.list_pages(store)  # still usable: close() waited

    thread = threading.Thread(target=work)
    thread.start()
    inside.wait(5)
    closer = threading.Thread(target=handle.close)
    closer.start()
    closer.join(0.2)
    assert closer.is_alive()  # waiting for the reader
    release.set()
    thread.join()
    closer.join(5)
    assert not closer.is_alive() and not handle.is_open
