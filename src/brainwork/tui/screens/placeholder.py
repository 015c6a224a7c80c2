"""A pane that is registered but not built yet: says what will come."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from textual.containers import Center, Middle
from textual.widget import Widget
from textual.widgets import Static

from brainwork.tui.screens.base import PaneScreen


class PlaceholderScreen(PaneScreen):
    """Stands in for a pane another issue builds (see :mod:`brainwork.tui.panes`)."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")

    def __init__(self, pane_id: str, heading: str, text: str):
        super().__init__(pane_id=pane_id)
        self.heading = heading
        self.text = text

    def compose_body(self) -> Iterable[Widget]:
        with Middle(id="placeholder-body"):
            with Center():
                yield Static(self.heading, id="placeholder-heading")
            with Center():
                yield Static(self.text, id="placeholder-text")
            with Center():
                yield Static("Press 1 for the graph, ctrl+p for the palette, ? for help.", id="placeholder-hint")
