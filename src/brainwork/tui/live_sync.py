"""The workbench follows the vault on disk: each burst of changes the
:class:`~brainwork.index.watch.VaultWatcher` sees runs the app's ordinary
sync (docs/architecture.md, "Live sync").

Invariants: a burst that arrives while a sync or a vault operation runs
only marks one more sync to run after that work; the watcher's thread
talks to the UI only through messages, never ``call_from_thread`` (it must
never wait for the UI thread, or stopping it from ``on_unmount`` could
wait for itself).
"""

from __future__ import annotations

from textual.message import Message

from brainwork.index.sync import SyncReport
from brainwork.index.watch import POLL_MS, UndecodableName, VaultWatcher
from brainwork.store.graph import GraphCounts
from brainwork.tui.operations import INDEX_GROUP
from brainwork.tui.workbench import Workbench

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
    """The watcher could not start or stopped (``error``), or met a name
    that is not valid UTF-8 and goes on (an
    :class:`~brainwork.index.watch.UndecodableName`)."""

    def __init__(self, error: BaseException):
        super().__init__()
        self.error = error


class LiveSync:
    """Follows the vault on disk for one workbench (``app.live_sync``): owns
    the :class:`~brainwork.index.watch.VaultWatcher` and the one sync a burst
    may leave pending while other work runs."""

    def __init__(self, app: Workbench):
        self._app = app
        #: None until :meth:`start` (the store is open).
        self.watcher: VaultWatcher | None = None
        #: A burst arrived while a sync or an operation ran: sync once more after it.
        self.pending = False

    def start(self) -> None:
        """Start following the vault (once; called when the store is open)."""
        if self.watcher is not None:
            return
        app = self._app
        watcher = VaultWatcher(
            app.config,
            lambda paths: (app.freshness.changed(), app.post_message(VaultFilesChanged(paths))),
            on_error=lambda exc: app.post_message(WatchFailed(exc)),
            on_warning=lambda warning: app.post_message(WatchFailed(warning)),
        )
        self.watcher = watcher
        watcher.start()
        app.freshness.following = lambda: watcher.is_running and watcher.ready.is_set()

    def stop(self) -> None:
        """Stop following the vault (returns within about 0.2 s)."""
        if self.watcher is not None:
            self.watcher.stop()

    def busy(self) -> bool:
        """True while a sync or a vault operation runs."""
        app = self._app
        return app.operations.is_running() or any(w.group == INDEX_GROUP and not w.is_finished for w in app.workers)

    def files_changed(self, _: VaultFilesChanged) -> None:
        """Sync now, or once the running sync or operation is done."""
        app = self._app
        if not app.store.is_open or (app.index_on_start and app.pages is None):
            return  # the start-up sync has not begun yet and will see the change
        if self.busy():
            self.pending = True
            return
        app.action_reindex(quiet=True, live=True)

    def work_finished(self) -> None:
        """A sync or an operation ended: run the sync a burst asked for meanwhile."""
        if self.pending and not self.busy():
            self.pending = False
            self._app.action_reindex(quiet=True, live=True)

    def watch_failed(self, message: WatchFailed) -> None:
        error = message.error
        if isinstance(error, UndecodableName):
            self._name_not_decodable(error)
            return
        self._app.notify(
            f"{type(error).__name__}: {error}. ctrl+r re-indexes by hand.",
            title="Not following the vault on disk",
            severity="warning",
            timeout=15,
        )

    def _name_not_decodable(self, warning: UndecodableName) -> None:
        """Say which name it was (as bytes: it has no text form; the watcher
        reports each once) and that the vault is still followed."""
        path = warning.path
        where = repr(path) if path is not None else str(warning)
        self._app.notify(
            f"{where} is not valid UTF-8. Still following the vault, by polling every "
            f"{POLL_MS / 1000:g} s until it is renamed or removed.",
            title="A file name cannot be read",
            severity="warning",
            timeout=15,
        )

    def sync_finished(self, report: SyncReport) -> None:
        """A sync the watcher asked for finished: say what changed on disk,
        and re-read the views when the store no longer matches them.

        A sync that wrote reloads the views anyway. One that wrote nothing
        found the change already in the store: a command served meanwhile
        (``brainwork index`` typed by an agent right after writing a file)
        may have synced it first without the views being re-read. Its
        report then counts what the store holds, which the status bar's
        counts, read with the views, no longer match."""
        app = self._app
        if not report.wrote and app.pages is not None and app.counts is not None and stale(report, app.counts):
            app.load_vault()
        text = describe(report)
        if text:
            app.notify(text, title="Vault changed")


def stale(report: SyncReport, counts: GraphCounts) -> bool:
    """Whether ``counts`` (what the views were read with) differ from the
    store a sync that wrote nothing just reported on: pages, attachments,
    edges, dead and ambiguous links, parse errors."""
    return (
        report.pages, report.attachments, report.edges, report.dead_links, report.ambiguous_links,
        len(report.parse_errors),
    ) != (counts.pages, counts.attachments, counts.edges, counts.dead_links, counts.ambiguous_links, counts.parse_errors)


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
