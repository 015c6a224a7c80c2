"""The graph pane: pick a page, see its typed neighbourhood, preview pages.

Page actions (rename, set type, merge, split, edit) act on the highlighted
page through :mod:`brainwork.tui.page_actions`. Store reads run in thread
workers (groups ``neighbourhood`` and ``preview``, each exclusive) that
post :class:`NeighbourhoodLoaded` / :class:`PageLoaded` with the request
id they were given; replies to an older request are dropped. Walkthrough:
docs/architecture.md ("The workbench", "The panes").
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from textual import on, work
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.content import Content
from textual.widgets import Input, Static, Tree
from textual.worker import get_current_worker

from brainwork.ops import changeset
from brainwork.ops.operation import PASSED, Operation
from brainwork.store import graph
from brainwork.store.graph import Neighbour, PageEdge, PageRow
from brainwork.vault.dates import iso_date
from brainwork.tui import page_actions
from brainwork.tui.messages import NeighbourhoodLoaded, PageLoaded
from brainwork.tui.modals.prompts import ChoicePrompt
from brainwork.tui.screens.base import PaneScreen, PreviewReader
from brainwork.tui.widgets.neighbour_tree import NeighbourTree, NodeInfo
from brainwork.tui.widgets.cells import shown
from brainwork.tui.widgets.page_list import PageList
from brainwork.tui.widgets.page_preview import PagePreview
from brainwork.tui.widgets.panel import Panel

#: How many of the newest undo-log entries :func:`moved_to` looks through
#: for a page that is gone (a rename older than that is not followed).
MOVES_LOOKBACK = 200

#: Label of pages without a ``type`` in the type filter.
UNTYPED = ""

#: The page list's width: by default :data:`LIST_SHARE` percent of the pane
#: but never under :data:`MIN_LIST_WIDTH` cells (borders, scroll bar, a
#: leading space, the 11-cell type column and 17 cells of title: at 80
#: columns every title keeps 16 characters and its "…"); ``<``/``>`` set a
#: share of their own in :data:`LIST_SHARE_STEP` steps within
#: :data:`LIST_SHARE_RANGE` (beyond 70% the neighbourhood and the preview
#: are too narrow to read), kept for the session.
LIST_SHARE = 34
MIN_LIST_WIDTH = 32
LIST_SHARE_STEP = 5
LIST_SHARE_RANGE = (15, 70)


class LinksRead(Message):
    """The links ``page_id`` writes (``page_edges(...).out``), read for the ``g`` list."""

    def __init__(self, page_id: str, links: list[PageEdge]):
        super().__init__()
        self.page_id = page_id
        self.links = links


class PageMovedAway(Message):
    """The centre page ``old`` is gone and the undo log says it now lives
    at ``new`` (a rename, its undo or redo, or a merge into ``new``)."""

    def __init__(self, request_id: int, old: str, new: str):
        super().__init__()
        self.request_id = request_id
        self.old = old
        self.new = new


def moved_to(operations: list[Operation], page_id: str) -> str | None:
    """Where the undo log says ``page_id`` went, or None.

    ``operations`` newest first (:func:`brainwork.ops.changeset.history`).
    A done rename moves its ``page`` to its ``new_id``; an undone one moves
    ``new_id`` back to ``page`` (so an undo or a redo, by the workbench or
    an agent's command, is followed both ways); a merge (never undone)
    moves its ``source`` into its ``target``. Chains are followed (a page
    renamed twice), each id once."""
    seen, current = {page_id}, page_id
    while True:
        for op in operations:
            d = op.details or {}
            nxt = None
            if op.kind == "rename":
                if op.state == "done" and d.get("page") == current:
                    nxt = d.get("new_id")
                elif op.state == "undone" and d.get("new_id") == current:
                    nxt = d.get("page")
            elif op.kind == "merge" and op.state in ("done", PASSED) and d.get("source") == current:
                nxt = d.get("target")
            if nxt and nxt not in seen:
                seen.add(nxt)
                current = nxt
                break
        else:
            return current if current != page_id else None


def start_page(pages: list[PageRow]) -> str | None:
    """The page shown first: the newest task by a valid ``created`` date
    (tasks without one come after every dated task), else the first page."""
    tasks = [p for p in pages if p.type == "task"]
    if tasks:
        def newest(p: PageRow) -> tuple[bool, str, str]:
            day = iso_date(p.created)
            return (day is not None, day or "", p.id)

        return max(tasks, key=newest).id
    return pages[0].id if pages else None


def neighbourhood_title(rows: list[Neighbour], hops: int, width: int | None = None) -> str:
    """The centre panel's title: hops and how many pages the tree shows
    around the centre: "16 linked" at 1 hop, "56 pages" (both hops) at 2
    (the 2-hop view said "16 linked", the 1-hop figure, while showing dozens
    more pages).

    ``width`` is the panel's width in cells: the title drops its words from
    the front until it fits inside the border (Textual draws ``╭─ `` before
    it and `` ─╮`` after: 6 cells), so at 80 columns the count stays
    readable instead of Textual cutting the end ("Neighbourhood · 1…")."""
    pages = {r.id for r in rows if r.hop <= hops}
    if hops > 1:
        forms = [f"{hops} hops · {len(pages)} page{'s' if len(pages) != 1 else ''}"]
    else:
        forms = [f"1 hop · {len(pages)} linked"]
    forms = [f"Neighbourhood · {forms[0]}", forms[0], forms[0].split(" · ", 1)[1]]
    if width is None:
        return forms[0]
    return next((f for f in forms if len(f) + 6 <= width), forms[-1])


def filter_pages(pages: list[PageRow], type_: str | None, text: str) -> list[PageRow]:
    """Pages of type ``type_`` (None: any; ``""``: untyped) whose title, id
    or an alias contains ``text`` (case-insensitive)."""
    out = pages
    if type_ is not None:
        out = [p for p in out if (p.type or UNTYPED) == type_]
    needle = text.strip().casefold()
    if needle:
        out = [
            p
            for p in out
            if needle in (p.title or "").casefold()
            or needle in p.id.casefold()
            or any(needle in a.casefold() for a in p.aliases or ())
        ]
    return out


class GraphScreen(PreviewReader, PaneScreen):
    """The graph neighbourhood browser (pane 1)."""

    PANE_ID = "graph"
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    AUTO_FOCUS = "#page-list"

    # In footer order: the footer shows what fits, from the first.
    BINDINGS = [
        Binding("r", "rename", "Rename", tooltip="Rename the highlighted page; links follow; undoable"),
        Binding("e", "edit", "Edit", tooltip="Open the highlighted page in $EDITOR, then re-index it"),
        Binding("slash", "filter", "Filter", tooltip="Filter the page list by text"),
        Binding("g", "links", "Links", tooltip="The links the previewed page writes; enter goes there"),
        Binding("h", "toggle_hops", "Hops 1/2", tooltip="Show 1 or 2 hops around the page"),
        Binding("backspace,left_square_bracket", "back", "Back", tooltip="Previous page in the history"),
        Binding("right_square_bracket", "forward", "Forward", tooltip="Next page in the history"),
        Binding("f", "cycle_type(1)", "Type filter", tooltip="Show only pages of the next type"),
        Binding("s", "set_type", "Set type", tooltip="Set the highlighted page's type; undoable"),
        Binding("m", "merge", "Merge into…", tooltip="Merge the highlighted page into another (asks; cannot be undone)"),
        Binding("S", "split", "Split", tooltip="Split the highlighted page at its ## headings; undoable"),
        Binding("less_than_sign", "resize_list(-1)", "Narrower list", show=False),
        Binding("greater_than_sign", "resize_list(1)", "Wider list", show=False),
        Binding("F", "cycle_type(-1)", "Type filter, backwards", show=False),
        Binding("alt+left", "back", "Back", show=False),
        Binding("alt+right", "forward", "Forward", show=False),
        Binding("escape", "clear_filter", "Clear the text filter", show=False),
    ]

    hops: reactive[int] = reactive(1, init=False)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.type_filter: str | None = None
        self.text_filter = ""
        self.history: list[str] = []
        self.position = -1
        self._nb_request = 0
        self._preview_request = 0
        self._last: NeighbourhoodLoaded | None = None

    # -- layout ---------------------------------------------------------------
    def compose_body(self) -> Iterable[Widget]:
        with Vertical(id="graph-body"):
            with Panel(id="graph-left"):
                yield Input(placeholder="filter pages…", id="page-filter")
                yield PageList(id="page-list")
            with Panel(id="graph-centre"):
                yield Static("", id="centre-message")
                yield NeighbourTree(id="neighbours")
            yield PagePreview(id="preview")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#graph-left").border_title = "Pages"
        self.query_one("#graph-centre").border_title = "Neighbourhood"
        self.query_one("#preview").border_title = "Preview"
        self._apply_list_share()
        self.watch(self.app, "store_error", self._store_error_changed)
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._redraw())
        if self.app.pages is None:
            self.show_message("Reading the vault…")
        else:
            self.on_vault_changed()
        self.query_one(PageList).focus()

    # -- vault data -----------------------------------------------------------
    def on_vault_changed(self) -> None:
        pages = self.app.pages or []
        self._refresh_list()
        if not pages:
            self.show_message(
                "The vault has no pages yet: add Markdown files and press ctrl+r."
                if self.app.indexed
                else "Indexing the vault…"
            )
            return
        if self.current is None:
            first = start_page(pages)
            if first is not None:
                self.navigate(first)
        else:
            self.load_neighbourhood()

    def _store_error_changed(self, error: str) -> None:
        if error:
            self.show_message(error)

    def show_message(self, text: str) -> None:
        """Show ``text`` in the centre instead of a neighbourhood (until the
        next neighbourhood arrives)."""
        message = self.query_one("#centre-message", Static)
        message.update(text)
        message.display = True
        self.query_one(NeighbourTree).display = False

    @property
    def current(self) -> str | None:
        """Id of the page at the centre, or None."""
        return self.history[self.position] if 0 <= self.position < len(self.history) else None

    # -- the page list ----------------------------------------------------------
    def _types(self) -> list[str | None]:
        counts = self.app.counts.types if self.app.counts else {}
        present = [t for t in self.app.config.page_types if counts.get(t)]
        present += sorted(t for t in counts if t and t not in present)
        if counts.get(UNTYPED):
            present.append(UNTYPED)
        return [None, *present]

    def _refresh_list(self) -> None:
        pages = self.app.pages or []
        visible = filter_pages(pages, self.type_filter, self.text_filter)
        plist = self.query_one(PageList)
        plist.show_pages(visible, keep=plist.highlighted_page)
        kind = "all types" if self.type_filter is None else (self.type_filter or "untyped")
        text = f" · “{self.text_filter}”" if self.text_filter else ""
        left = self.query_one("#graph-left")
        left.border_title = f"Pages · {kind}{text}"
        left.border_subtitle = f"{len(visible)} of {len(pages)}"

    def set_type_filter(self, type_: str | None) -> None:
        """Show only pages of ``type_`` (None: all; ``""``: untyped)."""
        self.type_filter = type_
        self._refresh_list()

    def action_cycle_type(self, step: int) -> None:
        types = self._types()
        i = types.index(self.type_filter) if self.type_filter in types else 0
        self.set_type_filter(types[(i + step) % len(types)])

    def action_filter(self) -> None:
        box = self.query_one("#page-filter", Input)
        box.display = True
        box.focus()

    def action_clear_filter(self) -> None:
        box = self.query_one("#page-filter", Input)
        if not box.display and not self.text_filter:
            return
        box.value = ""
        box.display = False
        self.text_filter = ""
        self._refresh_list()
        self.query_one(PageList).focus()

    @on(Input.Changed, "#page-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.text_filter = event.value
        self._refresh_list()

    @on(Input.Submitted, "#page-filter")
    def _filter_submitted(self) -> None:
        """Enter in the filter centres the graph on the highlighted match
        (the page the preview already shows) and hands the keys to the
        list, where the other matches are a j/k away."""
        if not self.text_filter:
            self.query_one("#page-filter", Input).display = False
        plist = self.query_one(PageList)
        plist.focus()
        if plist.highlighted_page is not None:
            self.navigate(plist.highlighted_page)

    @on(PageList.Highlighted, "#page-list")
    def _list_highlighted(self, event: PageList.Highlighted) -> None:
        self.load_preview(event.page_id)

    @on(PageList.Selected, "#page-list")
    def _list_selected(self, event: PageList.Selected) -> None:
        self.open_page(event.page_id)

    # -- navigation -----------------------------------------------------------
    def open_page(self, page_id: str) -> None:
        """Centre the graph on ``page_id`` (recorded in the history) and focus
        the neighbourhood."""
        self.navigate(page_id)
        self.query_one(NeighbourTree).focus()

    def navigate(self, page_id: str, record: bool = True) -> None:
        """Centre on ``page_id``; ``record`` adds it to the history (dropping
        any forward entries)."""
        if record and page_id != self.current:
            del self.history[self.position + 1 :]
            self.history.append(page_id)
            self.position = len(self.history) - 1
        self.load_neighbourhood()
        self.refresh_bindings()

    def action_back(self) -> None:
        if self.position > 0:
            self.position -= 1
            self.navigate(self.history[self.position], record=False)

    def action_forward(self) -> None:
        if self.position < len(self.history) - 1:
            self.position += 1
            self.navigate(self.history[self.position], record=False)

    def action_toggle_hops(self) -> None:
        self.hops = 2 if self.hops == 1 else 1

    def watch_hops(self) -> None:
        self.load_neighbourhood()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "back":
            return True if self.position > 0 else None
        if action == "forward":
            return True if self.position < len(self.history) - 1 else None
        if action in ("toggle_hops",):
            return True if self.current is not None else None
        if action in ("rename", "set_type", "merge", "split", "edit"):
            return True if self.app.store.is_open and self.target_page() is not None else None
        return True

    @on(Tree.NodeHighlighted, "#neighbours")
    def _tree_highlighted(self, event: Tree.NodeHighlighted[NodeInfo]) -> None:
        info = event.node.data
        self.refresh_bindings()  # the page keys act on the highlighted node
        if info is None or info.page_id is None:
            return
        if info.kind == "centre" and self._last is not None and self._last.page is not None:
            self._preview_request += 1  # the centre page is at hand: no store read
            self.query_one(PagePreview).show_page(self._last.page)
        elif info.dead:
            self._preview_request += 1
            self.query_one(PagePreview).show_page(None, info.page_id)
        else:
            self.load_preview(info.page_id)

    @on(Tree.NodeSelected, "#neighbours")
    def _tree_selected(self, event: Tree.NodeSelected[NodeInfo]) -> None:
        info = event.node.data
        if info is None:
            return
        if info.kind == "group":
            event.node.toggle()
        elif info.kind == "page" and info.dead:
            self.notify(
                f"{info.page_id} is a dead link: no page by that name exists.", title="Dead link", severity="warning"
            )
        elif info.kind == "page" and info.page_id:
            self.navigate(info.page_id)

    # -- acting on the page in view ------------------------------------------------
    def target_page(self) -> str | None:
        """The page the keys act on: the tree's highlighted page (its centre
        or a live neighbour) when the tree has focus, else the page list's
        highlighted page, else the previewed page; None for a dead link."""
        focused = self.focused
        if isinstance(focused, NeighbourTree):
            info = focused.highlighted_info
            if info is not None and info.kind in ("centre", "page") and info.page_id and not info.dead:
                return info.page_id
            return None if info is not None and info.dead else self.current
        if isinstance(focused, PageList):
            return focused.highlighted_page
        return self.query_one(PagePreview).page_id or self.current

    def page_moved(self, old: str, new: str) -> None:
        """``old`` now lives at ``new`` (renamed or merged away): the history
        and the centre follow it."""
        self.history = [new if h == old else h for h in self.history]
        if self.current == new:
            self.load_neighbourhood()

    def _act(self, action) -> None:
        page = self.target_page()
        if page is None:
            self.notify("Highlight a page first (a dead link is not a page).", title="Nothing to act on")
            return
        action(page)

    def action_rename(self) -> None:
        self._act(lambda page: page_actions.rename(self.app, page, moved=self.page_moved))

    def action_set_type(self) -> None:
        self._act(lambda page: page_actions.set_type(self.app, page))

    def action_merge(self) -> None:
        self._act(lambda page: page_actions.merge_into(self.app, page, moved=self.page_moved))

    def action_split(self) -> None:
        self._act(lambda page: page_actions.split(self.app, page))

    def action_edit(self) -> None:
        self._act(lambda page: page_actions.edit(self.app, page))

    # -- following links ---------------------------------------------------------------
    def action_links(self) -> None:
        page = self.query_one(PagePreview).page_id
        if page is None or not self.app.store.is_open:
            return
        self._read_links(page)

    @work(thread=True, group="links", exclusive=True, exit_on_error=False)
    def _read_links(self, page_id: str) -> None:
        with self.app.store.use() as store:
            edges = graph.page_edges(store, page_id)
        self.post_message(LinksRead(page_id, edges.out))

    def on_links_read(self, message: LinksRead) -> None:
        links = sorted(message.links, key=lambda e: (e.place != "body", e.line))
        if not links:
            self.notify(f"{message.page_id} writes no links.", title="Links")
            return
        choices = []
        for i, e in enumerate(links):
            where = f"line {e.line}" if e.place == "body" else f"{e.edge}: (line {e.line})"
            if e.dead:
                label = Content.assemble(("✗ " + shown(e.target), "$error"), ("  dead link · " + where, "$text-muted"))
            else:
                label = Content.assemble(shown(e.title or e.other), (f"  {e.other} · {where}", "$text-muted"))
            choices.append((i, label, f"{e.title or ''} {e.other} {e.target}"))

        def chosen(index: int | None) -> None:
            if index is None:
                return
            edge = links[index]
            if edge.dead:
                self.notify(f"{edge.target} is a dead link: no page by that name exists.", title="Dead link",
                            severity="warning")
            else:
                self.open_page(edge.other)

        self.app.push_screen(
            ChoicePrompt(f"Links on {message.page_id}", choices,
                         note="In the order written (body, then frontmatter); enter goes to the page."),
            chosen,
        )

    @on(PagePreview.LinkFollowed)
    def _link_followed(self, event: PagePreview.LinkFollowed) -> None:
        self._follow(event.page_id, event.target)

    @work(thread=True, group="links", exclusive=True, exit_on_error=False)
    def _follow(self, page_id: str, target: str) -> None:
        with self.app.store.use() as store:
            edges = graph.page_edges(store, page_id)
        edge = next((e for e in edges.out if e.target == target), None)
        if edge is None or edge.dead:
            self.app.call_from_thread(
                self.notify, f"{target} is a dead link: no page by that name exists.", title="Dead link",
                severity="warning",
            )
        else:
            self.app.call_from_thread(self.open_page, edge.other)

    # -- the list's width --------------------------------------------------------------
    def action_resize_list(self, step: int) -> None:
        low, high = LIST_SHARE_RANGE
        share = self.app.graph_list_share
        if share is None:  # from the default: start at the width shown now
            body = self.query_one("#graph-body").size.width or 1
            share = round(100 * self.query_one("#graph-left").outer_size.width / body / LIST_SHARE_STEP) * LIST_SHARE_STEP
        self.app.graph_list_share = max(low, min(high, share + step * LIST_SHARE_STEP))
        self._apply_list_share()
        self.call_after_refresh(self._title_centre)

    def watch_maximized(self, maximized: Widget | None) -> None:
        # The list's width is an inline style (which outranks any stylesheet
        # rule): maximised, it would keep its share of the pane beside the
        # maximise background instead of the whole width.
        self._apply_list_share()
        self.call_after_refresh(self._title_centre)

    def _apply_list_share(self) -> None:
        left = self.query_one("#graph-left")
        styles = left.styles
        if self.maximized is left:
            styles.width, styles.min_width = "1fr", 0
            return
        share = self.app.graph_list_share
        styles.width = f"{LIST_SHARE if share is None else share}%"
        styles.min_width = MIN_LIST_WIDTH if share is None else 0  # 0, not None: None would fall back to the .tcss minimum

    # -- store reads ------------------------------------------------------------
    def load_neighbourhood(self) -> None:
        """Read the current page's neighbourhood in a worker."""
        if self.current is None or not self.app.store.is_open:
            return
        self._nb_request += 1
        centre = self.query_one("#graph-centre")
        centre.border_title = f"Neighbourhood · {self.hops} hop{'s' if self.hops > 1 else ''}"
        centre.border_subtitle = f"history {self.position + 1}/{len(self.history)}"
        self._fetch_neighbourhood(self._nb_request, self.current, self.hops)

    @work(thread=True, group="neighbourhood", exclusive=True, exit_on_error=False)
    def _fetch_neighbourhood(self, request_id: int, page_id: str, hops: int) -> None:
        worker = get_current_worker()
        with self.app.store.use() as store:
            page = graph.get_page(store, page_id)
            if worker.is_cancelled:
                return
            if page is None:
                new = moved_to(changeset.history(store, MOVES_LOOKBACK), page_id)
                if new is not None and graph.get_page(store, new, errors=False) is not None:
                    self.post_message(PageMovedAway(request_id, page_id, new))
                    return
            rows = graph.neighbourhood(store, page_id, hops) if page is not None else []
        if not worker.is_cancelled:
            self.post_message(NeighbourhoodLoaded(request_id, page_id, page, rows, hops))

    def on_page_moved_away(self, message: PageMovedAway) -> None:
        if message.request_id != self._nb_request:
            return
        self.page_moved(message.old, message.new)
        self.notify(f"{message.old} is now {message.new}; the view followed it.", title="Page moved", timeout=6)

    def on_neighbourhood_loaded(self, message: NeighbourhoodLoaded) -> None:
        if message.request_id != self._nb_request:
            return  # the user has moved on
        self._last = message
        self._redraw()
        if message.page is not None:
            self._preview_request += 1
            self.query_one(PagePreview).show_page(message.page)
            self.query_one(PageList).move_to(message.page_id)

    def _redraw(self) -> None:
        message = self._last
        if message is None:
            return
        tree = self.query_one(NeighbourTree)
        if message.page is None:
            self.show_message(f"{message.page_id} no longer exists (renamed or deleted?); press backspace to go back.")
            return
        self.query_one("#centre-message").display = False
        tree.display = True
        keep = tree.highlighted_info
        tree.show_neighbourhood(message.page, message.rows, message.hops)
        if keep is not None and keep.kind == "page" and keep.page_id and tree.centre_id == message.page_id:
            tree.select_page(keep.page_id)
        self._title_centre()

    def _title_centre(self) -> None:
        """Title the centre panel for its current width (see :func:`neighbourhood_title`)."""
        message = self._last
        if message is None or message.page is None:
            return
        centre = self.query_one("#graph-centre")
        centre.border_title = neighbourhood_title(message.rows, message.hops, centre.size.width or None)

    def on_resize(self, _event) -> None:
        self.call_after_refresh(self._title_centre)

    def on_page_loaded(self, message: PageLoaded) -> None:
        if message.request_id == self._preview_request:
            self.query_one(PagePreview).show_page(message.page, message.page_id)
