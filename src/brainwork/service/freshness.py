"""Whether an owner's store may lag its vault, so commands it serves can
skip a sync that would find nothing.

An unchanged sync still scans the vault and reads the store's page table
(about a second at 10,000 pages, docs/performance.md), which would put a
floor under every served ``doctrine``. An owner that follows the vault (a
:class:`~brainwork.index.watch.VaultWatcher`) knows better: the store is
fresh when the watcher is live, no burst arrived since the last sync began,
and no captured page waits to be adopted (a capture's record in
``STORE/created/`` is written before its page, so a command that starts
after a capture returned always sees that page).
"""

from __future__ import annotations

import os
import threading
from typing import Callable

from brainwork.config import Config
from brainwork.ops.journal import CREATED_DIR


class Freshness:
    """Change counters of one owner; thread-safe.

    The watcher's thread calls :meth:`changed`; whoever syncs calls
    :meth:`begin` before reading the vault and :meth:`synced` with its
    result after committing.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation = 0
        self._synced = -1
        #: True while the owner's watcher is live (set by the owner).
        self.following: Callable[[], bool] = lambda: False

    def changed(self) -> None:
        """The vault changed on disk (a watcher batch)."""
        with self._lock:
            self._generation += 1

    def begin(self) -> int:
        """A sync starts: what it will have seen."""
        with self._lock:
            return self._generation

    def synced(self, generation: int) -> None:
        """A sync that began at ``generation`` committed."""
        with self._lock:
            self._synced = max(self._synced, generation)

    def is_fresh(self, config: Config) -> bool:
        """True when a sync now would find nothing to do."""
        with self._lock:
            if not self.following() or self._synced != self._generation:
                return False
        try:
            with os.scandir(config.store / CREATED_DIR) as it:
                return not any(e.name.endswith(".bin") for e in it)
        except FileNotFoundError:
            return True
