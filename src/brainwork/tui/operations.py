"""The workbench's operation runner: every vault operation (fixes, rename,
merge, split, learning decisions, undo, redo) runs in one thread worker.

Invariants: one operation at a time (worker group :data:`GROUP`), never
cancelled (a half-stopped operation would leave the journal to recover);
it starts only after a running index sync ends (two writers on one Kùzu
store collide) and holds the store exclusively while it runs. A
:class:`~brainwork.errors.UserError` is a refusal with its reason, not a
failure. The walkthrough is in docs/architecture.md ("The workbench").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol

from textual.message import Message
from textual.signal import Signal
from textual.worker import Worker, WorkerState
from textual.worker_manager import WorkerManager

from brainwork.config import Config
from brainwork.errors import SteppedPast, UserError
from brainwork.ops import changeset
from brainwork.service.handle import StoreHandle
from brainwork.store import Store

#: Worker group of every vault operation.
GROUP = "operation"
#: Worker group of the app's index sync (``BrainworkApp._index``).
INDEX_GROUP = "index"


@dataclass(frozen=True)
class UndoState:
    """What ``u`` and ``U`` would do now: the summaries of the operation
    undo would undo and of the one redo would redo (None: nothing)."""

    undo: str | None = None
    redo: str | None = None


def read_undo_state(store: Store) -> UndoState:
    """:class:`UndoState` from the undo log (two small queries)."""
    u = changeset.can_undo(store)
    r = changeset.can_redo(store)
    return UndoState(
        f"{u.kind} #{u.id}: {u.summary}" if u is not None else None,
        f"{r.kind} #{r.id}: {r.summary}" if r is not None else None,
    )


class OperationFinished(Message):
    """An operation ran (``error`` is empty) or was refused (``error`` is
    the one-line reason; nothing was written).

    ``label`` names it for people (``"set type"``); ``result`` is what the
    operation function returned (an :class:`~brainwork.ops.changeset.Operation`,
    ``RenameResult``, ``MergeResult`` ...); ``message`` the notification text
    on success; ``undo_state`` what undo/redo offer now (None after a bug);
    ``done`` an optional callback run on the UI thread after a success (e.g.
    to move a list's cursor); ``reload`` re-reads pages and counts afterwards
    (False for work that only reads, such as planning a merge);
    ``stepped_past`` an undo that met an operation it cannot undo and
    stepped past it (``error`` says so; the undo log changed, no file did)."""

    def __init__(
        self,
        label: str,
        result: Any = None,
        message: str = "",
        error: str = "",
        undo_state: UndoState | None = None,
        done: Callable[[Any], None] | None = None,
        reload: bool = True,
        stepped_past: bool = False,
    ):
        super().__init__()
        self.stepped_past = stepped_past
        self.label = label
        self.result = result
        self.message = message
        self.error = error
        self.undo_state = undo_state
        self.done = done
        self.reload = reload


class UndoStateRead(Message):
    """The undo log was read at start-up: ``state`` is what ``u``/``U`` offer."""

    def __init__(self, state: UndoState):
        super().__init__()
        self.state = state


def describe(result: Any) -> str:
    """One line for the notification after an operation."""
    op = getattr(result, "operation", result)
    summary = getattr(op, "summary", "") or ""
    if getattr(op, "kind", None) == "merge":
        return f"{summary}. A merge cannot be undone."
    if isinstance(op, changeset.Operation) and op.reversible:
        if op.state == "undone":
            return f"Undone: {summary}  (U redoes)"
        return f"{summary}  (u undoes)"
    return summary


class OperationHost(Protocol):
    """What the runner uses of the app (:class:`~brainwork.tui.app.BrainworkApp`
    provides it): the store and config, the status bar's ``background``,
    the undo state the ``u``/``U`` keys read, and Textual's worker and
    message plumbing."""

    config: Config
    store: StoreHandle
    background: tuple[str, int, int] | None
    undo_state: UndoState
    undo_available: bool
    redo_available: bool
    undo_changed: Signal[None]

    @property
    def workers(self) -> WorkerManager: ...

    def load_vault(self) -> None: ...

    def notify(self, message: str, *, title: str = ..., severity: Any = ..., timeout: float | None = ...) -> None: ...

    def call_from_thread(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> Any: ...

    def post_message(self, message: Message) -> bool: ...

    def run_worker(self, work: Any, name: str | None = ..., group: str = ..., **kwargs: Any) -> Worker: ...

    def refresh_bindings(self) -> None: ...


class OperationRunner:
    """Runs the workbench's vault operations; one per app (``app.operations``)."""

    def __init__(self, app: OperationHost) -> None:
        self.app = app

    def is_running(self) -> bool:
        """True while an operation's worker runs."""
        return any(
            w.group == GROUP and w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in self.app.workers
        )

    def wait_for_index(self) -> None:
        """Block this (worker) thread until no index sync runs: work that
        writes the store outside an operation (embedding pages) calls it too."""
        app = self.app

        async def index_done() -> None:
            for worker in [w for w in app.workers if w.group == INDEX_GROUP and not w.is_finished]:
                try:
                    await worker.wait()
                except Exception:  # its failure is reported by the app already
                    pass

        app.call_from_thread(index_done)

    def run(
        self,
        label: str,
        fn: Callable[[Config, Store], Any],
        *,
        message: Callable[[Any], str] = describe,
        done: Callable[[Any], None] | None = None,
        reload: bool = True,
    ) -> Worker | None:
        """Run ``fn(config, store)`` as a vault operation.

        ``label`` is shown in the status bar while it runs (``"rename…"``)
        and titles the notification; ``message`` makes the notification
        text from the result; ``done`` runs on the UI thread with the result
        after a success; ``reload`` (default) re-reads pages and counts
        afterwards, so panes refresh. Returns the worker, or None (with a
        notification) when another operation is still running or the store
        is not open.
        """
        app = self.app
        if not app.store.is_open:
            app.notify("The store is not open yet.", title=label.capitalize(), severity="warning")
            return None
        if any(w.group == GROUP and not w.is_finished for w in app.workers):
            app.notify("Another operation is still running; try again in a moment.",
                       title=label.capitalize(), severity="warning")
            return None

        def work() -> None:
            self.wait_for_index()
            app.call_from_thread(setattr, app, "background", (f"{label}…", 0, 0))
            try:
                with app.store.exclusive() as store:
                    try:
                        result = fn(app.config, store)
                    except UserError as exc:
                        app.post_message(OperationFinished(label, error=str(exc), undo_state=read_undo_state(store),
                                                           stepped_past=isinstance(exc, SteppedPast)))
                        return
                    state = read_undo_state(store)
            except BaseException:
                app.post_message(OperationFinished(label, error=""))  # clears the progress; the app reports the bug
                raise
            # Kùzu keeps each write's memory until the database closes: without
            # this a session grew by ~25 MB per rename and undo of a widely linked page.
            app.store.recycle_if_grown()
            app.post_message(
                OperationFinished(label, result, message(result), undo_state=state, done=done, reload=reload)
            )

        return app.run_worker(work, name=label, group=GROUP, thread=True, exit_on_error=False)

    def finished(self, message: OperationFinished) -> None:
        """The app's answer to :class:`OperationFinished`: clear the progress,
        notify, record what undo/redo offer (which greys ``u``/``U``), re-read
        pages and counts (every pane refreshes), then run ``done``."""
        app = self.app
        if app.background is not None and app.background[0] == f"{message.label}…":
            app.background = None
        self.set_undo_state(message.undo_state)
        title = message.label.capitalize()
        if message.error and message.stepped_past:
            app.notify(message.error, title=f"{title}: stepped past, no file changed", severity="warning", timeout=15)
            return
        if message.error:
            app.notify(message.error, title=f"{title}: nothing was done", severity="error", timeout=15)
            return
        if message.undo_state is None:  # a bug; the worker handler reports it
            return
        if message.message:
            app.notify(message.message, title=title, timeout=8)
        if message.reload:
            app.load_vault()
        if message.done is not None:
            message.done(message.result)

    def read_undo_state_later(self) -> None:
        """Read what undo/redo offer in a worker (posts :class:`UndoStateRead`)."""
        app = self.app

        def work() -> None:
            with app.store.use() as store:
                state = read_undo_state(store)
            app.post_message(UndoStateRead(state))

        app.run_worker(work, name="undo state", group="undo-state", thread=True, exclusive=True, exit_on_error=False)

    def set_undo_state(self, state: UndoState | None) -> None:
        if state is None:
            return
        app = self.app
        changed = state != app.undo_state
        app.undo_state = state
        app.undo_available = state.undo is not None
        app.redo_available = state.redo is not None
        app.refresh_bindings()
        if changed:
            # The undo log can change without any file changing (an undo
            # that reaches a merge steps past it and writes nothing), so
            # the undo log pane hears of it here, not through vault_changed.
            app.undo_changed.publish(None)

    def undo(self) -> None:
        """``u``: undo the newest done operation (refused, with the reason, when
        one of its files changed since)."""
        self.run("undo", changeset.undo)

    def redo(self) -> None:
        """``U``: redo the most recently undone operation."""
        self.run("redo", changeset.redo, message=lambda op: f"Redone: {op.summary}  (u undoes)")
