"""Running vault operations from the workbench (fixes, rename, merge, split,
undo, redo) in thread workers.

Every operation that touches files or the store goes through
:func:`run_operation`: a named thread worker (group ``operation``, one at a
time, never cancelled: an operation half-stopped would leave the journal to
recover) that

1. waits for a running index sync to finish (the operation re-indexes the
   files it changes itself, and two writers on one Kùzu store collide);
2. shows its label with a progress bar in the status bar
   (``app.background``) while it runs;
3. runs ``fn(config, store)`` holding the store *exclusively*
   (:meth:`~brainwork.service.handle.StoreHandle.exclusive`: the
   operation writes files, journals, re-indexes and records the undo log;
   no read may run during its commits);
4. reads what undo/redo would do next and posts :class:`OperationFinished`
   (the result, or the one-line reason it was refused).

The app answers :class:`OperationFinished` with :func:`operation_finished`:
it clears the progress, notifies, records whether undo/redo are available
(``app.undo_available`` / ``app.redo_available``, which grey the ``u`` and
``U`` keys), and re-reads the page list and counts, which publishes
``app.vault_changed`` so every pane (findings, undo log, graph) refreshes.

:class:`~brainwork.errors.UserError` (a file changed since, nothing to
undo, a bad title ...) is not a failure of the workbench: it becomes a
notification saying why nothing was done. Anything else is a bug: it is
reported (with a traceback in the Textual log) by the app's one worker
error handler, after the progress was cleared.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from textual.message import Message
from textual.worker import Worker, WorkerState

from brainwork.config import Config
from brainwork.errors import UserError
from brainwork.ops import changeset
from brainwork.store import Store

if TYPE_CHECKING:
    from brainwork.tui.app import BrainworkApp

#: Worker group of every vault operation.
GROUP = "operation"


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
    on success; ``undo_state`` what undo/redo offer now; ``done`` an
    optional callback run on the UI thread after a success (e.g. to move a
    list's cursor); ``reload`` re-reads pages and counts afterwards (False
    for work that only reads, such as planning a merge)."""

    def __init__(
        self,
        label: str,
        result: Any = None,
        message: str = "",
        error: str = "",
        undo_state: UndoState | None = None,
        done: Callable[[Any], None] | None = None,
        reload: bool = True,
    ):
        super().__init__()
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


def _wait_for_index(app: "BrainworkApp") -> None:
    """Block this (worker) thread until no index sync runs."""

    async def index_done() -> None:
        for worker in [w for w in app.workers if w.group == "index" and not w.is_finished]:
            try:
                await worker.wait()
            except Exception:  # its failure is reported by the app already
                pass

    app.call_from_thread(index_done)


def run_operation(
    app: "BrainworkApp",
    label: str,
    fn: Callable[[Config, Store], Any],
    *,
    message: Callable[[Any], str] = describe,
    done: Callable[[Any], None] | None = None,
    reload: bool = True,
) -> Worker | None:
    """Run ``fn(config, store)`` as a vault operation (see the module doc).

    ``label`` is shown in the status bar while it runs (``"renaming…"`` is
    made from ``"rename"``) and titles the notification; ``message`` makes
    the notification text from the result; ``done`` runs on the UI thread
    with the result after a success; ``reload`` (default) re-reads pages
    and counts afterwards, so panes refresh. Returns the worker, or None (with a
    notification) when another operation is still running or the store is
    not open.
    """
    if not app.store.is_open:
        app.notify("The store is not open yet.", title=label.capitalize(), severity="warning")
        return None
    if any(w.group == GROUP and not w.is_finished for w in app.workers):
        app.notify("Another operation is still running; try again in a moment.",
                   title=label.capitalize(), severity="warning")
        return None

    def work() -> None:
        _wait_for_index(app)
        app.call_from_thread(setattr, app, "background", (f"{label}…", 0, 0))
        try:
            with app.store.exclusive() as store:
                try:
                    result = fn(app.config, store)
                except UserError as exc:
                    app.post_message(OperationFinished(label, error=str(exc), undo_state=read_undo_state(store)))
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


def read_undo_state_later(app: "BrainworkApp") -> None:
    """Read what undo/redo offer in a worker (posts :class:`UndoStateRead`)."""

    def work() -> None:
        with app.store.use() as store:
            state = read_undo_state(store)
        app.post_message(UndoStateRead(state))

    app.run_worker(work, name="undo state", group="undo-state", thread=True, exclusive=True, exit_on_error=False)


def set_undo_state(app: "BrainworkApp", state: UndoState | None) -> None:
    if state is None:
        return
    app.undo_state = state
    app.undo_available = state.undo is not None
    app.redo_available = state.redo is not None
    app.refresh_bindings()


def operation_finished(app: "BrainworkApp", message: OperationFinished) -> None:
    """The app's answer to :class:`OperationFinished` (see the module doc)."""
    if app.background is not None and app.background[0] == f"{message.label}…":
        app.background = None
    set_undo_state(app, message.undo_state)
    title = message.label.capitalize()
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


def undo(app: "BrainworkApp") -> None:
    """``u``: undo the newest done operation (refused, with the reason, when
    one of its files changed since)."""
    run_operation(app, "undo", changeset.undo)


def redo(app: "BrainworkApp") -> None:
    """``U``: redo the most recently undone operation."""
    run_operation(app, "redo", changeset.redo, message=lambda op: f"Redone: {op.summary}  (u undoes)")


def is_running(app: "BrainworkApp") -> bool:
    """True while an operation's worker runs."""
    return any(w.group == GROUP and w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in app.workers)
