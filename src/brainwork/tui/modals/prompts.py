"""Small input modals for the fixes of the findings pane.

- :class:`TextPrompt`: one line of text, pre-filled (rename with the
  suggested title; the reason of a dismissal). Dismisses with the text, or
  None when cancelled.
- :class:`ChoicePrompt`: pick one value from a list that narrows as you type
  (a page type; a page to retarget a link to: the suggestions first, and
  any page by fuzzy title when a ``search`` function is given). Dismisses
  with the chosen value, or None.

Both keep the keyboard in the text box: ``up``/``down`` move the list's
highlight, ``enter`` accepts, ``escape`` cancels.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Generic, Sequence, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

T = TypeVar("T")

#: A choice: (value, label shown, text matched while typing).
Choice = tuple[T, Content | str, str]


class TextPrompt(ModalScreen[str | None]):
    """Ask for one line of text.

    Args:
        title: the dialog's title (what is being done).
        note: one or more lines explaining the effect (e.g. "undoable with u").
        value: the pre-filled text (selected, so typing replaces it).
        placeholder: shown when the box is empty.
        allow_empty: accept an empty answer (e.g. an optional reason).
    """

    CSS_PATH = Path(__file__).with_name("prompts.tcss")
    AUTO_FOCUS = "#prompt-input"
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, note: str | Content = "", value: str = "", placeholder: str = "",
                 allow_empty: bool = False):
        super().__init__()
        self.title_text = title
        self.note = note
        self.value = value
        self.placeholder = placeholder
        self.allow_empty = allow_empty

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt-dialog", classes="prompt-dialog"):
            yield Input(self.value, placeholder=self.placeholder, id="prompt-input", select_on_focus=False)
            if self.note:
                yield Static(self.note, id="prompt-note")

    def on_mount(self) -> None:
        dialog = self.query_one("#prompt-dialog")
        dialog.border_title = self.title_text
        dialog.border_subtitle = "enter accepts · esc cancels"
        box = self.query_one(Input)
        box.cursor_position = len(self.value)

    @on(Input.Submitted, "#prompt-input")
    def _submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text and not self.allow_empty:
            self.notify("Type something, or press esc to cancel.", severity="warning")
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ChoicePrompt(ModalScreen[T | None], Generic[T]):
    """Pick one of ``choices``; typing narrows the list.

    Args:
        title: the dialog's title.
        choices: ``(value, label, match text)`` shown first (e.g. suggestions).
        note: explanation under the list.
        search: ``search(text) -> choices`` for anything typed (e.g. a fuzzy
            page search); its hits follow the matching ``choices``.
        placeholder: text box hint.
    """

    CSS_PATH = Path(__file__).with_name("prompts.tcss")
    AUTO_FOCUS = "#choice-input"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("down", "move(1)", "Next choice", show=False, priority=True),
        Binding("up", "move(-1)", "Previous choice", show=False, priority=True),
    ]

    def __init__(
        self,
        title: str,
        choices: Sequence[Choice],
        note: str | Content = "",
        search: Callable[[str], Sequence[Choice]] | None = None,
        placeholder: str = "type to narrow the list",
    ):
        super().__init__()
        self.title_text = title
        self.choices = list(choices)
        self.note = note
        self.search = search
        self.placeholder = placeholder
        self._values: list[T] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="choice-dialog", classes="prompt-dialog"):
            yield Input(placeholder=self.placeholder, id="choice-input")
            yield OptionList(id="choice-list")
            if self.note:
                yield Static(self.note, id="prompt-note")

    def on_mount(self) -> None:
        dialog = self.query_one("#choice-dialog")
        dialog.border_title = self.title_text
        dialog.border_subtitle = "↑↓ choose · enter accepts · esc cancels"
        self._fill("")

    def _fill(self, text: str) -> None:
        needle = text.strip().casefold()
        shown = [c for c in self.choices if needle in c[2].casefold()] if needle else list(self.choices)
        if needle and self.search is not None:
            seen = {c[0] for c in shown}
            shown += [c for c in self.search(text) if c[0] not in seen]
        self._values = [c[0] for c in shown]
        options = [Option(c[1]) for c in shown]
        olist = self.query_one("#choice-list", OptionList)
        olist.set_options(options)
        if options:
            olist.highlighted = 0
        else:
            # With nothing typed, an empty list means there were no
            # suggestions; "nothing matches" read like a failed search.
            hint = "no suggestions; type to find a page" if not needle and self.search is not None else "nothing matches"
            olist.add_option(Option(Content.styled(hint, "$text-muted"), disabled=True))

    @on(Input.Changed, "#choice-input")
    def _changed(self, event: Input.Changed) -> None:
        self._fill(event.value)

    def action_move(self, step: int) -> None:
        olist = self.query_one("#choice-list", OptionList)
        if not self._values:
            return
        current = olist.highlighted or 0
        olist.highlighted = max(0, min(len(self._values) - 1, current + step))

    @on(Input.Submitted, "#choice-input")
    def _submitted(self) -> None:
        olist = self.query_one("#choice-list", OptionList)
        if not self._values or olist.highlighted is None:
            self.notify("Nothing is chosen; type to find something, or press esc.", severity="warning")
            return
        self.dismiss(self._values[olist.highlighted])

    @on(OptionList.OptionSelected, "#choice-list")
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        if 0 <= event.option_index < len(self._values):
            self.dismiss(self._values[event.option_index])

    def action_cancel(self) -> None:
        self.dismiss(None)
