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

Reads run in a thread worker (group ``inbox``) posting :class:`InboxLoaded`;
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

from brainwork.learn.inbox import InboxItem, confirm_correction, dismiss_correction, inbox
from brainwork.learn.rules import link_corrections, list_rules
from brainwork.tui import learning, operations
from brainwork.tui.modals.confirm_correction import ConfirmCorrectionScreen
from brainwork.tui.modals.pick_rule import PickRuleScreen
from brainwork.tui.modals.reason import ReasonScreen
from brainwork.tui.screens.base import PaneScreen
from brainwork.tui.widgets.fitted_table import ColumnSpec, FittedTable


class InboxLoaded(Message):
    """The inbox was read: ``items`` newest first; ``rules``: the active and
    candidate rules (``{"id", "title", "status", "text"}``) a correction can
    be linked to, active first."""

    def __init__(self, request_id: int, items: list[InboxItem], rules: list[dict], include_handled: bool):
        super().__init__()
        self.request_id = request_id
        self.items = items
        self.rules = rules
        self.include_handled = include_handled


def short_id(page_id: str) -> str:
    """``rules/verify-full-cert-chain`` -> ``verify-full-cert-chain``."""
    return page_id.rsplit("/", 1)[-1]


def cluster_label(item: InboxItem) -> str:
    """The table's cluster column: the rule a correction's cluster went to,
    with the cluster's size; or the rule listing it as evidence; or ``—``."""
    c = item.cluster
    if c:
        n = len(c.get("corrections") or ())
        target = c.get("candidate") or c.get("rule")
        if c.get("action") == "evidence" and c.get("rule"):
            return f"≈ {short_id(c['rule'])} ({n})"
        if target:
            return f"{short_id(target)} ({n})"
        return f"{n} corrections"
    if item.rules:
        return short_id(item.rules[0]["id"])
    return "—"


def cluster_text(item: InboxItem) -> str:
    """The detail view's explanation of the correction's cluster."""
    c = item.cluster
    lines = []
    if c:
        n = len(c.get("corrections") or ())
        t = len(c.get("tasks") or ())
        head = f"{n} correction{'s' if n != 1 else ''} from {t} task{'s' if t != 1 else ''}"
        if n > 1:
            head += f", similarity {float(c.get('similarity') or 0):.2f}"
        lines.append(head + " (last consolidation)")
        action = c.get("action")
        if action == "evidence":
            lines.append(f"proposed as evidence for the active rule {c.get('rule')}: l links it")
        elif action == "existing":
            lines.append(f"evidence of the candidate rule {c.get('candidate')}")
        elif action == "supersede":
            lines.append(f"drafted {c.get('candidate')}, to supersede {c.get('rule')}")
        elif c.get("candidate"):
            lines.append(f"drafted the candidate rule {c.get('candidate')}")
        others = [x for x in c.get("corrections") or () if x != item.id]
        if others:
            lines.append("with " + ", ".join(short_id(x) for x in others[:6]) + (" …" if len(others) > 6 else ""))
    else:
        lines.append("not clustered yet (c runs consolidation)")
    named = {c.get("candidate"), c.get("rule")} if c else set()
    for r in item.rules:
        if r["id"] not in named:
            lines.append(f"evidence of {r['id']} ({r['status'] or 'no status'})")
    return "\n".join(lines)


