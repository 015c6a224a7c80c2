"""The tab bar at the top of every pane: the app's name and each registered
pane with its digit; the active pane is highlighted, a click switches."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.events import Click
from textual.widgets import Label


class PaneTab(Label):
    """One tab; clicking it shows its pane."""

    def __init__(self, pane_id: str, text: str, active: bool):
        super().__init__(text, classes="-active" if active else "")
        self.pane_id = pane_id

    def on_click(self, event: Click) -> None:
        event.stop()
        self.app.run_action(f"switch_pane('{self.pane_id}')")


class PaneTabs(Horizontal):
    """Tab bar listing ``app.panes`` (see :mod:`brainwork.tui.panes`).

    Args:
        active: id of the pane this bar belongs to.
    """

    DEFAULT_CSS = """
    PaneTabs {
        dock: top;
        height: 1;
        background: $panel;
    }
    PaneTabs #pane-tabs-brand {
        padding: 0 1;
        text-style: bold;
        color: $accent;
    }
    PaneTabs PaneTab {
        padding: 0 1;
        color: $text-muted;
    }
    PaneTabs PaneTab:hover {
        color: $text;
    }
    PaneTabs PaneTab.-active {
        background: $primary;
        color: $text;
        text-style: bold;
    }
    """

    def __init__(self, active: str):
        super().__init__()
        self.active = active

    def compose(self) -> ComposeResult:
        yield Label("brainwork", id="pane-tabs-brand")
        for pane in self.app.panes:  # type: ignore[attr-defined]
            yield PaneTab(pane.id, f"{pane.key} {pane.title}", pane.id == self.active)
