"""The workbench: ``brainwork open`` runs :class:`BrainworkApp`.

The app is the frame and the only composition root: it owns the store
(:class:`StoreHandle`, opened once, in a worker), app-wide state (page
list, counts, background work, theme), the controllers (``operations``,
``learning``) and the panes (:mod:`brainwork.tui.panes`, one Textual mode
each). No module of ``brainwork.tui`` imports this one: they see the app as
:class:`~brainwork.tui.workbench.Workbench`. Worker failures, the app's
and every pane's, are reported in one place,
:meth:`BrainworkApp.on_worker_state_changed`; the app keeps running.
Start-up order: docs/architecture.md ("The workbench").
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Callable
from functools import partial
from pathlib import Path

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.signal import Signal
from textual.worker import Worker, WorkerState, get_current_worker

from brainwork.analysis.search import PageSearch
from brainwork.config import Config
from brainwork.errors import StoreBusy, UserError
from brainwork.index.sync import sync
from brainwork.model import ParseError
from brainwork.store import graph
from brainwork.store.graph import GraphCounts, PageRow
from brainwork.tui.commands import AppCommands, PageCommands
from brainwork.tui import live_sync
from brainwork.tui.learning import EmbedderLoaded, LearningController
from brainwork.tui.messages import IndexFinished, IndexProgressed, StoreOpened, VaultLoaded
from brainwork.tui.modals.help import HelpScreen
from brainwork.tui.modals.parse_errors import ParseErrorsScreen
from brainwork.tui.operations import GROUP as OPERATION_GROUP
from brainwork.tui.operations import OperationFinished, OperationRunner, UndoState, UndoStateRead
from brainwork.tui.panes import PANES
from brainwork.service.handle import StoreHandle, StoreUnavailable
from brainwork.service.freshness import Freshness
from brainwork.service.owner import OwnerServer, Reply
from brainwork.tui.themes import DEFAULT_THEME, load_themes, theme_folders
from brainwork.tui.workbench import Pane

#: Seconds the workbench waits for ``brainwork serve`` to close the store
#: it agreed to hand over (it finishes the requests it is answering first).
YIELD_WAIT_SECONDS = 30.0

#: Progress messages from the indexer are coalesced to at most one per this
#: many seconds (the status bar need not redraw for every file).
PROGRESS_INTERVAL = 0.1


class IndexCancelled(Exception):
    """Raised inside the sync's progress callback when its worker was
    cancelled; sync writes only at its end, so stopping early writes nothing."""


class BrainworkApp(App[None]):
    """The workbench on one vault.

    Args:
        config: the vault's configuration (see :func:`brainwork.config.load_config`).
        index_on_start: sync the vault in a worker at start-up (default True).
        panes: the pane registry (default :data:`brainwork.tui.panes.PANES`).
    """

    TITLE = "brainwork"
    CSS_PATH = Path(__file__).with_name("app.tcss")
    COMMANDS = {AppCommands, PageCommands}
    # The footer shows Quit and Help first, then the pane's keys, then these
    # in this order, as far as they fit (see tui/widgets/key_footer.py).
    BINDINGS = [
        Binding("q", "quit", "Quit", tooltip="Leave the workbench"),
        Binding("question_mark", "help", "Help", tooltip="Every key binding of the app and this pane"),
        Binding("u", "undo", "Undo", tooltip="Undo the last operation"),
        Binding("z", "toggle_maximize", "Zoom", tooltip="Maximise the focused panel, or restore it"),
        Binding("ctrl+r", "reindex", "Re-index", tooltip="Sync the vault into the store now"),
        Binding("t", "change_theme", "Theme", show=False, tooltip="Pick a theme"),
        Binding("U", "redo", "Redo", show=False, tooltip="Redo the last undone operation"),
    ]  # plus one digit per pane, bound in __init__ from the registry

    #: Counts as :func:`brainwork.store.graph.counts` returns (None until read).
    counts: reactive[GraphCounts | None] = reactive(None, init=False)
    #: Background work shown in the status bar: (label, done, total) or None.
    background: reactive[tuple[str, int, int] | None] = reactive(None, init=False)
    #: Why the store cannot be used ("" when it can).
    store_error: reactive[str] = reactive("", init=False)
    #: The embedding model for the status bar: None (not loaded), or
    #: ``(text, lexical)`` — set by :attr:`learning`.
    embedder: reactive[tuple[str, bool] | None] = reactive(None, init=False)

    def __init__(self, config: Config, *, index_on_start: bool = True, panes: tuple[Pane, ...] = PANES,
                 serve: Callable[..., Reply] | None = None, warm_up: bool = False):
        super().__init__()
        self.config = config
        #: While the store is open, other brainwork processes (agents, cron)
        #: run their commands here, through the store's socket
        #: (:mod:`brainwork.service.owner`), by ``serve(config, handle,
        #: request, freshness=...)``: :func:`brainwork.cli.served.run_request`,
        #: which ``brainwork open`` passes in (the command line sits above the
        #: workbench). None: the workbench serves no one.
        self.serve = serve
        self.owner: OwnerServer | None = None
        #: Whether the store may lag the vault (served commands skip needless syncs).
        self.freshness = Freshness()
        #: Load the model and embed changed pages after the first sync
        #: (``brainwork open`` does: agents' recall then answers warm).
        self._warmed = not warm_up
        #: The parse errors the last "Parse errors" toast was about, as
        #: (path, message): every sync reports the whole set, and the toast
        #: is raised only when a file joins it (the status bar keeps the count).
        self._parse_errors_told: frozenset[tuple[str, str]] = frozenset()
        self.panes = panes
        self.index_on_start = index_on_start
        #: True once the vault has been synced in this session (or syncing is off).
        self.indexed = not index_on_start
        self.store = StoreHandle(config)
        #: Every page (as :func:`brainwork.store.graph.list_pages` returns), None until first read.
        self.pages: list[PageRow] | None = None
        self.page_search: PageSearch | None = None
        #: Published after pages and counts were re-read.
        self.vault_changed: Signal[None] = Signal(self, "vault-changed")
        #: What ``u``/``U`` would do (set by :attr:`operations`).
        self.undo_available = False
        self.redo_available = False
        self.undo_state = UndoState()
        #: Published when what ``u``/``U`` would do changed.
        self.undo_changed: Signal[None] = Signal(self, "undo-changed")
        #: Runs every vault operation, one at a time (:mod:`brainwork.tui.operations`).
        self.operations = OperationRunner(self)
        #: The embedding model and consolidation (:mod:`brainwork.tui.learning`).
        self.learning = LearningController(self, self.operations)
        #: The graph pane's page-list width in percent once set with
        #: ``<``/``>`` (kept for the session); None: the default (see
        #: :data:`brainwork.tui.screens.graph.LIST_SHARE`).
        self.graph_list_share: int | None = None
        self._pane_screens: dict[str, Screen] = {}
        self._progress_at = 0.0
        #: Follows the vault on disk once the store is open.
        self.live_sync = live_sync.LiveSync(self)
        for pane in panes:
            self.add_mode(pane.id, partial(self._make_pane, pane))
            self.bind(pane.key, f"switch_pane('{pane.id}')", description=f"Show pane {pane.title}", show=False)
        self._theme_problems = self._register_themes()

    # -- panes ----------------------------------------------------------------
    def _make_pane(self, pane: Pane) -> Screen:
        screen = pane.screen()
        self._pane_screens[pane.id] = screen
        return screen

    def pane_screen(self, pane_id: str) -> Screen | None:
        """The base screen of a pane, if it has been shown."""
        return self._pane_screens.get(pane_id)

    def pane_for_screen(self, screen: Screen) -> Pane | None:
        pane_id = getattr(screen, "pane_id", None)
        return next((p for p in self.panes if p.id == pane_id), None)

    def switch_pane(self, pane_id: str) -> None:
        """Show pane ``pane_id``."""
        self.switch_mode(pane_id)

    def action_switch_pane(self, pane_id: str) -> None:
        self.switch_pane(pane_id)

    def _graph(self):
        """Show the graph pane and return its screen."""
        self.switch_pane("graph")
        return self._pane_screens["graph"]

    def open_page(self, page_id: str) -> None:
        """Show ``page_id``'s neighbourhood in the graph pane."""
        self._graph().open_page(page_id)

    def filter_type(self, type_: str | None) -> None:
        """Filter the graph pane's list to ``type_`` (None: all, ``""``: untyped)."""
        self._graph().set_type_filter(type_)

    def toggle_hops(self) -> None:
        self._graph().action_toggle_hops()

    def _pane_with_target(self) -> Screen | None:
        """The pane in view when it names a page of its own (a
        ``target_page()`` method: the graph and findings panes), else None."""
        screen = self.screen
        if self.pane_for_screen(screen) is not None and callable(getattr(screen, "target_page", None)):
            return screen
        return None

    def current_page(self) -> str | None:
        """The page the palette's ``page: rename`` (etc.) act on: the page
        the pane in view has highlighted when it names one (the graph pane's
        list or tree, the findings pane's finding; None when it has none),
        else the graph pane's centre."""
        pane = self._pane_with_target()
        if pane is not None:
            return pane.target_page()
        screen = self._pane_screens.get("graph")
        return screen.current if screen is not None else None

    def act_on_page(self, action: str) -> None:
        """Run the page action ``action`` (``rename``, ``set_type``,
        ``merge``, ``split``, ``edit``) on :meth:`current_page`. A pane that
        named the page stays in view; otherwise the graph pane is shown, so
        the page acted on is the one on screen."""
        pane = self._pane_with_target()
        page = self.current_page()
        if page is None:
            where = self.pane_for_screen(pane).title if pane is not None else "Graph"
            self.notify(f"No page is highlighted in the {where} pane.", title="Nothing to act on")
            return
        graph_screen = self._pane_screens["graph"] if pane is not None else self._graph()
        from brainwork.tui import page_actions

        run = {
            "rename": lambda: page_actions.rename(self, page, moved=graph_screen.page_moved),
            "set_type": lambda: page_actions.set_type(self, page),
            "merge": lambda: page_actions.merge_into(self, page, moved=graph_screen.page_moved),
            "split": lambda: page_actions.split(self, page),
            "edit": lambda: page_actions.edit(self, page),
        }[action]
        run()

    # -- themes ---------------------------------------------------------------
    def _register_themes(self) -> list[str]:
        loaded = load_themes(theme_folders(self.config.user_theme_dir))
        for theme in loaded.themes.values():
            self.register_theme(theme)
        problems = list(loaded.problems)
        wanted = (
            os.environ.get("BRAINWORK_THEME")
            or self.config.extra.get("workbench", {}).get("theme")
            or DEFAULT_THEME
        )
        if wanted not in self.available_themes:
            problems.append(f"theme {wanted!r} is not known")
            wanted = DEFAULT_THEME if DEFAULT_THEME in self.available_themes else "textual-dark"
        self.theme = wanted
        return problems

    # -- start-up ---------------------------------------------------------------
    def on_mount(self) -> None:
        self.switch_mode(self.panes[0].id)
        if self._theme_problems:
            self.notify(
                "\n".join(self._theme_problems) + f"\nUsing theme {self.theme}.",
                title="Theme problems",
                severity="warning",
                timeout=10,
            )
        from brainwork.tui import git_notices

        self._git_notices = git_notices.attach(self)  # [git] commit warnings as notifications
        self._open_store()

    def on_unmount(self) -> None:
        from brainwork.tui import git_notices

        git_notices.detach(getattr(self, "_git_notices", None))
        if self.owner is not None:
            self.owner.stop()
        self.live_sync.stop()
        self.workers.cancel_all()
        self.store.close()

    @work(thread=True, group="store", exclusive=True, exit_on_error=False)
    def _open_store(self) -> None:
        from brainwork.ops.changeset import recover

        try:
            self.store.open()
        except StoreBusy:
            # ``brainwork serve`` hands the store over and takes it back once
            # the workbench closes; any other holder keeps it (reported).
            from brainwork.service import owner

            if not owner.ask_to_yield(self.config):
                raise
            deadline = time.monotonic() + YIELD_WAIT_SECONDS
            while True:
                try:
                    self.store.open()
                    break
                except StoreBusy:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
        # An operation interrupted by a crash is finished or rolled back
        # before anything reads the vault (docs/operations.md).
        with self.store.exclusive() as store:
            recovered = recover(self.config, store)
        if recovered:
            self.call_from_thread(self.notify, recovered, title="Recovered an interrupted operation", timeout=15)
        self.post_message(StoreOpened())

    def on_store_opened(self, _: StoreOpened) -> None:
        self.store_error = ""
        self.load_vault()
        self.operations.read_undo_state_later()
        self._serve_others()
        self.live_sync.start()

    # -- live sync (brainwork.tui.live_sync) ---------------------------------------
    def on_vault_files_changed(self, message: live_sync.VaultFilesChanged) -> None:
        self.live_sync.files_changed(message)

    def on_watch_failed(self, message: live_sync.WatchFailed) -> None:
        self.live_sync.watch_failed(message)

    # -- the store's owner (brainwork.service.owner) -------------------------------
    def _serve_others(self) -> None:
        if not self.serve or self.owner is not None:
            return
        server = OwnerServer(self.config, self._run_served, kind="workbench", on_reply=self._served)
        try:
            server.start()
        except UserError as exc:
            self.notify(f"{exc}; agents' commands will wait for the store", title="Not serving", severity="warning")
            return
        self.owner = server

    def _run_served(self, *args, **kwargs):
        """Run another process's command here (on a request thread)."""
        return self.serve(self.config, self.store, *args, freshness=self.freshness, **kwargs)

    def _served(self, request, reply) -> None:
        """On a request thread: a command another process ran here may have
        changed the vault or the store (a capture adopted, a rule approved)."""
        if reply.changed:
            try:
                self.call_from_thread(self._after_served_change)
            except RuntimeError:
                pass  # the app is closing

    def _after_served_change(self) -> None:
        self.load_vault()
        self.operations.read_undo_state_later()

    # -- indexing ---------------------------------------------------------------
    def action_reindex(self, quiet: bool = False, live: bool = False) -> None:
        """Sync the vault into the store in a worker (progress in the status
        bar). ``live``: asked for by the vault watcher; what the sync found
        changed is then shown as changes made on disk."""
        if not self.store.is_open:
            return
        if not live:  # a live sync shows its progress only once it takes a while
            self.background = ("indexing", 0, 0)
        self._index(quiet, live)

    @work(thread=True, group="index", exclusive=True, exit_on_error=False)
    def _index(self, quiet: bool, live: bool = False) -> None:
        worker = get_current_worker()
        started = time.monotonic()
        # Exclusive for the whole sync, as `brainwork serve` syncs: sync()
        # holds the store's writer lock from its first read to its commit, and
        # a served command holds the handle exclusively and then takes that
        # lock for its writes (adopting a capture, an approve). Taking the
        # handle only at sync's "writing" step, under the writer lock, was the
        # opposite order: a capture's live sync and an agent's next command
        # then waited for each other for ever.
        with self.store.exclusive() as store:

            def progress(done: int, total: int, phase: str) -> None:
                if worker.is_cancelled:
                    raise IndexCancelled()
                now = time.monotonic()
                if live and now - started < live_sync.SHOW_PROGRESS_AFTER:
                    return
                if now - self._progress_at >= PROGRESS_INTERVAL or done == total:
                    self._progress_at = now
                    self.post_message(IndexProgressed(done, total, phase))

            generation = self.freshness.begin()
            report = sync(self.config, store, progress)
            self.freshness.synced(generation)
        # Pages captured by agents (written without the store) join the undo
        # log once indexed, so ``u`` can take them back.
        from brainwork.ops.changeset import adopt_created

        with self.store.exclusive() as store:
            if adopt_created(self.config, store):
                self.call_from_thread(self.operations.read_undo_state_later)
        if not worker.is_cancelled:
            message = IndexFinished(report)
            message.quiet = quiet  # type: ignore[attr-defined]
            message.live = live  # type: ignore[attr-defined]
            self.post_message(message)

    def on_index_progressed(self, message: IndexProgressed) -> None:
        self.background = (f"indexing: {message.phase}", message.done, message.total)

    def on_index_finished(self, message: IndexFinished) -> None:
        report = message.report
        reload = report.wrote or self.pages is None
        # ``indexed`` turns True with the counts it goes with: the status bar
        # said "0 pages" between the end of a first index and the new counts.
        if reload:
            self._indexed_on_load = True
        else:
            first = not self.indexed
            self.indexed = True  # before background: the status bar reads it then
            if first and not self.pages:
                # An empty vault's first sync writes nothing, so no reload
                # follows; the graph pane still says "Indexing the vault…"
                # and only hears that the index is done from this.
                self.vault_changed.publish(None)
        self.background = None
        if reload:
            self.load_vault()
        if not self._warmed:
            self._warmed = True
            self.learning.warm_up()
        if getattr(message, "live", False):
            self.live_sync.sync_finished(report)
        if not getattr(message, "quiet", False):
            moved = len(report.moved)  # also in added (new path) and removed (old path)
            self.notify(
                f"{report.pages} pages: {len(report.added) - moved} added, {len(report.changed)} changed, "
                f"{len(report.removed) - moved} removed{f', {moved} moved' if moved else ''} in {report.seconds:.2f} s",
                title="Indexed",
            )
        errors = frozenset((e.path, e.message) for e in report.parse_errors)
        told, self._parse_errors_told = self._parse_errors_told, errors
        if errors - told or (errors and not getattr(message, "quiet", False)):  # ctrl+r asks for the full picture
            # Files, not errors; and most such files are indexed in part (a
            # title that is not text still gives a page), so not "could not
            # be indexed".
            n = len({e.path for e in report.parse_errors})
            self.notify(
                f"{n} file{'s' if n != 1 else ''} could not be read completely; "
                "ctrl+p → “index: parse errors” lists them.",
                title="Parse errors",
                severity="warning",
            )

    # -- pages and counts ---------------------------------------------------------
    def load_vault(self) -> None:
        """Re-read the page list and counts in a worker; panes hear of it
        through :attr:`vault_changed`."""
        self._load_vault()

    @work(thread=True, group="vault", exclusive=True, exit_on_error=False)
    def _load_vault(self) -> None:
        worker = get_current_worker()
        with self.store.use() as store:
            pages = graph.list_pages(store)
            if worker.is_cancelled:
                return
            counts = graph.counts(store)
        search = PageSearch(pages)
        if not worker.is_cancelled:
            message = VaultLoaded(pages, counts)
            message.search = search  # type: ignore[attr-defined]
            self.post_message(message)

    def on_vault_loaded(self, message: VaultLoaded) -> None:
        first = self.pages is None
        self.pages = message.pages
        self.page_search = getattr(message, "search", None) or PageSearch(message.pages)
        if getattr(self, "_indexed_on_load", False):
            self._indexed_on_load = False
            self.indexed = True
        self.counts = message.counts
        self.vault_changed.publish(None)
        if first and self.index_on_start:
            # Sync only once the stored pages are on screen: indexing
            # competes for the interpreter lock (and imports pyarrow and
            # numpy), so starting it with the store's opening, or even with
            # this list, would delay the first paint of an indexed vault
            # (~0.3 s of CPU at 10,000 pages). (A timer would let it start
            # later still, but then no worker runs in between and "the
            # workbench is idle" would no longer mean "the start-up sync is done".)
            self.call_after_refresh(self.action_reindex, quiet=True)

    def action_parse_errors(self) -> None:
        self._read_parse_errors()

    @work(thread=True, group="parse-errors", exclusive=True, exit_on_error=False)
    def _read_parse_errors(self) -> None:
        with self.store.use() as store:
            errors = graph.parse_errors(store)
        self.call_from_thread(self.push_screen, ParseErrorsScreen(errors), self._parse_error_chosen)

    def _parse_error_chosen(self, error: ParseError | None) -> None:
        """Show the page of the file ``error`` is about; a file that gave no
        page (not text at all, say) is named instead."""
        if error is None:
            return
        page = next((p for p in self.pages or () if p.path == error.path), None)
        if page is None:
            self.notify(f"{error.path} gave no page to show: {error.message}", title="Parse errors", severity="warning")
            return
        self.open_page(page.id)

    # -- errors -----------------------------------------------------------------
    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one place worker failures are reported (panes forward theirs)."""
        worker = event.worker
        if worker.group in ("index", OPERATION_GROUP) and worker.is_finished:
            self.live_sync.work_finished()
        if event.state != WorkerState.ERROR:
            return
        if worker.group == "index":
            self.background = None
        error = worker.error
        if isinstance(error, (StoreUnavailable, IndexCancelled)):
            return  # closing, or the open failure was already reported
        if isinstance(error, StoreBusy):
            self.store_error = (
                f"The vault {self.config.vault} is open in another brainwork process "
                f"(its store {self.config.store} is locked). Close that one and open this again."
            )
            self.notify(
                f"Cannot open the vault {self.config.vault}: {error}",
                title="Vault busy",
                severity="error",
                timeout=30,
            )
        elif isinstance(error, UserError):
            if worker.group == "store":
                self.store_error = f"Cannot open the store of {self.config.vault}: {error}"
            self.notify(str(error), title="Cannot do that", severity="error", timeout=15)
        else:
            self.log.error("".join(traceback.format_exception(error)) if error else "worker failed")
            self.notify(
                f"{type(error).__name__}: {error}",
                title=f"Internal error in {worker.name or worker.group}",
                severity="error",
                timeout=15,
            )

    # -- other actions ----------------------------------------------------------------
    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.screen))

    def action_toggle_maximize(self) -> None:
        """Maximise the focused panel of the pane (its tabs, status and keys
        stay), or restore it."""
        screen = self.screen
        if screen.maximized is not None:
            screen.minimize()
        elif screen.focused is not None and not screen.maximize(screen.focused):
            self.notify("This part of the pane cannot be maximised.", title="Zoom")

    def action_change_theme(self) -> None:
        self.search_themes()

    def action_undo(self) -> None:
        self.operations.undo()

    def action_redo(self) -> None:
        self.operations.redo()

    def on_operation_finished(self, message: OperationFinished) -> None:
        self.operations.finished(message)

    def on_undo_state_read(self, message: UndoStateRead) -> None:
        self.operations.set_undo_state(message.state)

    def on_embedder_loaded(self, message: EmbedderLoaded) -> None:
        self.learning.embedder_loaded(message)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "switch_pane" and isinstance(self.screen, ModalScreen):
            return False
        if action == "undo":
            return True if self.undo_available else None
        if action == "redo":
            return True if self.redo_available else None
        if action in ("reindex", "parse_errors"):
            return True if self.store.is_open else None
        if action == "help" and isinstance(self.screen, HelpScreen):
            return False
        if action == "toggle_maximize" and isinstance(self.screen, ModalScreen):
            return False
        return True
