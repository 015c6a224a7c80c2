"""A list of the files the indexer could not read (path, line, message)."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from brainwork.model import ParseError


class ParseErrorsScreen(ModalScreen[None]):
    """Shows ``errors`` (path, line, message of each)."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [Binding("escape,q", "dismiss", "Close")]

    def __init__(self, errors: list[ParseError]):
        super().__init__()
        self.errors = errors

    def compose(self) -> ComposeResult:
        with Vertical(id="errors-dialog"):
            n = len({e.path for e in self.errors})
            yield Static(
                f"{n} file{'s' if n != 1 else ''} could not be read completely (every other file was)  ·  esc closes"
                if n
                else "No parse errors: every file was indexed.  ·  esc closes",
                id="errors-title",
            )
            table: DataTable = DataTable(id="errors-table", cursor_type="row", zebra_stripes=True)
            table.add_columns("File", "Line", "Problem")
            for e in self.errors:
                table.add_row(e.path, str(e.line), e.message)
            yield table
