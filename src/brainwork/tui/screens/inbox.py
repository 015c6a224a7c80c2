"""The correction inbox (pane 4): open corrections, newest first.

Top: one row per unresolved correction (status ``open``, ``clustered`` or
none; :func:`brainwork.learn.inbox.inbox`) — when, status, the correction,
the task it came from, and its cluster or rule. Bottom: the highlighted
correction in full: what was wrong, the correct behaviour, why it matters,
its task, and what consolidation made of it (its cluster: size, similarity,
the candidate rule holding it, or the active rule it was proposed as
evidence for).

Proposed corrections (drafted by a session hook from the person's words,
:func:`brainwork.learn.capture.propose_correction`) are listed too, with
status ``proposed``: ``y`` confirms one (what was wrong, the correct
behaviour and why are asked; it becomes open, undoable with ``u``).

Keys: ``d`` dismisses the correction (a reason is asked, optional; undoable
with ``u``), ``l`` links it to a rule (active rules first, then candidates;
the rule consolidation proposed is preselected), ``enter``/``o`` opens the
task's neighbourhood in the graph pane, ``c`` runs consolidation, ``a``
toggles between open corrections and every correction.

What the pane shows (rows, detail, title, which actions a correction
allows) is the Textual-free read-model :func:`brainwork.service.views.inbox_view`;
reads run in a thread worker (group ``inbox``) posting :class:`InboxLoaded`;
changes run as vault operations (:func:`brainwork.tui.operations.run_operation`),
after which the app re-reads the vault and this pane reloads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.message import Message
from textual.widget import Widget
from textual.widgets import DataTable, Static
from textual.worker import get_current_worker

from brainwork.learn.inbox import InboxItem, confirm_correction, dismiss_correction
from brainwork.learn.rules import link_corrections
from brainwork.service.views import (
    NO_TASK,
    InboxView,
    can_confirm,
    can_dismiss,
    can_link,
    inbox_detail,
    inbox_view,
    link_proposal,
)
from brainwork.tui import learning, operations
from brainwork.tui.modals.confirm_correction import ConfirmCorrectionScreen
from brainwork.tui.modals.pick_rule import PickRuleScreen
from brainwork.tui.modals.reason import ReasonScreen
from brainwork.tui.screens.base import PaneScreen
from brainwork.tui.widgets.fitted_table import ColumnSpec, FittedTable


class InboxLoaded(Message):
    """The inbox was read: ``view`` (:class:`brainwork.service.views.InboxView`)."""

    def __init__(self, request_id: int, view: InboxView):
        super().__init__()
        self.request_id = request_id
        self.view = view


def detail_table(item: InboxItem) -> Table:
    """Label / value rows of one correction for the detail view."""
    d = inbox_detail(item)
    table = Table.grid(padding=(0, 2))
    table.add_column(width=8, no_wrap=True, style="bold")
    table.add_column()
    table.add_row("Wrong", Text(d.wrong))
    table.add_row("Correct", Text(d.correct))
    table.add_row("Why", Text(d.why))
    if d.tasks:
        tasks = Text()
        for i, (task_id, title) in enumerate(d.tasks):
            if i:
                tasks.append("\n")
            tasks.append(title)
            tasks.append(f"  {task_id}", style="dim")
        tasks.append("  (enter opens)", style="dim")
        table.add_row("Task", tasks)
    else:
        table.add_row("Task", Text(NO_TASK, style="dim"))
    table.add_row(d.note_label, Text(d.note, style="dim" if d.note_dim else ""))
    return table


#: The inbox's columns: title, task and cluster share the width.
COLUMNS = (
    ColumnSpec("created", "created", width=10),
    ColumnSpec("status", "status", width=9),
    ColumnSpec("title", "correction", weight=45, minimum=16),
    ColumnSpec("task", "task", weight=30, minimum=10),
    ColumnSpec("cluster", "cluster / rule", weight=25, minimum=10),
)


class InboxTable(FittedTable):
    """The corrections (row keys are correction ids)."""

    HELP_TITLE = "correction list"


class InboxScreen(learning.ReloadWhenShown, learning.ConsolidationPhase, PaneScreen):
    """The correction inbox (pane 4)."""

    PANE_ID = "inbox"
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    AUTO_FOCUS = "#inbox-table"

    BINDINGS = [
        Binding("d", "dismiss_correction", "Dismiss", tooltip="Dismiss the correction (asks a reason; u undoes)"),
        # Only a proposed correction (drafted by a session hook) can be
        # confirmed; the detail view says so when one is highlighted.
        Binding("y", "confirm_correction", "Confirm", show=False,
                tooltip="Confirm a proposed correction: what was wrong, the correct behaviour, why (u undoes)"),
        Binding("l", "link_rule", "Link to rule", tooltip="Add the correction to a rule's evidence"),
        Binding("o", "open_task", "Open task", tooltip="Show the correction's task in the graph pane (also enter)"),
        Binding("c", "consolidate", "Consolidate", tooltip="Cluster open corrections and draft candidate rules"),
        Binding("a", "toggle_handled", "Open/all", tooltip="Show every correction, or only the open ones"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.items: list[InboxItem] = []
        self.view: InboxView | None = None
        self.include_handled = False
        self._request = 0
        self._loaded = False

    # -- layout -------------------------------------------------------------------
    def compose_body(self) -> Iterable[Widget]:
        with Vertical(id="inbox-body"):
            with Vertical(id="inbox-top"):
                yield InboxTable(COLUMNS, id="inbox-table")
                yield Static("", id="inbox-empty")
            with VerticalScroll(id="inbox-detail"):
                yield Static("", id="inbox-detail-head")
                yield Static("", id="inbox-detail-body")

    def on_mount(self) -> None:
        super().on_mount()
        table = self.query_one(InboxTable)
        self.query_one("#inbox-detail").border_title = "Correction"
        self.watch(self.app, "background", self._background_changed)
        self._show_empty("Reading the corrections…")
        # A store that cannot open (another process holds it) said "Reading
        # the corrections…" for ever.
        self.watch(self.app, "store_error", lambda error: self._show_empty(error) if error else None)
        self._update_title()
        self.load()
        learning.ensure_embedder(self.app)
        table.focus()

    # -- reading ------------------------------------------------------------------
    def load(self) -> None:
        """Re-read the inbox in a worker."""
        if not self.app.store.is_open:
            return
        self._request += 1
        self._read(self._request, self.include_handled)

    @work(thread=True, group="inbox", exclusive=True, exit_on_error=False)
    def _read(self, request_id: int, include_handled: bool) -> None:
        worker = get_current_worker()
        with self.app.store.use() as store:
            view = inbox_view(store, include_handled=include_handled)
        if not worker.is_cancelled:
            self.post_message(InboxLoaded(request_id, view))

    def on_inbox_loaded(self, message: InboxLoaded) -> None:
        if message.request_id != self._request:
            return
        self._loaded = True
        table = self.query_one(InboxTable)
        keep_id = self.highlighted_id
        keep_row = table.cursor_row
        view = self.view = message.view
        self.items = list(view.items)
        rows = []
        for r in view.rows:
            dim = "dim" if r.handled else ""
            rows.append((r.id, (
                Text(r.created, style=dim),
                Text(r.status, style="bold" if r.waiting else dim),
                Text(r.title, style=dim, overflow="ellipsis", no_wrap=True),
                Text(r.task, style="dim", overflow="ellipsis", no_wrap=True),
                Text(r.cluster, style=dim, overflow="ellipsis", no_wrap=True),
            )))
        ids = [i.id for i in self.items]
        row = ids.index(keep_id) if keep_id in ids else min(max(keep_row, 0), max(len(ids) - 1, 0))
        table.set_rows(rows, row)
        self._update_title()
        if not self.items:
            self._show_empty(view.empty_text)
            self._show_item(None)
            self.refresh_bindings()
            return
        self.query_one("#inbox-empty").display = False
        table.display = True
        if self.focused is None:
            table.focus()
        self._show_item(self.items[row])
        self.refresh_bindings()

    def _show_empty(self, text: str) -> None:
        empty = self.query_one("#inbox-empty", Static)
        empty.update(text)
        empty.display = True
        self.query_one(InboxTable).display = False

    def _update_title(self) -> None:
        top = self.query_one("#inbox-top")
        top.border_title = self.view.title if self._loaded and self.view is not None else "Correction inbox"
        top.border_subtitle = (
            self._phase or "d dismiss · l link to rule · enter task · c consolidate · a open/all"
        )

    # -- the highlighted correction -------------------------------------------------
    @property
    def highlighted_id(self) -> str | None:
        item = self.highlighted_item
        return item.id if item else None

    @property
    def highlighted_item(self) -> InboxItem | None:
        try:
            table = self.query_one(InboxTable)
        except NoMatches:  # not composed yet (bindings are checked early)
            return None
        if not self.items or table.row_count == 0 or not table.display:
            return None
        row = table.cursor_row
        return self.items[row] if 0 <= row < len(self.items) else None

    @on(DataTable.RowHighlighted, "#inbox-table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_item(self.highlighted_item)
        self.refresh_bindings()

    @on(DataTable.RowSelected, "#inbox-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open_task()

    def _show_item(self, item: InboxItem | None) -> None:
        head = self.query_one("#inbox-detail-head", Static)
        body = self.query_one("#inbox-detail-body", Static)
        detail = self.query_one("#inbox-detail")
        if item is None:
            detail.border_title = "Correction"
            head.update("")
            body.update("")
            return
        d = inbox_detail(item)
        detail.border_title = d.id
        title = Text(d.title, style="bold")
        title.append(f"   {d.heading}", style="dim")
        head.update(title)
        body.update(detail_table(item))

    # -- actions ------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        item = self.highlighted_item
        if action == "dismiss_correction":  # a proposed correction can be dismissed too
            return True if can_dismiss(item) else None
        if action == "confirm_correction":
            return True if can_confirm(item) else None
        if action == "link_rule":
            return True if can_link(item) else None
        if action == "open_task":
            return True if item is not None and item.tasks else None
        if action == "consolidate":
            return True if self.app.store.is_open else None
        return True

    def action_open_task(self) -> None:
        item = self.highlighted_item
        if item is None or not item.tasks:
            return
        self.app.open_page(item.tasks[0].id)

    def action_consolidate(self) -> None:
        learning.consolidate(self.app)

    def action_toggle_handled(self) -> None:
        self.include_handled = not self.include_handled
        self.load()

    def action_dismiss_correction(self) -> None:
        item = self.highlighted_item
        if item is None:
            return

        def dismissed(reason: str | None) -> None:
            if reason is None:
                return
            cid = item.id
            operations.run_operation(
                self.app, "dismiss correction", lambda config, store: dismiss_correction(config, store, cid, reason)
            )

        self.app.push_screen(
            ReasonScreen(
                f"Dismiss {item.id}",
                f"“{item.title}” leaves the inbox: consolidation no longer reads it and rule effects "
                "no longer count it. u undoes.",
                required=False,
                confirm="Dismiss",
            ),
            dismissed,
        )

    def action_confirm_correction(self) -> None:
        item = self.highlighted_item
        if item is None or not can_confirm(item):
            return

        def confirmed(values: tuple[str, str, str] | None) -> None:
            if values is None:
                return
            cid = item.id
            operations.run_operation(
                self.app, "confirm correction", lambda config, store: confirm_correction(config, store, cid, *values)
            )

        self.app.push_screen(
            ConfirmCorrectionScreen(f"Confirm {item.id}", quote=item.wrong, wrong=item.wrong, correct=item.correct, why=item.why),
            confirmed,
        )

    def action_link_rule(self) -> None:
        item = self.highlighted_item
        if item is None:
            return
        rules = self.view.rules if self.view is not None else ()
        if not rules:
            self.notify("There is no active or candidate rule to link to.", title="Link to rule", severity="warning")
            return
        proposed, note = link_proposal(item)

        def picked(rule_id: str | None) -> None:
            if rule_id is None:
                return
            cid = item.id
            operations.run_operation(
                self.app, "link correction", lambda config, store: link_corrections(config, store, rule_id, [cid])
            )

        self.app.push_screen(
            # The modal also serves the Rules pane, which hands it mappings.
            PickRuleScreen(f"Link {item.id} to a rule", [r.to_json() for r in rules], preselect=proposed, note=note),
            picked,
        )

    # -- consolidation progress (learning.ConsolidationPhase) ---------------------------
    def _phase_changed(self) -> None:
        self._update_title()
