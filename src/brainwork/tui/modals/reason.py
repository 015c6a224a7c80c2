"""Ask for a reason (reject a rule, dismiss a correction, retire a rule).

Returns the reason text, or None when cancelled. ``esc`` cancels (the
default); ``enter`` confirms — with an empty box only when the reason is
optional.
"""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static


class ReasonScreen(ModalScreen[str | None]):
    """``title``: what is being done (``"Reject rules/x"``); ``text``: one
    or two lines of context; ``required``: refuse an empty reason;
    ``confirm``: the confirm button's label."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, text: str = "", *, required: bool = True, confirm: str = "OK", placeholder: str = ""):
        super().__init__()
        self.title_text = title
        self.text = text
        self.required = required
        self.confirm = confirm
        self.placeholder = placeholder or ("why (required)" if required else "why (optional)")

    def compose(self) -> ComposeResult:
        with Vertical(id="reason-dialog"):
            yield Static(self.title_text, id="reason-title")
            if self.text:
                yield Static(self.text, id="reason-text")
            yield Input(placeholder=self.placeholder, id="reason-input")
            yield Static("", id="reason-problem")
            with Horizontal(id="reason-buttons"):
                yield Button("Cancel", id="reason-cancel")
                yield Button(self.confirm, id="reason-ok", variant="primary")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def _confirm(self) -> None:
        value = " ".join(self.query_one(Input).value.split())
        if self.required and not value:
            problem = self.query_one("#reason-problem", Static)
            problem.update("A reason is required (esc cancels).")
            problem.display = True
            return
        self.dismiss(value)

    @on(Input.Submitted, "#reason-input")
    def _submitted(self) -> None:
        self._confirm()

    @on(Button.Pressed, "#reason-ok")
    def _ok(self) -> None:
        self._confirm()

    @on(Button.Pressed, "#reason-cancel")
    def _cancel(self) -> None:
        self.dismiss(None)
