"""Follow a vault's files as they change on disk, so a long-running process
(the workbench, ``brainwork serve``) can re-sync without being asked.

:class:`VaultWatcher` calls its callback from one background thread, once
per burst of changes, with the vault-relative paths that changed. Changes
the index never reads (what :func:`brainwork.index.scan.scan_vault` skips)
are dropped first, and a burst made only of those calls nothing, so the
store's own writes during a sync wake no one. The paths say where to look,
not exactly which files changed: the answer to a batch is a full
:func:`brainwork.index.sync.sync`. Walkthrough: docs/architecture.md,
"Live sync".
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Callable

from watchfiles import Change, watch

from brainwork.config import CONFIG_FILE, Config
from brainwork.index.scan import is_indexed, skipped_prefixes

log = logging.getLogger(__name__)

#: A burst ends once no new change arrived for this many milliseconds. A
#: checkout or a multi-file operation writes its files back to back (well
#: under a millisecond apart), so 100 ms keeps it in one batch even on a
#: busy machine, and adds only 0.1-0.2 s before a single saved page is synced.
STEP_MS = 100
#: A burst that keeps going is cut after this many milliseconds, so a
#: steady trickle of writes is still synced every few seconds. A checkout of
#: 1,000 files takes well under a second here (docs/performance.md).
DEBOUNCE_MS = 3_000
#: With no change at all, the watch loop hands back an empty batch after this
#: many milliseconds; the first one sets :attr:`VaultWatcher.ready`.
READY_MS = 1_000
#: How long :meth:`VaultWatcher.stop` waits for the thread, in seconds. The
#: thread looks at its stop event every ``step_ms`` and the callback is
#: expected to return quickly (post a message, set a flag).
STOP_TIMEOUT = 2.0

#: ``on_batch(paths)``: sorted, unique vault-relative POSIX paths of one burst.
BatchCallback = Callable[[list[str]], None]
#: ``on_error(exc)``: the watcher could not start or stopped on an error, or
#: the batch callback raised (watching then goes on).
ErrorCallback = Callable[[BaseException], None]


class VaultWatcher:
    """Watch ``config.vault`` in a background thread; call ``on_batch`` once
    per burst of relevant changes.

    Args:
        config: the vault (``config.vault``, ``config.store`` and
            ``config.ignore_folders`` decide what is relevant).
        on_batch: called **on the watcher's thread** (named
            ``brainwork-watch``) with the sorted vault-relative paths that
            changed in one burst (see the module doc: a path may name a
            folder, or a file that no longer exists). It must not block for
            long and must not touch UI or store objects that belong to another
            thread: hand the batch over (``App.post_message``, a queue, a
            ``threading.Event``). While it runs, further changes are collected
            and delivered in the next call, never lost.
        on_error: called on the watcher's thread with an exception the
            callback raised (watching goes on) or that stopped the watcher
            (e.g. the vault folder disappeared, or the system's limit of
            inotify watches was reached). Default: logged.
        step_ms, debounce_ms: see :data:`STEP_MS` and :data:`DEBOUNCE_MS`.

    ``start()`` returns at once; ``stop()`` returns within about
    ``step_ms`` (at most :data:`STOP_TIMEOUT` seconds). A stopped watcher
    cannot be started again; make a new one.
    """

    def __init__(
        self,
        config: Config,
        on_batch: BatchCallback,
        *,
        on_error: ErrorCallback | None = None,
        step_ms: int = STEP_MS,
        debounce_ms: int = DEBOUNCE_MS,
    ):
        self.config = config
        self.on_batch = on_batch
        self.on_error = on_error
        self.step_ms = step_ms
        self.debounce_ms = debounce_ms
        self.stop_event = threading.Event()
        self._root = str(config.vault)
        self._skipped = skipped_prefixes(config)
        self._thread: threading.Thread | None = None
        #: Set once the file system watch is in place (changes made before
        #: may be missed): at the first batch or after :data:`READY_MS` of
        #: quiet, or when the watcher ended. Tests wait on it.
        self.ready = threading.Event()

    # -- filtering ------------------------------------------------------------
    def relative(self, path: str) -> str | None:
        """The vault-relative POSIX path of absolute ``path`` if a change
        there can matter to the index, else None (outside the vault, the
        vault folder itself, hidden, in the store or an ``[ignore]`` folder,
        or ``brainwork.toml``)."""
        root = self._root
        if not path.startswith(root) or path[len(root) : len(root) + 1] != os.sep:
            return None
        rel = path[len(root) + 1 :]
        if os.sep != "/":
            rel = rel.replace(os.sep, "/")
        if not rel or rel == CONFIG_FILE or not is_indexed(rel, self._skipped):
            return None
        return rel

    def _keep(self, _change: Change, path: str) -> bool:
        return self.relative(path) is not None

    # -- running ----------------------------------------------------------------
    @property
    def is_running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Start watching in a daemon thread (returns at once).

        Raises:
            RuntimeError: already started (or stopped: make a new watcher).
        """
        if self._thread is not None:
            raise RuntimeError("this VaultWatcher was already started")
        self._thread = threading.Thread(target=self._run, name="brainwork-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = STOP_TIMEOUT) -> None:
        """Stop watching and wait (at most ``timeout`` seconds) for the thread
        to end. Safe to call more than once, before ``start()`` too, and from
        inside the callback."""
        self.stop_event.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def _run(self) -> None:
        try:
            if not os.path.isdir(self._root):
                # watchfiles would watch nothing, silently (with
                # ignore_permission_denied, a missing path is skipped too).
                raise FileNotFoundError(f"the vault {self._root} is not a folder")
            for batch in watch(
                self._root,
                watch_filter=self._keep,
                debounce=self.debounce_ms,
                step=self.step_ms,
                stop_event=self.stop_event,
                # An empty batch after each quiet second: the first one
                # says the file system watch is in place (``ready``).
                rust_timeout=READY_MS,
                yield_on_timeout=True,
                raise_interrupt=False,
                # A folder the user cannot read is not indexed either.
                ignore_permission_denied=True,
            ):
                self.ready.set()
                if self.stop_event.is_set():
                    break
                paths = sorted({rel for _c, p in batch if (rel := self.relative(p)) is not None})
                if not paths:
                    continue
                try:
                    self.on_batch(paths)
                except Exception as exc:  # the callback's bug must not end watching
                    self._report(exc)
        except Exception as exc:
            self._report(exc)
        finally:
            self.ready.set()

    def _report(self, exc: BaseException) -> None:
        if self.on_error is not None:
            try:
                self.on_error(exc)
                return
            except Exception:
                pass
        log.warning("watching %s: %s: %s", self._root, type(exc).__name__, exc)
