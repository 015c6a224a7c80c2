"""Confirm a proposed correction: the person states what was wrong, the
correct behaviour and why it matters.

A session hook proposed the correction from the person's own words
(``wrong`` holds them as a starting point). Returns ``(wrong, correct,
why)``, each on one line, or None when cancelled. ``esc`` cancels (the
default); ``enter`` moves to the next box and, in the last one, confirms —
only when all three are filled; ``ctrl+s`` confirms from any box, as in
the approve dialog. The keys are listed in the dialog's border.
"""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

FIELDS = (("wrong", "What was wrong"), ("correct", "The correct behaviour"), ("why", "Why it matters"))


class ConfirmCorrectionScreen(ModalScreen[tuple[str, str, str] | None]):
    """``title``: the correction's id; ``quote``: the person's words as the
    proposal recorded them; ``wrong``/``correct``/``why``: the boxes' first
    values."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", tooltip="Close without confirming"),
        Binding("ctrl+s", "confirm", "Confirm", tooltip="Confirm with these three lines"),
    ]

    def __init__(self, title: str, quote: str = "", wrong: str = "", correct: str = "", why: str = ""):
        super().__init__()
        self.title_text = title
        self.quote = quote
        self.values = {"wrong": wrong, "correct": correct, "why": why}

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog"):
            yield Static(self.title_text, id="confirm-title")
            if self.quote:
                yield Static(f"They said: “{self.quote}”", id="confirm-quote")
            for key, label in FIELDS:
                yield Static(label, classes="confirm-label")
                yield Input(value=self.values[key], placeholder=f"{label.lower()} (required)", id=f"confirm-{key}")
            yield Static("", id="confirm-problem")
            with Horizontal(id="confirm-buttons"):
                yield Button("Cancel", id="confirm-cancel")
                yield Button("Confirm", id="confirm-ok", variant="primary")

    def on_mount(self) -> None:
        dialog = self.query_one("#confirm-dialog")
        dialog.border_title = "Confirm the correction"
        dialog.border_subtitle = "tab/enter next box · ctrl+s confirms · esc cancels · u undoes afterwards"
        first_empty = next((k for k, _ in FIELDS if not self.values[k].strip()), "wrong")
        self.query_one(f"#confirm-{first_empty}", Input).focus()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_confirm(self) -> None:
        self._confirm()

    def _confirm(self) -> None:
        values = [" ".join(self.query_one(f"#confirm-{k}", Input).value.split()) for k, _ in FIELDS]
        missing = [label.lower() for (_, label), v in zip(FIELDS, values) if not v]
        if missing:
            problem = self.query_one("#confirm-problem", Static)
            problem.update(f"Fill in {', '.join(missing)} (esc cancels).")
            problem.display = True
            return
        self.dismiss(tuple(values))

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        keys = [k for k, _ in FIELDS]
        key = (event.input.id or "").removeprefix("confirm-")
        if key in keys[:-1]:
            self.query_one(f"#confirm-{keys[keys.index(key) + 1]}", Input).focus()
        else:
            self._confirm()

    @on(Button.Pressed, "#confirm-ok")
    def _ok(self) -> None:
        self._confirm()

    @on(Button.Pressed, "#confirm-cancel")
    def _cancel(self) -> None:
        self.dismiss(None)
