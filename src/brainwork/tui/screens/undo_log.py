"""The undo log pane: every recorded operation, newest first.

Top: one row per operation (id, state, kind, when, summary); the operation
``u`` would reach is marked ``← u``, the one ``U`` would redo ``← U``.
Bottom: what the highlighted operation changed — its files and the unified
diff of each (before -> after, read from the undo log's stored bytes).

Undo and redo are the app's ``u`` / ``U`` (one step at a time, newest
first, as :func:`brainwork.ops.changeset.undo` / ``redo`` do); an undo whose
files were changed since by someone else is refused with a notification
naming the file. A merge is listed too, as ``brainwork log`` lists it, but
it cannot be undone: the log keeps only the paths of its files, and an undo
that reaches it steps past it (state ``passed``) and leaves it applied.

Reads run in thread workers (groups ``undo-log`` and ``undo-detail``) that
post :class:`HistoryLoaded` / :class:`OperationLoaded`; the list is re-read
whenever the vault changes (after every operation, undo and redo) and when
what ``u`` / ``U`` would do changes (an undo that stepped past a merge).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable

from rich.syntax import Syntax
from rich.text import Text
from textual import on, work
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import DataTable, Static
from textual.worker import get_current_worker

from brainwork.ops import changeset
from brainwork.ops.changeset import Operation
from brainwork.ops.operation import PASSED
from brainwork.tui.screens.base import PaneScreen
from brainwork.tui.widgets.cells import shown
from brainwork.tui.widgets.fitted_table import ColumnSpec, FittedTable

#: Diff text shown per operation is cut after this many lines (a rename of
#: a page with 1,000 backlinks has a long diff; the files list stays whole).
DIFF_LINES = 400


def _utc(created: str) -> datetime | None:
    """``created`` (ISO 8601; UTC when it names no zone), or None when it is
    not a time (an entry written by hand or damaged)."""
    try:
        when = datetime.fromisoformat(created)
    except (TypeError, ValueError):
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


def format_time(created: str, now: datetime | None = None) -> str:
    """``created`` (ISO 8601 UTC) for the list: ``just now``, ``5 min ago``,
    ``3 h ago``, else the local date and time ``2026-09-28 14:03``."""
    when = _utc(created)
    if when is None:
        return created or ""
    now = now or datetime.now(timezone.utc)
    seconds = (now - when).total_seconds()
    if 0 <= seconds < 60:
        return "just now"
    if 0 <= seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if 0 <= seconds < 12 * 3600:
        return f"{int(seconds // 3600)} h ago"
    return when.astimezone().strftime("%Y-%m-%d %H:%M")


def absolute_time(created: str) -> str:
    """``created`` (ISO 8601 UTC) as local date and time to the second."""
    when = _utc(created)
    if when is None:
        return created or ""
    return when.astimezone().strftime("%Y-%m-%d %H:%M:%S %Z").strip()


class HistoryLoaded(Message):
    """The undo log was read: ``operations`` newest first (without changes)."""

    def __init__(self, operations: list[Operation]):
        super().__init__()
        self.operations = operations


class OperationLoaded(Message):
    """One operation with its changes (None: it is gone), for the detail view."""

    def __init__(self, request_id: int, op_id: int, operation: Operation | None):
        super().__init__()
        self.request_id = request_id
        self.op_id = op_id
        self.operation = operation


#: The undo log's columns before the log is read; then ``kind`` and
#: ``when`` take the width of their longest cell (:meth:`UndoTable.fit_cells`)
#: and the summary the rest.
UNDO_COLUMNS = (
    ColumnSpec("id", "#", width=4),
    ColumnSpec("state", "state", width=10),
    ColumnSpec("kind", "kind", weight=1, minimum=10),
    ColumnSpec("when", "when", width=16),
    ColumnSpec("summary", "summary", weight=3, minimum=16),
)
#: The widest the kind column grows: the longest operation kind,
#: "dismiss-corrections", is 19; at 80 columns this leaves the summary 16.
KIND_MAX = 19


def state_label(op: Operation) -> str:
    """What ``op``'s state means for ``u`` / ``U``, for the detail view: an
    irreversible operation (a merge) stays applied whether or not an undo
    has reached it, so it never reads "undone"."""
    if not op.reversible:
        if op.state == PASSED:
            return "passed: it cannot be undone, so an undo stepped past it (it is still applied)"
        return "done · it cannot be undone (u steps past it to the operation before)"
    if op.state == "done":
        return "done"
    if op.state == "undone":
        return "undone (U redoes it)"
    return op.state


def _cut(text: str, style: str) -> Text:
    """A cell that ends in "…" where its column cuts it."""
    return Text(shown(text), style=style, overflow="ellipsis", no_wrap=True)


class UndoTable(FittedTable):
    """The operations (row keys are operation ids as text)."""

    HELP_TITLE = "operation list"
    BINDINGS = [
        Binding("enter", "select_cursor", "Open page", tooltip="Show the operation's page in the graph pane"),
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
    ]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "select_cursor" and self.row_count == 0:
            return None  # greyed: no operation to open the page of
        return super().check_action(action, parameters)

    def fit_cells(self, kinds: list[str], whens: list[str]) -> None:
        """Give ``kind`` and ``when`` the width of their longest cell (at
        least their label's): "just now" needs 8 cells where a date takes
        16, and the spare width goes to the kind ("approve-rule" was cut to
        "approve-r…" at 80 columns) and the summary."""
        wide = {
            "kind": min(KIND_MAX, max([len("kind"), *map(len, kinds)])),
            "when": max([len("when"), *map(len, whens)]),
        }
        self.specs = [replace(s, width=wide[s.key]) if s.key in wide else s for s in UNDO_COLUMNS]
        self._fit()


class UndoLogScreen(PaneScreen):
    """The undo log (pane 3)."""

    PANE_ID = "undo"
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    AUTO_FOCUS = "#undo-table"

    BINDINGS = [
        Binding("U", "app.redo", "Redo", tooltip="Redo the last undone operation"),
        Binding("o", "open_page", "Open page", show=False, tooltip="Show the operation's page in the graph pane"),
        Binding("r", "reload", "Reload", show=False, tooltip="Read the undo log again"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.operations: list[Operation] = []
        self._detail_request = 0
        self._shown: Operation | None = None
        #: The diff text shown for the highlighted operation.
        self.diff_text = ""

    def compose_body(self) -> Iterable[Widget]:
        with Vertical(id="undo-body"):
            with Vertical(id="undo-top"):
                yield UndoTable(UNDO_COLUMNS, id="undo-table")
                yield Static("", id="undo-empty")
            with VerticalScroll(id="undo-detail"):
                yield Static("", id="undo-detail-head")
                yield Static("", id="undo-detail-diff")

    def on_mount(self) -> None:
        super().on_mount()
        table = self.query_one(UndoTable)
        top = self.query_one("#undo-top")
        top.border_title = "Undo log · newest first"
        top.border_subtitle = "u undo · U redo · merges cannot be undone (u steps past them)"
        self.query_one("#undo-detail").border_title = "What changed"
        self.load_history()
        if not getattr(self, "_undo_subscribed", False):
            self._undo_subscribed = True
            self.app.undo_changed.subscribe(self, lambda _: self.load_history())
        table.focus()

    def on_vault_changed(self) -> None:
        self.load_history()

    def action_reload(self) -> None:
        self.load_history()

    # -- store reads ------------------------------------------------------------
    def load_history(self) -> None:
        if self.app.store.is_open:
            self._read_history()

    @work(thread=True, group="undo-log", exclusive=True, exit_on_error=False)
    def _read_history(self) -> None:
        worker = get_current_worker()
        with self.app.store.use() as store:
            ops = changeset.history(store)
        if not worker.is_cancelled:
            self.post_message(HistoryLoaded(ops))

    def on_history_loaded(self, message: HistoryLoaded) -> None:
        self.operations = message.operations
        table = self.query_one(UndoTable)
        keep = self._highlighted_id()
        rows = []
        next_undo = next((op.id for op in self.operations if op.state == "done"), None)
        next_redo = next((op.id for op in reversed(self.operations) if op.state == "undone"), None)
        whens = [format_time(op.created) for op in self.operations]
        table.fit_cells([op.kind for op in self.operations], whens)
        for op, when in zip(self.operations, whens):
            state = Text(op.state, style="bold" if op.state == "done" else "dim")
            if op.id == next_undo:
                state.append(" ← u", style="bold")
            elif op.id == next_redo:
                state.append(" ← U", style="bold")
            dim = "dim" if op.state == "undone" else ""
            rows.append((str(op.id), [
                Text(str(op.id), style=dim),
                state,
                _cut(op.kind, dim),
                _cut(when, dim),
                _cut(op.description, dim),
            ]))
        row = 0
        if keep is not None:
            row = next((i for i, op in enumerate(self.operations) if op.id == keep), 0)
        table.set_rows(rows, row)
        self.refresh_bindings()  # enter is greyed while the log is empty
        empty = self.query_one("#undo-empty", Static)
        empty.display = not self.operations
        table.display = bool(self.operations)
        if not self.operations:
            empty.update(
                "No operations yet. Fixes from the Findings pane (2), renames, splits and "
                "dismissals are listed here, and can be undone with u."
            )
            self._show(None)
            return
        if self.focused is None:  # the table was hidden while the log was empty
            table.focus()
        self._load_detail(self.operations[row].id)

    def _highlighted_id(self) -> int | None:
        table = self.query_one(UndoTable)
        if not self.operations or table.row_count == 0:
            return None
        row = table.cursor_row
        return self.operations[row].id if 0 <= row < len(self.operations) else None

    @on(DataTable.RowHighlighted, "#undo-table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is not None:
            self._load_detail(int(event.row_key.value))

    def _load_detail(self, op_id: int) -> None:
        if self._shown is not None and self._shown.id == op_id and self._shown.changes is not None:
            current = next((o for o in self.operations if o.id == op_id), None)
            if current is not None and current.state == self._shown.state:
                return
        self._detail_request += 1
        self._read_operation(self._detail_request, op_id)

    @work(thread=True, group="undo-detail", exclusive=True, exit_on_error=False)
    def _read_operation(self, request_id: int, op_id: int) -> None:
        worker = get_current_worker()
        with self.app.store.use() as store:
            op = changeset.get_operation(store, op_id)
        if not worker.is_cancelled:
            self.post_message(OperationLoaded(request_id, op_id, op))

    def on_operation_loaded(self, message: OperationLoaded) -> None:
        if message.request_id == self._detail_request:
            self._show(message.operation)

    # -- the detail view --------------------------------------------------------
    def _show(self, op: Operation | None) -> None:
        self._shown = op
        head = self.query_one("#undo-detail-head", Static)
        diff = self.query_one("#undo-detail-diff", Static)
        detail = self.query_one("#undo-detail")
        if op is None:
            head.update("")
            diff.update("")
            self.diff_text = ""
            detail.border_title = "What changed"
            return
        detail.border_title = f"What changed · #{op.id} {op.kind}"
        lines = [
            Content.from_markup("[b]$summary[/b]", summary=op.summary),
            Content.from_markup(
                "[$text-muted]$state · $when ($iso)[/]",
                state=state_label(op),
                when=format_time(op.created),
                iso=absolute_time(op.created),
            ),
        ]
        for action in op.store_actions:
            if action.get("do") in ("dismiss", "undismiss"):
                reason = f" — {action['reason']}" if action.get("reason") else ""
                lines.append(Content.from_markup("[$accent]$do[/] $key$reason", do=action["do"], key=action.get("key", ""), reason=reason))
        if op.changes:
            lines.append(Content(f"{len(op.changes)} file{'s' if len(op.changes) != 1 else ''}:"))
            for c in op.changes:
                how = "created" if c.before is None else "deleted" if c.after is None else "changed"
                lines.append(Content.from_markup("  [$text-muted]$how[/] $path", how=f"{how:8}", path=c.path))
        elif op.paths:
            # An irreversible operation is logged without its bytes: the
            # paths are all there is to show, and no diff follows.
            n = len(op.paths)
            lines.append(Content(f"{n} file{'s' if n != 1 else ''} (their contents were not kept: it cannot be undone):"))
            for path in op.paths:
                lines.append(Content.from_markup("  [$text-muted]$how[/] $path", how=f"{'touched':8}", path=path))
        elif not op.store_actions:
            lines.append(Content("No file changed."))
        head.update(Content("\n").join(lines))
        text = "".join(body for _path, body in op.diff())
        cut = text.splitlines(keepends=True)
        if len(cut) > DIFF_LINES:
            text = "".join(cut[:DIFF_LINES]) + f"… {len(cut) - DIFF_LINES} more diff lines\n"
        self.diff_text = text
        diff.update(
            Syntax(text, "diff", theme="ansi_dark", background_color="default", word_wrap=True) if text else ""
        )

    # -- actions ----------------------------------------------------------------
    def _page_of(self, op: Operation | None) -> str | None:
        if op is None:
            return None
        d = op.details or {}
        for key in ("new_id", "page"):
            if isinstance(d.get(key), str):
                return d[key]
        return None

    @on(DataTable.RowSelected, "#undo-table")
    def _row_selected(self) -> None:
        self.action_open_page()

    def action_open_page(self) -> None:
        op = next((o for o in self.operations if o.id == self._highlighted_id()), None)
        page = self._page_of(op)
        pages = {p.id for p in self.app.pages or []}
        if page is None or page not in pages:
            self.notify("This operation's page does not exist (any more).", title="Open page", severity="warning")
            return
        self.app.open_page(page)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_page":
            op = next((o for o in self.operations if o.id == self._highlighted_id()), None)
            return True if self._page_of(op) else None
        return True
