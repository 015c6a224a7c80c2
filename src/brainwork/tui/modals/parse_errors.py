"""A list of the files the indexer could not read (path, line, message).

Each error is one option of an :class:`OptionList`: the file and line on
the first line, the message under it, wrapped to the dialog's width (a
YAML message runs to ~150 characters; a table column cut it at 80x24).
``enter`` returns the highlighted error; the app then shows that file's
page, if the file gave one. ``esc`` returns None.
"""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from brainwork.model import ParseError


class ParseErrorsScreen(ModalScreen[ParseError | None]):
    """Shows ``errors`` (path, line, message of each); dismissed with the
    error chosen with ``enter``, or None."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")
    AUTO_FOCUS = "#errors-list"
    BINDINGS = [Binding("escape,q", "dismiss", "Close")]

    def __init__(self, errors: list[ParseError]):
        super().__init__()
        self.errors = errors

    def compose(self) -> ComposeResult:
        with Vertical(id="errors-dialog"):
            n = len({e.path for e in self.errors})
            yield Static(
                f"{n} file{'s' if n != 1 else ''} could not be read completely (every other file was)"
                if n
                else "No parse errors: every file was indexed.",
                id="errors-title",
            )
            options: list[Option | None] = []
            for e in self.errors:
                options += [None, self._option(e)] if options else [self._option(e)]  # None: a rule between
            yield OptionList(*options, id="errors-list")

    @staticmethod
    def _option(error: ParseError) -> Option:
        where = f"{error.path}:{error.line}" if error.line else error.path
        return Option(Content.assemble((where, "bold"), "\n", error.message))

    def on_mount(self) -> None:
        dialog = self.query_one("#errors-dialog")
        dialog.border_title = "Parse errors"
        dialog.border_subtitle = "↑↓ choose · enter opens the page · esc closes" if self.errors else "esc closes"

    @on(OptionList.OptionSelected, "#errors-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.errors[event.option_index])
