"""The rename dialog of the graph pane, the palette and the findings pane.

A :class:`~brainwork.tui.modals.prompts.TextPrompt` for the new title plus a
checkbox "keep the old title as an alias". A rename keeps the old names as
aliases only when asked (docs/operations.md "Rename"): the box starts as
the vault's ``[rename] keep_alias`` setting, so the dialog says exactly what
the rename will write, and the person can change it for this one rename.

Dismisses with a :class:`RenameAnswer`, or None when cancelled.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Static

from brainwork.tui.modals.prompts import TextPrompt
from brainwork.tui.widgets.checks import Check


@dataclass(frozen=True)
class RenameAnswer:
    """What the person chose: the new title, and whether the old title (and
    old file name, when the file moves) is added to the page's aliases."""

    title: str
    keep_alias: bool


def rename_note(current: str, page_id: str) -> Content:
    """The dialog's explanation; the alias is the checkbox's business."""
    return Content.from_markup(
        "Now: [b]$current[/b]  ($page)\nEvery link to the page is rewritten. Undoable with u.",
        current=current, page=page_id,
    )


class RenamePrompt(TextPrompt):
    """Ask for the new title and whether the old one stays as an alias.

    Args:
        title, note, value, placeholder: as :class:`TextPrompt`.
        keep_alias: the checkbox's starting state (the vault setting).
    """

    DEFAULT_CSS = """
    RenamePrompt #rename-keep-alias {
        margin: 1 0 0 0;
        border: none;
        background: transparent;
    }
    """

    def __init__(self, title: str, note: str | Content = "", value: str = "", placeholder: str = "",
                 keep_alias: bool = False):
        super().__init__(title, note, value=value, placeholder=placeholder)
        self.keep_alias = keep_alias

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt-dialog", classes="prompt-dialog"):
            yield Input(self.value, placeholder=self.placeholder, id="prompt-input", select_on_focus=False)
            yield Check(
                "Keep the old title as an alias (tab, space)", self.keep_alias, id="rename-keep-alias",
            )
            if self.note:
                yield Static(self.note, id="prompt-note")

    def dismiss(self, result=None):
        """The text box's answer (from :class:`TextPrompt`'s enter) goes out
        with the box's state; a cancel (None) stays None."""
        if isinstance(result, str):
            result = RenameAnswer(result, self.query_one("#rename-keep-alias", Check).value)
        return super().dismiss(result)
