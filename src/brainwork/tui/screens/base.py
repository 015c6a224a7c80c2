"""The frame every pane shares: tab bar on top, status bar and key footer at
the bottom, the pane's own widgets in between."""

from __future__ import annotations

from typing import ClassVar, Iterable

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widget import Widget
from textual.worker import Worker, get_current_worker

from brainwork.store import graph
from brainwork.tui.messages import PageLoaded

from brainwork.tui.widgets.key_footer import KeyFooter
from brainwork.tui.widgets.pane_tabs import PaneTabs
from brainwork.tui.widgets.status_bar import StatusBar
from brainwork.tui.workbench import Workbench


class PaneScreen(Screen[None]):
    """Base screen of one pane (one Textual mode).

    Subclasses set ``PANE_ID`` (the id in :data:`brainwork.tui.panes.PANES`)
    and implement :meth:`compose_body`. Worker state changes of the screen's
    workers go to the app's single handler, so failures are reported the
    same way everywhere.
    """

    PANE_ID: ClassVar[str] = ""
    #: What stays on screen while a panel is maximised (``z``): the tabs,
    #: the status bar and the keys.
    ALLOW_IN_MAXIMIZED_VIEW: ClassVar[str] = "PaneTabs, StatusBar, KeyFooter"

    app: Workbench  # type: ignore[assignment]

    def __init__(self, pane_id: str | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.pane_id = pane_id or self.PANE_ID

    def compose(self) -> ComposeResult:
        yield PaneTabs(self.pane_id)
        yield from self.compose_body()
        yield StatusBar()
        yield KeyFooter()

    def compose_body(self) -> Iterable[Widget]:
        """The pane's widgets, between the tab bar and the status bar."""
        return ()

    def on_mount(self) -> None:
        # Textual calls every class's on_mount in the MRO, and panes that
        # also call super().on_mount() would subscribe twice: each vault
        # change then rebuilt the pane twice (the graph pane's 10,000-row list
        # cost its first paint twice).
        if not getattr(self, "_vault_subscribed", False):
            self._vault_subscribed = True
            self.app.vault_changed.subscribe(self, self._vault_changed)

    def _vault_changed(self, _: object) -> None:
        self.on_vault_changed()

    def on_vault_changed(self) -> None:
        """Called after the app re-read pages and counts (start-up, after
        indexing and after operations). ``self.app.pages`` is current."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        self.app.on_worker_state_changed(event)


class PreviewReader:
    """Mixin for a pane with a page preview: :meth:`load_preview` reads the
    page in a thread worker (exclusive in :attr:`PREVIEW_GROUP`) and posts
    :class:`PageLoaded` with the request number; the pane shows the answer
    only when it carries ``_preview_request`` (a newer request makes older
    answers stale)."""

    PREVIEW_GROUP: ClassVar[str] = "preview"
    _preview_request: int = 0

    def load_preview(self, page_id: str) -> None:
        """Read ``page_id`` for the preview in a worker (nothing before the store is open)."""
        if not self.app.store.is_open:  # type: ignore[attr-defined]
            return
        self._preview_request += 1
        request_id = self._preview_request

        def fetch() -> None:
            worker = get_current_worker()
            with self.app.store.use() as store:  # type: ignore[attr-defined]
                page = graph.get_page(store, page_id)
            if not worker.is_cancelled:
                self.post_message(PageLoaded(request_id, page_id, page))  # type: ignore[attr-defined]

        self.run_worker(  # type: ignore[attr-defined]
            fetch, name="preview", group=self.PREVIEW_GROUP, thread=True, exclusive=True, exit_on_error=False
        )
