"""Ask before something that cannot be undone (accepting a dream proposal
that merges pages).

Returns True when confirmed, None when cancelled. ``Cancel`` has the focus
(the default): ``enter`` cancels unless the person moved to the confirm
button; ``esc`` cancels too.
"""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ConfirmScreen(ModalScreen[bool | None]):
    """``title``: what would be done; ``text``: why it needs a yes;
    ``confirm``: the confirm button's label."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, text: str = "", *, confirm: str = "OK"):
        super().__init__()
        self.title_text = title
        self.text = text
        self.confirm = confirm

    def compose(self) -> ComposeResult:
        with Vertical(id="yesno-dialog"):
            yield Static(self.title_text, id="yesno-title")
            if self.text:
                yield Static(self.text, id="yesno-text")
            with Horizontal(id="yesno-buttons"):
                yield Button("Cancel", id="yesno-cancel")
                yield Button(self.confirm, id="yesno-ok", variant="error")

    def on_mount(self) -> None:
        self.query_one("#yesno-cancel", Button).focus()

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#yesno-ok")
    def _ok(self) -> None:
        self.dismiss(True)

    @on(Button.Pressed, "#yesno-cancel")
    def _cancel(self) -> None:
        self.dismiss(None)
