"""The pane registry: which panes the workbench has, in tab order.

Each pane is a Textual *mode*, so it keeps its own screen stack (a modal
opened in one pane stays with it). Pane keys are the digits 1-9 and ids are
unique (checked at import). Panes but the first are imported when first
shown. How to add a pane: docs/architecture.md ("The workbench").
"""

from __future__ import annotations

from functools import partial
from importlib import import_module
from typing import Callable

from textual.screen import Screen

from brainwork.tui.screens.graph import GraphScreen
from brainwork.tui.screens.placeholder import PlaceholderScreen
from brainwork.tui.workbench import Pane

__all__ = ["PANES", "PANES_BY_ID", "Pane"]


def _later(module: str, name: str) -> Callable[[], Screen]:
    """A factory of ``brainwork.tui.screens.<module>.<name>`` that imports
    the module when the pane is first shown. The graph pane is shown first;
    importing every other pane (the learning loop, consolidation, the effect
    chart's plotting library, merge and relink) before the first paint cost
    ~0.2-0.3 s of CPU on every start."""

    def make() -> Screen:
        return getattr(import_module(f"brainwork.tui.screens.{module}"), name)()

    make.__name__ = make.__qualname__ = name
    return make


def _coming(pane_id: str, title: str, what: str) -> Callable[[], Screen]:
    return partial(PlaceholderScreen, pane_id=pane_id, heading=f"{title} — coming", text=what)


PANES: tuple[Pane, ...] = (
    Pane("1", "graph", "Graph", GraphScreen),
    Pane("2", "findings", "Findings", _later("findings", "FindingsScreen")),
    Pane("3", "undo", "Undo log", _later("undo_log", "UndoLogScreen")),
    Pane("4", "inbox", "Inbox", _later("inbox", "InboxScreen")),
    Pane("5", "rules", "Rules", _later("rules", "RulesScreen")),
    Pane("6", "dream", "Review", _later("dream", "DreamScreen")),
)

PANES_BY_ID: dict[str, Pane] = {p.id: p for p in PANES}


def _check() -> None:
    keys = [p.key for p in PANES]
    ids = [p.id for p in PANES]
    if len(set(keys)) != len(keys) or len(set(ids)) != len(ids):
        raise RuntimeError("pane keys and ids must be unique")
    if any(not (len(k) == 1 and k in "123456789") for k in keys):
        raise RuntimeError("pane keys are the digits 1-9")


_check()
