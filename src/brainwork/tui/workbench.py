"""The app as its panes, palette, page actions and live sync see it.

:class:`Workbench` is a protocol that :class:`brainwork.tui.app.BrainworkApp`
satisfies, so those parts use the app without importing ``tui/app.py``
(which imports them): the modules of ``brainwork.tui`` import each other
one way only. :class:`Pane` lives here for the same reason.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Callable, Protocol

from textual.screen import Screen
from textual.signal import Signal
from textual.theme import Theme
from textual.worker import Worker

from brainwork.analysis.search import PageSearch
from brainwork.service.freshness import Freshness
from brainwork.store.graph import GraphCounts, PageRow
from brainwork.tui.learning import LearningController, LearningHost
from brainwork.tui.operations import OperationRunner


@dataclass(frozen=True)
class Pane:
    """One pane: ``key`` (a digit 1-9) shows it, ``id`` is its mode name,
    ``title`` its tab label, ``screen`` builds its base screen."""

    key: str
    id: str
    title: str
    screen: Callable[[], Screen]


class Workbench(LearningHost, Protocol):
    """The workbench's state, controllers and navigation (plus the Textual
    ``App`` members its parts call)."""

    #: Runs every vault operation (:mod:`brainwork.tui.operations`).
    operations: OperationRunner
    #: The embedding model and consolidation (:mod:`brainwork.tui.learning`).
    learning: LearningController
    panes: tuple[Pane, ...]
    #: Every page, None until first read; published through ``vault_changed``.
    pages: list[PageRow] | None
    page_search: PageSearch | None
    counts: GraphCounts | None
    store_error: str
    indexed: bool
    index_on_start: bool
    vault_changed: Signal[None]
    graph_list_share: int | None
    freshness: Freshness
    theme: str

    def open_page(self, page_id: str) -> None: ...

    def pane_screen(self, pane_id: str) -> Screen | None: ...

    def filter_type(self, type_: str | None) -> None: ...

    def current_page(self) -> str | None: ...

    def act_on_page(self, action: str) -> None: ...

    def action_reindex(self, quiet: bool = False, live: bool = False) -> None: ...

    def action_parse_errors(self) -> None: ...

    def action_help(self) -> None: ...

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None: ...

    # -- Textual's App -------------------------------------------------------------
    @property
    def screen(self) -> Screen[object]: ...

    @property
    def available_themes(self) -> dict[str, Theme]: ...

    def push_screen(self, screen: Screen[Any] | str, callback: Callable[[Any], Any] | None = ...,
                    wait_for_dismiss: bool = ...) -> Any: ...

    def suspend(self) -> AbstractContextManager[None]: ...

    async def run_action(self, action: str | Any, default_namespace: Any = ...) -> bool: ...

    def exit(self, result: Any = ..., return_code: int = ..., message: Any = ...) -> None: ...
