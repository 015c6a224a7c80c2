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

A file or folder name that is not valid UTF-8 does not end watching.
watchfiles (1.x) turns every event on such a name into an error that ends
its watch -- with inotify even an event of reading the file or listing the
folder, which the watch's own start-up walk produces for a folder -- and the
changes collected in that step are dropped. The watcher then says once which
name it was (:class:`UndecodableName`), watches the vault by polling (no
read events) until every such name it met is gone, and hands on a batch of
:data:`EVERYWHERE` after each restart, so what was dropped is synced. From
the failure until that batch has been handed on, :attr:`VaultWatcher.ready`
is clear: changes are being missed, so an owner must not take its store for
fresh (:class:`brainwork.service.freshness.Freshness`) and skip a sync.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import threading
import time
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

#: Poll interval, in milliseconds, while the vault holds a name watchfiles
#: cannot decode. A poll stats every file of the vault: ~16 ms CPU a poll
#: at 10,000 files here (docs/performance.md, "Live sync"), so once a second
#: costs under 2 % of a core, and a capture shows up within about 1-2 s.
POLL_MS = 1_000
#: Delay before the watch is restarted after it ended on an undecodable
#: name, in milliseconds. It doubles (up to :data:`RESTART_MAX_MS`) while
#: restarted watches keep failing within :data:`RESTART_MAX_MS`, so a program
#: rewriting such a file non-stop costs at most one sync every 10 s.
RESTART_MS = 200
RESTART_MAX_MS = 10_000
#: The path of the batch handed on after the watch was restarted: changes may
#: have been missed anywhere in the vault.
EVERYWHERE = "."

#: ``on_batch(paths)``: sorted, unique vault-relative POSIX paths of one burst.
BatchCallback = Callable[[list[str]], None]
#: ``on_error(exc)``: the watcher could not start or stopped on an error, or
#: the batch callback raised (watching then goes on).
ErrorCallback = Callable[[BaseException], None]


class UndecodableName(Exception):
    """A file or folder in the vault whose name is not valid UTF-8 (the
    watcher goes on, by polling). ``path``: the vault-relative path as bytes,
    or None when watchfiles' message could not be read back (``str(self)``
    then quotes that message)."""

    def __init__(self, path: bytes | None, message: str):
        where = repr(path) if path is not None else message
        super().__init__(f"a name in the vault is not valid UTF-8: {where}")
        self.path = path


#: ``on_warning(exc)``: a name the watcher could not decode (watching goes on).
WarningCallback = Callable[[UndecodableName], None]

# watchfiles' message for a path it cannot decode: the path as Rust's Debug
# formats an OsStr (see _unescape_rust). Kept since watchfiles 0.x; if it
# changes, the error still restarts the watch, only without the name.
_UNDECODABLE = re.compile(r'Unable to decode path "(.*)" to string\Z', re.DOTALL)
_RUST_ESCAPE = re.compile(r"\\x([0-9A-Fa-f]{2})|\\u\{([0-9A-Fa-f]{1,6})\}|\\(.)|(.)", re.DOTALL)
_SIMPLE_ESCAPES = {"0": b"\0", "t": b"\t", "r": b"\r", "n": b"\n", "\\": b"\\", "'": b"'", '"': b'"'}


def _unescape_rust(text: str) -> bytes | None:
    """The bytes of a path from Rust's Debug form of an OsStr: valid UTF-8 is
    printed as is except ``\\xNN`` (an undecodable byte, or a control
    character), ``\\u{N}`` (an unprintable character) and backslash escapes;
    None if ``text`` has another escape."""
    out = bytearray()
    for m in _RUST_ESCAPE.finditer(text):
        byte, code, simple, plain = m.groups()
        if byte is not None:
            out.append(int(byte, 16))
        elif code is not None:
            if int(code, 16) > 0x10FFFF:
                return None
            out += chr(int(code, 16)).encode("utf-8", "surrogatepass")
        elif simple is not None:
            if simple not in _SIMPLE_ESCAPES:
                return None
            out += _SIMPLE_ESCAPES[simple]
        else:
            out += plain.encode("utf-8", "surrogatepass")
    return bytes(out)


