"""StoreHandle: reads and the indexer's write share one Kùzu store safely."""

from __future__ import annotations

import threading
import time

import pytest

from brainwork.index.sync import sync
from brainwork.store import graph
from brainwork.config import load_config
from brainwork.service.handle import StoreHandle, StoreUnavailable


def test_sync_commits_while_other_threads_keep_reading(sample_vault_copy) -> None:
    sample_config = load_config(sample_vault_copy)
    """Without the exclusive claim Kùzu's checkpoint at commit times out
    while reads keep arriving (see brainwork.service.handle's module doc).
    The sync holds the handle exclusively from start to end, as the
    workbench's indexer and ``brainwork serve`` do: a cold index commits
    once per slice while it is still reading files, so there is no later
    "writing" step to claim it at. Readers wait meanwhile and go on after."""
    handle = StoreHandle(sample_config)
    handle.open()
    stop = threading.Event()
    errors: list[BaseException] = []
    reads = 0
    reading = threading.Event()
    reads_at_end = 0

    def reader() -> None:
        nonlocal reads
        while not stop.is_set():
            try:
                with handle.use() as store:
                    graph.list_pages(store)
                    graph.counts(store)
                reads += 1
                reading.set()
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)
                reading.set()
                return

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        assert reading.wait(60)
        with handle.exclusive() as store:
            report = sync(sample_config, store)
            reads_at_end = reads
        deadline = time.monotonic() + 60
        while reads <= reads_at_end and not errors and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        stop.set()
        thread.join()
    assert report.wrote and report.pages > 80
    assert errors == [] and reads > reads_at_end > 0
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
