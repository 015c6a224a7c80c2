"""The workbench's one open store, shared by thread workers.

The app opens the :class:`~brainwork.store.Store` once, in a worker (it takes
a moment and may raise :class:`~brainwork.errors.StoreBusy`); workers borrow
it: :meth:`StoreHandle.use` to read (any number at once),
:meth:`StoreHandle.exclusive` around every write transaction (it waits for
running reads and holds new ones back: Kùzu 0.11.3's commit checkpoint times
out after ~5 s while other threads keep reading), :meth:`StoreHandle.borrow`
for a long job that takes :meth:`~StoreHandle.exclusive` itself to write.
Lock order: handle first, then the store's writer lock, never the reverse
(that deadlocks). :meth:`StoreHandle.close` waits for every borrower, since a
cancelled Textual thread worker keeps running. See docs/architecture.md,
"The workbench".
"""

from __future__ import annotations

import os
import threading
import time
from contextlib import contextmanager
from typing import Iterator

from brainwork.config import Config
from brainwork.errors import StoreBusy, UserError
from brainwork.store import Store


#: Growth of resident memory (MB) since the store was opened after which the
#: workbench reopens it (:meth:`StoreHandle.recycle_if_grown`): a rename and
#: its undo of 1,000 backlinks at 10,000 pages left ~25 MB behind; 64 MB let
#: a session swing by ~115 MB over 10 cycles, 32 MB by ~60 MB (measured).
RECYCLE_GROWTH_MB = 32


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
        self._active = 0  # every borrower
        self._readers = 0  # inside use()
        self._writer = False  # someone is inside exclusive()
        self._writers_waiting = 0
        self._closed = False
        #: Resident memory (MB) just after the store was (re)opened.
        self._rss_at_open: float | None = None
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
        self._rss_at_open = _rss_mb()

    def _enter(self, ready, timeout: float | None = None) -> Store:
        with self._cond:
            if self._store is None or self._closed:
                raise StoreUnavailable(f"the store of {self.config.vault} is not open")
            if not self._cond.wait_for(ready, timeout=timeout):
                raise StoreBusy(f"the store of {self.config.vault} is busy with a long operation; try again shortly")
            if self._store is None:
                raise StoreUnavailable(f"the store of {self.config.vault} is not open")
            self._active += 1
            return self._store

    def _leave(self) -> None:
        with self._cond:
            self._active -= 1
            self._cond.notify_all()

    @contextmanager
    def use(self) -> Iterator[Store]:
        """Borrow the store to read (shared with other readers).

        Raises:
            StoreUnavailable: not opened, or closing.
        """
        store = self._enter(lambda: not self._writer and self._writers_waiting == 0)
        with self._cond:
            self._readers += 1
        try:
            yield store
        finally:
            with self._cond:
                self._readers -= 1
            self._leave()

    @contextmanager
    def exclusive(self, timeout: float | None = None) -> Iterator[Store]:
        """Borrow the store to write: no read runs meanwhile (see the module doc).

        Must not be entered inside :meth:`use` on the same thread (it would
        wait for itself); inside :meth:`borrow` is fine.

        Args:
            timeout: seconds to wait for running work at most (None: as long
                as it takes).

        Raises:
            StoreUnavailable: not opened, or closing.
            StoreBusy: still held by other work after ``timeout``.
        """
        with self._cond:
            self._writers_waiting += 1
        try:
            store = self._enter(lambda: not self._writer and self._readers == 0, timeout)
        finally:
            with self._cond:
                self._writers_waiting -= 1
        with self._cond:
            self._writer = True
        try:
            yield store
        finally:
            with self._cond:
                self._writer = False
            self._leave()

    @contextmanager
    def borrow(self) -> Iterator[Store]:
        """Hold the store open without a read or write claim (the holder
        takes :meth:`exclusive` for its writes).

        Raises:
            StoreUnavailable: not opened, or closing.
        """
        store = self._enter(lambda: True)
        try:
            yield store
        finally:
            self._leave()

    def recycle_if_grown(self, grown_mb: float = RECYCLE_GROWTH_MB, timeout: float | None = 2.0) -> bool:
        """:meth:`recycle` when the process's resident memory grew by more
        than ``grown_mb`` since the store was last opened: reopening costs
        the checkpoint Kùzu makes at close (~0.3 s CPU at 10,000 pages, 1-3 s
        at 50,000), so it is paid every few operations, not after each, and
        memory stays within ``grown_mb`` of its level. Returns whether it
        recycled. Memory glibc holds freed is returned first (milliseconds),
        so that only what Kùzu keeps counts."""
        _release_freed_memory()
        rss = _rss_mb()
        if rss is None or self._rss_at_open is None or rss - self._rss_at_open <= grown_mb:
            return False
        return self.recycle(timeout)

    def recycle(self, timeout: float | None = 30.0) -> bool:
        """Close the database and open it again once nothing holds it, then
        give the memory freed to the operating system.

        Kùzu keeps memory from each write transaction and checkpoint until
        the database closes (measured: ~20 MB of heap per rename and its
        undo of 1,000 backlinks, while Python's own heap stayed flat), and
        glibc keeps what Kùzu frees; a long workbench session grew by the
        operation. Reopening costs ~0.05 s of CPU (the clean close's seal
        spares the integrity probe). Call it after an operation, not in a
        hold. Returns False (store unchanged) when other work still holds
        the store after ``timeout`` seconds.

        Raises:
            StoreBusy: another process took the store while it was closed
                for a moment (it is retried for 10 s first).
        """
        with self._cond:
            if self._store is None or self._closed:
                return False
            self._writers_waiting += 1
            try:
                idle = self._cond.wait_for(lambda: self._active == 0, timeout=timeout)
            finally:
                self._writers_waiting -= 1
            if not idle or self._store is None or self._closed:
                return False
            self._writer = True
            self._active += 1
            old = self._store
        try:
            old.close()
            deadline = time.monotonic() + 10
            while True:
                try:
                    new = Store(self.config.store)
                    break
                except StoreBusy:  # a process without an owner to ask opened it meanwhile
                    if time.monotonic() > deadline:
                        with self._cond:
                            self._store = None
                        raise
                    time.sleep(0.1)
            with self._cond:
                self._store = new
            _release_freed_memory()
            self._rss_at_open = _rss_mb()
            return True
        finally:
            with self._cond:
                self._writer = False
            self._leave()

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


def _rss_mb() -> float | None:
    """This process's resident memory now, in MB (None where /proc is missing)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return None


def _release_freed_memory() -> None:
    """``malloc_trim(0)``: glibc returns the free parts of its heaps to the
    system (a no-op elsewhere)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