def detail_table(item: InboxItem) -> Table:
    """Label / value rows of one correction for the detail view."""
    table = Table.grid(padding=(0, 2))
    table.add_column(width=8, no_wrap=True, style="bold")
    table.add_column()
    table.add_row("Wrong", Text(item.wrong or "(not recorded)"))
    table.add_row("Correct", Text(item.correct or "(not recorded)"))
    table.add_row("Why", Text(item.why or "(not recorded)"))
    if item.tasks:
        tasks = Text()
        for i, t in enumerate(item.tasks):
            if i:
                tasks.append("\n")
            tasks.append(t["title"])
            tasks.append(f"  {t['id']}", style="dim")
        tasks.append("  (enter opens)", style="dim")
        table.add_row("Task", tasks)
    else:
        table.add_row("Task", Text("no task links to it (corrects: [[task]] is missing)", style="dim"))
    if item.status == "proposed":
        table.add_row("Proposed", Text("a session hook drafted it from the person's words: y confirms it "
                                       "(what was wrong, the correct behaviour, why), d dismisses it", style="dim"))
    else:
        table.add_row("Cluster", Text(cluster_text(item)))
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
        self.rules: list[dict] = []
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
            items = inbox(store, include_handled=include_handled)
            if worker.is_cancelled:
                return
            rules = [
                {"id": r.id, "title": r.title, "status": r.status, "text": r.text}
                for r in sorted(list_rules(store), key=lambda r: (r.status != "active", r.activated or "", r.id))
                if r.status in ("active", "candidate")
            ]
        if not worker.is_cancelled:
            self.post_message(InboxLoaded(request_id, items, rules, include_handled))

    def on_inbox_loaded(self, message: InboxLoaded) -> None:
        if message.request_id != self._request:
            return
        self._loaded = True
        table = self.query_one(InboxTable)
        keep_id = self.highlighted_id
        keep_row = table.cursor_row
        self.items = message.items
        self.rules = message.rules
        rows = []
        for item in self.items:
            task = item.tasks[0]["title"] if item.tasks else "—"
            if len(item.tasks) > 1:
                task += f" (+{len(item.tasks) - 1})"
            dim = "dim" if item.status in ("promoted", "dismissed") else ""
            rows.append((item.id, (
                Text(item.created or "—", style=dim),
                Text(item.status or "open", style="bold" if item.status in (None, "open") else dim),
                Text(item.title, style=dim, overflow="ellipsis", no_wrap=True),
                Text(task, style="dim", overflow="ellipsis", no_wrap=True),
                Text(cluster_label(item), style=dim, overflow="ellipsis", no_wrap=True),
            )))
        ids = [i.id for i in self.items]
        row = ids.index(keep_id) if keep_id in ids else min(max(keep_row, 0), max(len(ids) - 1, 0))
        table.set_rows(rows, row)
        self._update_title()
        if not self.items:
            self._show_empty(
                "No open corrections. New ones arrive with `brainwork capture correction`; "
                "a shows the handled ones (promoted into a rule or dismissed) too."
                if not self.include_handled
                else "The vault has no correction pages yet (`brainwork capture correction` records one)."
            )
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
        if not self._loaded:
            top.border_title = "Correction inbox"
        else:
            what = "corrections" if self.include_handled else "open"
            top.border_title = f"Correction inbox · {len(self.items)} {what} · newest first"
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
        detail.border_title = item.id
        title = Text(item.title, style="bold")
        title.append(f"   {item.status or 'open'} · {item.created or 'undated'}", style="dim")
        head.update(title)
        body.update(detail_table(item))

    # -- actions ------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        item = self.highlighted_item
        if action == "dismiss_correction":  # a proposed correction can be dismissed too
            return True if item is not None and item.status in (None, "open", "clustered", "proposed") else None
        if action == "confirm_correction":
            return True if item is not None and item.status == "proposed" else None
        if action == "link_rule":
            return True if item is not None and item.status in (None, "open", "clustered") else None
        if action == "open_task":
            return True if item is not None and item.tasks else None
        if action == "consolidate":
            return True if self.app.store.is_open else None
        return True

    def action_open_task(self) -> None:
        item = self.highlighted_item
        if item is None or not item.tasks:
            return
        self.app.open_page(item.tasks[0]["id"])

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
        if item is None or item.status != "proposed":
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
        if not self.rules:
            self.notify("There is no active or candidate rule to link to.", title="Link to rule", severity="warning")
            return
        proposed = None
        if item.cluster and item.cluster.get("action") == "evidence":
            proposed = item.cluster.get("rule")
        elif item.rules:
            proposed = item.rules[0]["id"]
        note = (
            f"Consolidation proposed {proposed}." if proposed and item.cluster and item.cluster.get("action") == "evidence"
            else "An active rule gets it as promoted_from (it becomes promoted); a candidate as evidence."
        )

        def picked(rule_id: str | None) -> None:
            if rule_id is None:
                return
            cid = item.id
            operations.run_operation(
                self.app, "link correction", lambda config, store: link_corrections(config, store, rule_id, [cid])
            )

        self.app.push_screen(
            PickRuleScreen(f"Link {item.id} to a rule", self.rules, preselect=proposed, note=note), picked
        )

    # -- consolidation progress (learning.ConsolidationPhase) ---------------------------
    def _phase_changed(self) -> None:
        self._update_title()
