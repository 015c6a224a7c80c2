"""The review queue (pane 6): what ``brainwork dream`` proposes, one key
to accept or decline each.

The screen renders :func:`brainwork.service.views.dream_view` (reads in a
thread worker, group ``dream``). Accepting is one vault operation (undoable
but for a merge, which asks first, Cancel the default); a decision shows at
once and the re-read after the operation reconciles. A proposal the vault
already has (retitled or retired by other hands meanwhile) is marked
accepted when accepting it fails, with nothing written. Walkthrough:
docs/learning-loop.md ("Dream: a nightly review queue").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

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

from brainwork.service.views import DreamView, dream_decided, dream_detail, dream_view
from brainwork.tui.learning import ReloadWhenShown
from brainwork.tui.modals.confirm import ConfirmScreen
from brainwork.tui.screens.base import PaneScreen
from brainwork.tui.widgets.fitted_table import ColumnSpec, FittedTable


def gathered_text(found: dict[str, int], pending: int) -> str:
    """The toast after a dream pass: ``found`` proposals per kind (zeros
    left out), ``pending`` the review queue's length after it, e.g.
    "Dream pass: 1 retitle, 2 page merges (3 pending)."."""
    from brainwork.learn.dream import found_text

    return f"Dream pass: {found_text(found) or 'nothing'} ({pending} pending)."


class DreamLoaded(Message):
    """The review queue was read: ``view`` (:class:`~brainwork.service.views.DreamView`)."""

    def __init__(self, request_id: int, view: DreamView):
        super().__init__()
        self.request_id = request_id
        self.view = view


class ProposalDecided(Message):
    """Proposal ``proposal_id`` was ``state`` (accepted, declined) by this
    pane; the pane shows it before the re-read."""

    def __init__(self, proposal_id: int, state: str):
        super().__init__()
        self.proposal_id = proposal_id
        self.state = state


COLUMNS = (
    ColumnSpec("id", "#", width=4),
    ColumnSpec("kind", "kind", width=15),
    ColumnSpec("state", "state", width=8),
    ColumnSpec("summary", "proposal", weight=1, minimum=20),
)


class DreamTable(FittedTable):
    """The proposals (row keys are proposal ids as text)."""

    HELP_TITLE = "proposal list"


def detail_table(proposal: Any) -> Table:
    d = dream_detail(proposal)
    table = Table.grid(padding=(0, 2))
    table.add_column(width=9, no_wrap=True, style="bold")
    table.add_column()
    table.add_row("Reason", Text(d.reason))
    table.add_row("Accepting", Text(d.does, style="" if d.reversible else "bold red"))
    for label, value in d.evidence:
        table.add_row(label.capitalize()[:9], Text(value, style="dim"))
    if d.decided:
        state = d.state + (f" · undo-log #{d.operation}" if d.operation else "")
        table.add_row("Decided", Text(f"{state} · {d.decided}", style="dim"))
    return table


def _page_of(proposal: Any) -> str | None:
    p = proposal.payload or {}
    for key in ("page", "source", "rule", "target"):
        if isinstance(p.get(key), str):
            return p[key]
    return None


def already_in_vault(store: Any, proposal: Any) -> str | None:
    """What makes ``proposal`` moot, when the vault already has what it
    asks for (the page was retitled or the rule retired by other hands,
    e.g. the command line), else None. Read after a failed accept, whose
    own sync brought the store up to the vault."""
    from brainwork.errors import PageNotFound
    from brainwork.store import graph

    p = proposal.payload or {}

    def stored(*names: Any):
        for name in names:
            if not isinstance(name, str):
                continue
            try:
                page = graph.get_page(store, graph.find_page(store, name), errors=False)
            except PageNotFound:
                continue
            if page is not None:
                return page
        return None

    if proposal.kind == "retitle":
        page = stored(p.get("page"), p.get("new_title"))
        if page is not None and page.title == p.get("new_title"):
            return f"{page.id} already has the title {page.title!r}"
    elif proposal.kind == "retire-rule":
        page = stored(p.get("rule"))
        if page is not None and page.status == "retired":
            return f"{page.id} is retired already"
    return None


@dataclass(frozen=True)
class AlreadyDone:
    """The answer of an accept whose proposal the vault already had:
    ``why`` (:func:`already_in_vault`); no operation was run."""

    why: str
    operation: None = None


class DreamScreen(ReloadWhenShown, PaneScreen):
    """The review queue of ``brainwork dream`` (pane 6)."""

    PANE_ID = "dream"
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    AUTO_FOCUS = "#dream-table"

    BINDINGS = [
        Binding("y", "accept", "Accept", tooltip="Carry out the proposal as one operation (u undoes; a merge asks first)"),
        Binding("n", "decline", "Decline", tooltip="Drop the proposal; it is not raised again"),
        Binding("g", "gather", "Dream now", show=False, tooltip="Run a dream pass: gather proposals (the vault is not touched)"),
        Binding("a", "toggle_decided", "Pending/all", show=False, tooltip="Show decided proposals too, or only pending ones"),
        Binding("o", "open_page", "Open page", show=False, tooltip="Show the proposal's page in the graph pane (also enter)"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.view: DreamView | None = None
        self.include_decided = False
        self._request = 0

    def compose_body(self) -> Iterable[Widget]:
        with Vertical(id="dream-body"):
            with Vertical(id="dream-top"):
                yield DreamTable(COLUMNS, id="dream-table")
                yield Static("", id="dream-empty")
            with VerticalScroll(id="dream-detail"):
                yield Static("", id="dream-detail-head")
                yield Static("", id="dream-detail-body")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#dream-top").border_title = "Review queue"
        self.query_one("#dream-top").border_subtitle = "y accept · n decline · g dream now · a pending/all"
        self.query_one("#dream-detail").border_title = "Proposal"
        self._show_empty("Reading the review queue…")
        self.watch(self.app, "store_error", lambda error: self._show_empty(error) if error else None)
        self.load()

    # -- reading ----------------------------------------------------------------------
    def load(self) -> None:
        if not self.app.store.is_open:
            return
        self._request += 1
        self._read(self._request, self.include_decided)

    @work(thread=True, group="dream", exclusive=True, exit_on_error=False)
    def _read(self, request_id: int, include_decided: bool) -> None:
        worker = get_current_worker()
        with self.app.store.use() as store:
            view = dream_view(store, include_decided=include_decided)
        if not worker.is_cancelled:
            self.post_message(DreamLoaded(request_id, view))

    def on_dream_loaded(self, message: DreamLoaded) -> None:
        if message.request_id == self._request:
            self._show_view(message.view)

    def _show_view(self, view: DreamView) -> None:
        table = self.query_one(DreamTable)
        keep = self.highlighted
        keep_row = table.cursor_row
        self.view = view
        rows = []
        for r in view.rows:
            dim = "" if r.waiting else "dim"
            rows.append((str(r.id), (
                Text(str(r.id), style=dim),
                Text(r.kind, style=dim),
                Text(r.state, style="bold" if r.waiting else dim),
                Text(r.summary, style=dim, overflow="ellipsis", no_wrap=True),
            )))
        ids = [p.id for p in view.proposals]
        row = ids.index(keep.id) if keep is not None and keep.id in ids else min(max(keep_row, 0), max(len(ids) - 1, 0))
        table.set_rows(rows, row)
        self.query_one("#dream-top").border_title = view.title
        if not view.rows:
            self._show_empty(view.empty_text)
            self._show(None)
        else:
            self.query_one("#dream-empty").display = False
            table.display = True
            if self.focused is None:
                table.focus()
            self._show(view.proposals[row])
        self.refresh_bindings()

    def _show_empty(self, text: str) -> None:
        empty = self.query_one("#dream-empty", Static)
        empty.update(text)
        empty.display = True
        self.query_one(DreamTable).display = False

    # -- the highlighted proposal ------------------------------------------------------
    @property
    def highlighted(self) -> Any | None:
        try:
            table = self.query_one(DreamTable)
        except NoMatches:
            return None
        if self.view is None or not self.view.proposals or not table.display:
            return None
        row = table.cursor_row
        return self.view.proposals[row] if 0 <= row < len(self.view.proposals) else None

    @on(DataTable.RowHighlighted, "#dream-table")
    def _row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show(self.highlighted)
        self.refresh_bindings()

    @on(DataTable.RowSelected, "#dream-table")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_open_page()

    def _show(self, proposal: Any | None) -> None:
        head = self.query_one("#dream-detail-head", Static)
        body = self.query_one("#dream-detail-body", Static)
        detail = self.query_one("#dream-detail")
        if proposal is None:
            detail.border_title = "Proposal"
            head.update("")
            body.update("")
            return
        detail.border_title = f"#{proposal.id} · {proposal.kind}"
        title = Text(proposal.kind, style="bold")
        title.append(f"   {proposal.state} · proposed {proposal.created[:10]}", style="dim")
        head.update(title)
        body.update(detail_table(proposal))

    # -- actions ----------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        p = self.highlighted
        if action in ("accept", "decline"):
            return True if p is not None and p.state == "pending" else None
        if action == "open_page":
            return True if p is not None and _page_of(p) else None
        if action == "gather":
            return True if self.app.store.is_open else None
        return True

    def _decided(self, proposal_id: int, state: str) -> None:
        self.post_message(ProposalDecided(proposal_id, state))

    def on_proposal_decided(self, message: ProposalDecided) -> None:
        if self.view is not None:
            self._request += 1  # a read begun before the decision must not land over it
            self._show_view(dream_decided(self.view, message.proposal_id, message.state))

    def action_accept(self) -> None:
        p = self.highlighted
        if p is None or p.state != "pending":
            return
        pid = p.id

        def accept_or_settle(config, store):
            from brainwork.errors import UserError
            from brainwork.learn.dream import accept

            try:
                return accept(config, store, pid, yes=True)
            except UserError:
                why = already_in_vault(store, p)
                if why is None:
                    raise
            # Pending for ever otherwise: accepting it again can only fail.
            # Accepted, since the vault holds what it proposed.
            from datetime import datetime, timezone

            from brainwork.store import review

            review.decide(store, pid, "accepted", datetime.now(timezone.utc).replace(microsecond=0).isoformat())
            return AlreadyDone(why)

        def said(done) -> str:
            if isinstance(done, AlreadyDone):
                return f"#{pid} was already done: {done.why}. Marked accepted; nothing was written."
            return f"Accepted #{pid}: {done.message}" + ("  (u undoes)" if done.operation else "")

        def run() -> None:
            self.app.operations.run(
                "accept proposal", accept_or_settle, message=said,
                done=lambda done: self._decided(pid, "accepted"),
            )

        if p.kind == "candidate-rules":
            # Consolidation embeds: the model loads first, outside the store's
            # exclusive hold.
            self.app.learning.ensure_embedder(then=run)
            return
        if p.reversible:
            run()
            return
        self.app.push_screen(
            ConfirmScreen(
                f"Accept #{pid}: {p.summary}",
                "This merges pages, which cannot be undone (u will not bring them back). "
                "Cancel keeps both pages.",
                confirm="Merge",
            ),
            lambda yes: run() if yes else None,
        )

    def action_decline(self) -> None:
        p = self.highlighted
        if p is None or p.state != "pending":
            return
        pid = p.id

        def decline(config, store):
            from brainwork.learn.dream import decline as do_decline

            return do_decline(store, pid)

        self.app.operations.run(
            "decline proposal", decline,
            message=lambda done: f"Declined #{pid}: it is not raised again.",
            done=lambda done: self._decided(pid, "declined"), reload=False,
        )

    def action_gather(self) -> None:
        def gather(config, store):
            from brainwork.learn.dream import dream

            return dream(config, store)

        def said(report) -> str:
            return gathered_text(report.found, len(report.proposals))

        # The pass ranks rules by meaning: the model loads first, outside the
        # store's exclusive hold.
        self.app.learning.ensure_embedder(
            then=lambda: self.app.operations.run(
                "dream", gather, message=said, done=lambda report: self.load(), reload=False
            ),
        )

    def action_toggle_decided(self) -> None:
        self.include_decided = not self.include_decided
        self.load()

    def action_open_page(self) -> None:
        p = self.highlighted
        page = _page_of(p) if p is not None else None
        if page:
            self.app.open_page(page)
