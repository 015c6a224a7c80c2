"""The workbench follows the vault on disk: pages an agent captured, an
editor saved or a ``git pull`` brought show up without ctrl+r.

Once the store is open, :func:`start` runs a
:class:`~brainwork.index.watch.VaultWatcher` on the vault. Each burst of
changes it sees (one batch per burst, however many files: a checkout of
1,000 files is one batch) reaches the UI thread as
:class:`VaultFilesChanged` and :func:`files_changed` answers it with the
app's ordinary sync (``action_reindex(quiet=True)``): it finds what really
changed by size, mtime and hash, re-reads the page list and counts if
anything did (which publishes ``app.vault_changed``, so every pane
refreshes) and says in one notification how many files changed on disk.

- **Coalescing.** While a sync or a vault operation runs, a burst only
  marks a sync as wanted; when that work ends (:func:`work_finished`, from
  the app's worker-state handler) one more sync runs, however many bursts
  came meanwhile.
- **The workbench's own writes** (fixes, renames, approvals, undo) are
  seen by the watcher too, but each operation re-indexes the files it
  wrote while holding the store, and no watcher sync starts while an
  operation runs: the sync after it finds nothing changed, writes nothing,
  reloads nothing and says nothing.
- Messages, not ``call_from_thread``: the watcher's thread must never wait
  for the UI thread, or stopping it from ``on_unmount`` (on the UI thread)
  could wait for itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

from brainwork.index.sync import SyncReport
from brainwork.index.watch import VaultWatcher
from brainwork.tui import operations

if TYPE_CHECKING:
    from brainwork.tui.app import BrainworkApp

#: Worker group of the app's sync (``BrainworkApp._index``).
INDEX_GROUP = "index"
#: A live sync shows progress in the status bar only after this many
#: seconds: most find one page or nothing (after the workbench's own
#: operations) and end well before, so the status bar does not flicker.
SHOW_PROGRESS_AFTER = 0.5


class VaultFilesChanged(Message):
    """The watcher saw a burst of changes on disk (``paths``: sorted
    vault-relative paths, see :class:`~brainwork.index.watch.VaultWatcher`)."""

    def __init__(self, paths: list[str]):
        super().__init__()
        self.paths = paths


class WatchFailed(Message):
    """The watcher could not start or stopped (``error``)."""

    def __init__(self, error: BaseException):
        super().__init__()
        self.error = error


def start(app: "BrainworkApp") -> None:
    """Start following the vault (once; called when the store is open)."""
    if app.watcher is not None:
        return
    app.watcher = VaultWatcher(
        app.config,
        lambda paths: (app.freshness.changed(), app.post_message(VaultFilesChanged(paths))),
        on_error=lambda exc: app.post_message(WatchFailed(exc)),
    )
    app.watcher.start()
    watcher = app.watcher
    app.freshness.following = lambda: watcher.is_running and watcher.ready.is_set()


def stop(app: "BrainworkApp") -> None:
    """Stop following the vault (returns within about 0.2 s)."""
    if app.watcher is not None:
        app.watcher.stop()


def busy(app: "BrainworkApp") -> bool:
    """True while a sync or a vault operation runs."""
    return operations.is_running(app) or any(w.group == INDEX_GROUP and not w.is_finished for w in app.workers)


def files_changed(app: "BrainworkApp", _: VaultFilesChanged) -> None:
    """Sync now, or once the running sync or operation is done."""
    if not app.store.is_open or (app.index_on_start and app.pages is None):
        return  # the start-up sync has not begun yet and will see the change
    if busy(app):
        app.live_sync_pending = True
        return
    app.action_reindex(quiet=True, live=True)


def work_finished(app: "BrainworkApp") -> None:
    """A sync or an operation ended: run the sync a burst asked for meanwhile."""
    if app.live_sync_pending and not busy(app):
        app.live_sync_pending = False
        app.action_reindex(quiet=True, live=True)


def watch_failed(app: "BrainworkApp", message: WatchFailed) -> None:
    error = message.error
    app.notify(
        f"{type(error).__name__}: {error}. ctrl+r re-indexes by hand.",
        title="Not following the vault on disk",
        severity="warning",
        timeout=15,
    )


def describe(report: SyncReport) -> str:
    """'3 files changed on disk: 1 added, 2 changed' ('' when nothing did)."""
    moved = len(report.moved)  # also in added (new path) and removed (old path)
    counts = (
        (len(report.added) - moved, "added"),
        (len(report.changed), "changed"),
        (len(report.removed) - moved, "removed"),
        (moved, "moved"),
    )
    n = sum(k for k, _ in counts)
    if not n:
        return ""
    parts = ", ".join(f"{k} {what}" for k, what in counts if k)
    return f"{n} file{'s' if n != 1 else ''} changed on disk: {parts}"


def sync_finished(app: "BrainworkApp", report: SyncReport) -> None:
    """A sync the watcher asked for finished: say what changed on disk."""
    text = describe(report)
    if text:
        app.notify(text, title="Vault changed")
