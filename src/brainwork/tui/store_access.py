"""The workbench's one open store, shared by thread workers.

The app opens the :class:`~brainwork.store.Store` once (in a worker, since
opening Kùzu takes a moment and may fail with
:class:`~brainwork.errors.StoreBusy`). Every worker borrows it with
``with handle.use() as store:``; :meth:`StoreHandle.close` waits until no
worker is inside such a block before closing the database, because a
cancelled Textual thread worker keeps running and closing Kùzu under a
running query would crash the process.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from brainwork.config import Config
from brainwork.errors import UserError
from brainwork.store import Store


class StoreUnavailable(UserError):
    """The store is not open (yet, or any more)."""


class StoreHandle:
    """Owns the app's store; thread-safe.

    Args:
        config: the vault's configuration (``config.store`` is opened).
    """

    def __init__(self, config: Config):
        self.config = config
        self._store: Store | None = None
        self._active = 0
        self._closed = False
        self._cond = threading.Condition()

    @property
    def is_open(self) -> bool:
        return self._store is not None and not self._closed

    def open(self) -> None:
        """Open the store (call from a worker thread; idempotent).

        Raises:
            StoreBusy: another process holds the store.
            UserError: the store folder cannot be created or opened.
        """
        with self._cond:
            if self._store is not None or self._closed:
                return
        store = Store(self.config.store)
        with self._cond:
            if self._closed:
                store.close()
                return
            self._store = store

    @contextmanager
    def use(self) -> Iterator[Store]:
        """Borrow the store for one unit of work.

        Raises:
            StoreUnavailable: not opened, or closing.
        """
        with self._cond:
            if self._store is None or self._closed:
                raise StoreUnavailable(f"the store of {self.config.vault} is not open")
            self._active += 1
            store = self._store
        try:
            yield store
        finally:
            with self._cond:
                self._active -= 1
                self._cond.notify_all()

    def close(self, timeout: float = 30.0) -> None:
        """Refuse new work, wait (at most ``timeout`` seconds) for running
        work to finish, then close the database. If work is still running
        after ``timeout`` the database is left for the process exit to close
        (closing it under a running query would crash)."""
        with self._cond:
            self._closed = True
            idle = self._cond.wait_for(lambda: self._active == 0, timeout=timeout)
            store, self._store = self._store, None
        if store is not None and idle:
            store.close()
