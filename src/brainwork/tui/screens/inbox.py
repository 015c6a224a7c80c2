"""The correction inbox (pane 4): unresolved and proposed corrections,
newest first, with the highlighted one in full.

The screen renders :func:`brainwork.service.views.inbox_view` (reads in a
thread worker, group ``inbox``). Every change (dismiss, confirm, link,
batches of marked rows) is one vault operation, so one ``u`` undoes it; the
pane shows its result at once and the re-read that follows reconciles.
Keys and walkthrough: docs/architecture.md ("The panes").
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
from brainwork.service import triage
from brainwork.service.views import (
    NO_TASK,
    InboxView,
    Marks,
    RankedRule,
    can_confirm,
    can_dismiss,
    can_link,
    draft_from_quote,
    inbox_detail,
    inbox_view,
    link_proposal,
    rank_rules,
    without,
)
from brainwork.tui.learning import ConsolidationPhase, ReloadWhenShown
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


class RulesRanked(Message):
    """The rules were ranked for linking corrections ``ids``: ``ranked``
    closest first (:func:`brainwork.service.views.rank_rules`)."""

    def __init__(self, ids: tuple[str, ...], ranked: tuple[RankedRule, ...]):
        super().__init__()
        self.ids = ids
        self.ranked = ranked


class CorrectionsTriaged(Message):
    """An inbox operation of this pane finished: corrections ``ids`` are
    ``status`` now (the pane shows it before the re-read lands)."""

    def __init__(self, action: str, ids: tuple[str, ...], status: str):
        super().__init__()
        self.action = action
        self.ids = ids
        self.status = status


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


#: The marker in front of a marked row's title.
MARK = "● "


class InboxScreen(ReloadWhenShown, ConsolidationPhase, PaneScreen):
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
        Binding("space", "toggle_mark", "Mark", tooltip="Mark or unmark the row; d and l then act on every marked row"),
        Binding("v", "mark_range", "Mark range", show=False, tooltip="Mark every row from the last marked one to the cursor"),
        Binding("escape", "clear_marks", "Clear marks", show=False, tooltip="Unmark every row"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.items: list[InboxItem] = []
        self.view: InboxView | None = None
        self.include_handled = False
        self._request = 0
        self._loaded = False
        self.marks = Marks()

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
        self.app.learning.ensure_embedder()
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
        self._show_view(message.view)

    def _cells(self, r) -> tuple[Text, ...]:
        dim = "dim" if r.handled else ""
        proposed = r.status == "proposed"
        title = Text(overflow="ellipsis", no_wrap=True)
        if r.id in self.marks:
            title.append(MARK, style="bold")
        title.append(r.title, style="italic" if proposed else dim)
        return (
            Text(r.created, style=dim),
            Text(r.status, style="bold italic" if proposed else "bold" if r.waiting else dim),
            title,
            Text(r.task, style="dim", overflow="ellipsis", no_wrap=True),
            Text(r.cluster, style=dim, overflow="ellipsis", no_wrap=True),
        )

    def _show_view(self, view: InboxView) -> None:
        """Show ``view`` (keeping the cursor on the same correction, else at
        the same row) and drop marks of rows no longer listed."""
        table = self.query_one(InboxTable)
        keep_id = self.highlighted_id
        keep_row = table.cursor_row
        self.view = view
        self.items = list(view.items)
        self.marks.keep(i.id for i in self.items)
        rows = [(r.id, self._cells(r)) for r in view.rows]
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
        top.border_title = (
            self.view.title_marked(len(self.marks)) if self._loaded and self.view is not None else "Correction inbox"
        )
        if self._phase:
            top.border_subtitle = self._phase
        elif self.marks:
            top.border_subtitle = f"{len(self.marks)} marked: d dismisses · l links them all · esc unmarks"
        elif can_confirm(self.highlighted_item):
            # y is left out of the footer (most rows cannot be confirmed) and
            # the detail's line about it is below the fold on a short screen.
            top.border_subtitle = "y confirm · d dismiss · enter task · c consolidate · a open/all"
        else:
            # Short enough for the border of an 80-column terminal (the footer names each key in full).
            top.border_subtitle = "space mark · d dismiss · l link · enter task · c consolidate · a open/all"

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
        self._update_title()
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
    def marked_items(self) -> list[InboxItem]:
        """The marked corrections, in list order."""
        return [i for i in self.items if i.id in self.marks]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        item = self.highlighted_item
        if action == "dismiss_correction":  # a proposed correction can be dismissed too
            if self.marks:
                return True if any(can_dismiss(i) for i in self.marked_items()) else None
            return True if can_dismiss(item) else None
        if action == "confirm_correction":
            return True if can_confirm(item) and not self.marks else None
        if action == "link_rule":
            if self.marks:
                return True if any(can_link(i) for i in self.marked_items()) else None
            return True if can_link(item) else None
        if action in ("toggle_mark", "mark_range"):
            return True if item is not None else None
        if action == "clear_marks":
            return True if self.marks else None
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
        self.app.learning.consolidate()

    def action_toggle_handled(self) -> None:
        self.include_handled = not self.include_handled
        self.load()

    # -- marks ----------------------------------------------------------------------
    def _marks_changed(self) -> None:
        table = self.query_one(InboxTable)
        if self.view is not None:
            table.set_rows([(r.id, self._cells(r)) for r in self.view.rows], table.cursor_row)
        self._update_title()
        self.refresh_bindings()

    def action_toggle_mark(self) -> None:
        item = self.highlighted_item
        if item is None:
            return
        self.marks.toggle(item.id)
        self._marks_changed()
        table = self.query_one(InboxTable)
        if table.cursor_row < table.row_count - 1:  # on to the next row, as file managers do
            table.move_cursor(row=table.cursor_row + 1, animate=False)

    def action_mark_range(self) -> None:
        item = self.highlighted_item
        if item is None:
            return
        self.marks.mark_range([i.id for i in self.items], item.id)
        self._marks_changed()

    def action_clear_marks(self) -> None:
        if self.marks.clear():
            self._marks_changed()

    # -- showing an operation's result at once -----------------------------------------
    def _triaged(self, action: str, ids, status: str) -> None:
        """Show corrections ``ids`` as ``status`` now (posted as a message:
        tests and other listeners hear of it)."""
        self.post_message(CorrectionsTriaged(action, tuple(ids), status))

    def on_corrections_triaged(self, message: CorrectionsTriaged) -> None:
        if self.view is None:
            return
        self.marks.clear()
        self._request += 1  # a read begun before the operation must not land over it
        self._show_view(without(self.view, message.ids, message.status))

    def action_dismiss_correction(self) -> None:
        if self.marks:
            self._dismiss_marked()
            return
        item = self.highlighted_item
        if item is None:
            return

        def dismissed(reason: str | None) -> None:
            if reason is None:
                return
            cid = item.id
            self.app.operations.run(
                "dismiss correction", lambda config, store: dismiss_correction(config, store, cid, reason),
                done=lambda op: self._triaged("dismiss", [cid], "dismissed"),
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

    def _dismiss_marked(self) -> None:
        items = [i for i in self.marked_items() if can_dismiss(i)]
        if not items:
            return
        ids = [i.id for i in items]
        n = len(ids)

        def dismissed(reason: str | None) -> None:
            if reason is None:
                return
            self.app.operations.run(
                "dismiss corrections",
                lambda config, store: triage.dismiss_corrections(config, store, ids, reason),
                message=lambda result: result.describe("Dismissed", "correction"),
                done=lambda result: self._triaged("dismiss", result.done, "dismissed"),
            )

        skipped = len(self.marks) - n
        self.app.push_screen(
            ReasonScreen(
                f"Dismiss {n} marked correction{'s' if n != 1 else ''}",
                f"They leave the inbox in one operation: one u undoes all {n}."
                + (f" {skipped} marked row{'s' if skipped != 1 else ''} cannot be dismissed and stay{'s' if skipped == 1 else ''}." if skipped else ""),
                required=False,
                confirm=f"Dismiss {n}",
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
            self.app.operations.run(
                "confirm correction", lambda config, store: confirm_correction(config, store, cid, *values),
                done=lambda op: self._triaged("confirm", [cid], "open"),
            )

        draft = draft_from_quote(item.wrong, correct=item.correct, why=item.why)
        self.app.push_screen(
            ConfirmCorrectionScreen(f"Confirm {item.id}", quote=draft.quote, wrong=draft.wrong, correct=draft.correct, why=draft.why),
            confirmed,
        )

    def action_link_rule(self) -> None:
        items = [i for i in self.marked_items() if can_link(i)] if self.marks else []
        if not items:
            item = self.highlighted_item
            if item is None or not can_link(item):
                return
            items = [item]
        rules = self.view.rules if self.view is not None else ()
        if not rules:
            self.notify("There is no active or candidate rule to link to.", title="Link to rule", severity="warning")
            return
        self._rank(tuple(items), tuple(rules))

    @work(thread=True, group="inbox-rank", exclusive=True, exit_on_error=False)
    def _rank(self, items: tuple[InboxItem, ...], rules) -> None:
        with self.app.store.use() as store:
            ranked = rank_rules(store, rules, items)
        self.post_message(RulesRanked(tuple(i.id for i in items), ranked))

    def on_rules_ranked(self, message: RulesRanked) -> None:
        by_id = {i.id: i for i in self.items}
        items = [by_id[i] for i in message.ids if i in by_id]
        if not items or not message.ranked:
            return
        ids = [i.id for i in items]
        if len(items) == 1:
            proposed, note = link_proposal(items[0])
            title = f"Link {ids[0]} to a rule"
        else:
            proposed, note = None, f"All {len(ids)} marked corrections go to the rule you pick, in one operation (one u undoes it)."
        basis = message.ranked[0].basis
        note = (note + " " if note else "") + (
            "Closest first (cosine similarity to the correction" + ("s" if len(ids) > 1 else "") + ")."
            if basis == "meaning" else "Closest first (word overlap: no vectors yet)."
        )
        if proposed is None:
            proposed = message.ranked[0].rule.id
        if len(items) > 1:
            title = f"Link {len(ids)} marked corrections to a rule"

        def picked(rule_id: str | None) -> None:
            if rule_id is None:
                return
            self.app.operations.run(
                "link correction" if len(ids) == 1 else "link corrections",
                lambda config, store: link_corrections(config, store, rule_id, ids),
                done=lambda decision: self._triaged("link", decision.corrections, _linked_status(message.ranked, rule_id)),
            )

        self.app.push_screen(
            # The modal also serves the Rules pane, which hands it mappings.
            PickRuleScreen(title, [r.to_json() for r in message.ranked], preselect=proposed, note=note),
            picked,
        )

    # -- consolidation progress (ConsolidationPhase) ---------------------------
    def _phase_changed(self) -> None:
        self._update_title()


def _linked_status(ranked: tuple[RankedRule, ...], rule_id: str) -> str:
    """A correction linked to an active rule is promoted; to a candidate, clustered."""
    status = next((r.rule.status for r in ranked if r.rule.id == rule_id), None)
    return "promoted" if status == "active" else "clustered"