class VaultWatcher:
    """Watch ``config.vault`` in a background thread; call ``on_batch`` once
    per burst of relevant changes.

    Args:
        config: the vault (``config.vault``, ``config.store`` and
            ``config.ignore_folders`` decide what is relevant).
        on_batch: called **on the watcher's thread** (named
            ``brainwork-watch``) with the sorted vault-relative paths that
            changed in one burst (see the module doc: a path may name a
            folder, or a file that no longer exists; :data:`EVERYWHERE`
            after the watch was restarted). It must not block for
            long and must not touch UI or store objects that belong to another
            thread: hand the batch over (``App.post_message``, a queue, a
            ``threading.Event``). While it runs, further changes are collected
            and delivered in the next call, never lost.
        on_error: called on the watcher's thread with an exception the
            callback raised (watching goes on) or that stopped the watcher
            (e.g. the vault folder disappeared, or the system's limit of
            inotify watches was reached). Default: logged.
        on_warning: called on the watcher's thread, once per path, with an
            :class:`UndecodableName` for a file or folder whose name is not
            valid UTF-8 and is one the index would read (hidden, store and
            ``[ignore]`` paths are only logged); watching goes on. Default:
            logged.
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
        on_warning: WarningCallback | None = None,
        step_ms: int = STEP_MS,
        debounce_ms: int = DEBOUNCE_MS,
    ):
        self.config = config
        self.on_batch = on_batch
        self.on_error = on_error
        self.on_warning = on_warning
        self.step_ms = step_ms
        self.debounce_ms = debounce_ms
        self.stop_event = threading.Event()
        self._root = str(config.vault)
        self._skipped = skipped_prefixes(config)
        self._thread: threading.Thread | None = None
        #: Set once the file system watch is in place (changes made before
        #: may be missed): once the first batch was handed on or after
        #: :data:`READY_MS` of quiet, or when the watcher ended. Cleared
        #: when the watch ends on an undecodable name and set again once the
        #: restarted watch handed on its :data:`EVERYWHERE` batch: in between
        #: changes go unseen. Tests wait on it; owners ask it whether their
        #: store can lag the vault.
        self.ready = threading.Event()
        #: Absolute paths (bytes) of undecodable names met so far; while one
        #: of them exists the vault is polled (see the module doc).
        self.undecodable: set[bytes] = set()
        #: Such a name whose path watchfiles' message did not give: poll
        #: for the rest of the session.
        self._poll_always = False
        #: How many times the watch was restarted after such a name.
        self.restarts = 0

    @property
    def polling(self) -> bool:
        """Whether the vault is polled now rather than watched by inotify
        (an undecodable name met so far is still there)."""
        return self._poll_always or any(os.path.lexists(p) for p in self.undecodable)

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
        delay_ms: int | None = None  # before the next restart after an error
        catch_up = False  # hand on EVERYWHERE once the restarted watch is in place
        try:
            if not os.path.isdir(self._root):
                # watchfiles would watch nothing, silently (with
                # ignore_permission_denied, a missing path is skipped too).
                raise FileNotFoundError(f"the vault {self._root} is not a folder")
            while not self.stop_event.is_set():
                started = time.monotonic()
                try:
                    if not self._watch(self.polling, catch_up):
                        return  # stopped
                    catch_up = True  # from polling back to inotify, at once
                    continue
                except RuntimeError as exc:  # WatchfilesRustInternalError is one
                    match = _UNDECODABLE.match(str(exc))
                    if match is None:
                        raise
                    # What changed since the last batch is lost: not
                    # following until the catch-up batch is handed on.
                    self.ready.clear()
                    self._undecodable(_unescape_rust(match.group(1)), str(exc))
                catch_up = True
                self.restarts += 1
                # Failing again soon after a restart: something keeps touching
                # the name; wait longer each time (a sync per restart).
                ran_ms = (time.monotonic() - started) * 1000
                if delay_ms is None or ran_ms >= RESTART_MAX_MS:
                    delay_ms = RESTART_MS
                else:
                    delay_ms = min(delay_ms * 2, RESTART_MAX_MS)
                if self.stop_event.wait(delay_ms / 1000):
                    return
        except Exception as exc:
            self._report(exc)
        finally:
            self.ready.set()

    def _watch(self, polling: bool, catch_up: bool) -> bool:
        """One watchfiles watch (by polling if ``polling``) until it is
        stopped (returns False) or fails (raises). A polling watch returns
        True once no undecodable name is left: start one by inotify.
        ``catch_up``: add :data:`EVERYWHERE` to the first batch."""
        kwargs = {"force_polling": True, "poll_delay_ms": POLL_MS} if polling else {}
        if polling:
            log.info("watching %s by polling every %d ms", self._root, POLL_MS)
        batches = watch(
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
            **kwargs,
        )
        with contextlib.closing(batches):  # the old watch is let go before a new one
            for batch in batches:
                if self.stop_event.is_set():
                    return False
                paths = {rel for _c, p in batch if (rel := self.relative(p)) is not None}
                if catch_up:
                    paths.add(EVERYWHERE)
                    catch_up = False
                if paths:
                    try:
                        self.on_batch(sorted(paths))
                    except Exception as exc:  # the callback's bug must not end watching
                        self._report(exc)
                # After the callback: an owner has marked its store stale
                # (the catch-up batch) before ``ready`` says it is followed.
                self.ready.set()
                if polling and not self.polling:
                    # Changes between the two watches are synced by the
                    # catch-up batch of the next one.
                    return True
        return False  # stopped

    def _undecodable(self, path: bytes | None, message: str) -> None:
        """The watch ended on a name it could not decode (absolute ``path``,
        None if not known): say so once per path; poll from now on."""
        if path is None:
            if self._poll_always:
                return
            self._poll_always = True
        else:
            known = any(path == p or path.startswith(p + b"/") for p in self.undecodable)
            self.undecodable.add(path)
            if known:
                return  # that name, or a file in that folder: said already
        root = os.fsencode(self._root)
        rel = path[len(root) + 1 :] if path is not None and path.startswith(root + b"/") else path
        warning = UndecodableName(rel, message)
        if rel is not None and self.relative(os.fsdecode(path)) is None:
            log.info("watching %s: %s (not indexed)", self._root, warning)
            return
        if self.on_warning is not None:
            try:
                self.on_warning(warning)
                return
            except Exception:
                pass
        log.warning("watching %s: %s", self._root, warning)

    def _report(self, exc: BaseException) -> None:
        if self.on_error is not None:
            try:
                self.on_error(exc)
                return
            except Exception:
                pass
        log.warning("watching %s: %s: %s", self._root, type(exc).__name__, exc)
