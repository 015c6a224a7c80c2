"""StoreHandle.recycle: the database is closed and reopened between holds
(Kùzu keeps each write's memory until it closes), never under a holder."""

from __future__ import annotations

import threading

from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.service.handle import StoreHandle
from brainwork.store import graph


def test_recycle_reopens_the_same_store_between_holds(sample_vault_copy) -> None:
    config = load_config(sample_vault_copy)
    handle = StoreHandle(config)
    handle.open()
    try:
        with handle.exclusive() as store:
            sync(config, store)
            before = graph.counts(store)
        old = handle._store
        assert handle.recycle() is True
        assert handle._store is not old and old._closed
        with handle.use() as store:
            assert graph.counts(store) == before
        with handle.exclusive() as store:  # writable again
            assert sync(config, store).pages == before.pages
    finally:
        handle.close()


def test_recycle_waits_for_holders_and_gives_up_after_its_timeout(sample_vault_copy) -> None:
    config = load_config(sample_vault_copy)
    handle = StoreHandle(config)
    handle.open()
    held, release = threading.Event(), threading.Event()

    def reader() -> None:
        with handle.use() as store:
            graph.counts(store)
            held.set()
            release.wait(10)
            graph.counts(store)  # still the store it borrowed: not closed under it

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        assert held.wait(10)
        old = handle._store
        assert handle.recycle(timeout=0.2) is False
        assert handle._store is old and not old._closed
        release.set()
        thread.join(10)
        assert handle.recycle(timeout=5) is True
    finally:
        release.set()
        thread.join(10)
        handle.close()
    assert handle.recycle() is False  # closed: nothing to reopen


def test_recycle_if_grown_only_past_the_growth_limit(sample_vault_copy) -> None:
    config = load_config(sample_vault_copy)
    handle = StoreHandle(config)
    handle.open()
    try:
        old = handle._store
        assert handle.recycle_if_grown(grown_mb=10_000) is False and handle._store is old
        assert handle.recycle_if_grown(grown_mb=-10_000) is True and handle._store is not old
    finally:
        handle.close()
