"""The help screen (``?``): the pane's own keys first, the app's keys next,
and Textual's generic keys (scrolling, input editing) in a folded section
at the end (``enter`` unfolds it, wherever the dialog is scrolled)."""

from __future__ import annotations

from pathlib import Path

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen, Screen
from textual.widgets import Collapsible, Static

from brainwork.tui.keys import GENERIC_TITLE, KeySection, help_sections


class HelpScreen(ModalScreen[None]):
    """Lists the bindings of ``screen`` (the pane it was opened from)."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [
        Binding("escape,q,question_mark", "dismiss", "Close help"),
        Binding("j", "scroll('down')", "Scroll down", show=False),
        Binding("k", "scroll('up')", "Scroll up", show=False),
        # Nothing in the dialog has focus when it opens, so the fold's own
        # enter (on its focused title) would need a tab first.
        Binding("enter", "toggle_generic", "Unfold or fold Textual's keys", show=False),
    ]

    def __init__(self, screen: Screen):
        super().__init__()
        self.pane_screen = screen

    def compose(self) -> ComposeResult:
        sections = help_sections(self.app, self.pane_screen)
        with Vertical(id="help-dialog"):
            yield Static("Key bindings  ·  esc closes  ·  enter unfolds Textual's keys", id="help-title")
            with VerticalScroll(id="help-scroll"):
                for section in sections:
                    if not section.generic:
                        yield from self._section(section)
                generic = [sec for sec in sections if sec.generic]
                if generic:
                    with Collapsible(title=GENERIC_TITLE, collapsed=True, id="help-generic"):
                        for section in generic:
                            yield from self._section(section)

    @staticmethod
    def _section(section: KeySection) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(width=22, no_wrap=True)
        table.add_column()
        for row in section.rows:
            keys = Text()
            for i, key in enumerate(row.keys):
                if i:
                    keys.append(", ", "dim")
                keys.append(key, "bold" if i == 0 else "dim")
            table.add_row(keys, row.description)
        yield Static(section.title, classes="help-section")
        yield Static(table, classes="help-table")

    def action_toggle_generic(self) -> None:
        """Unfold Textual's keys and show them, or fold them again."""
        try:
            fold = self.query_one("#help-generic", Collapsible)
        except NoMatches:
            return
        fold.collapsed = not fold.collapsed
        if not fold.collapsed:
            self.call_after_refresh(fold.scroll_visible, top=True)

    def action_scroll(self, direction: str) -> None:
        scroll = self.query_one("#help-scroll", VerticalScroll)
        if direction == "down":
            scroll.scroll_down()
        else:
            scroll.scroll_up()
