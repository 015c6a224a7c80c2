"""Pick a rule from a list (link a correction to a rule; the older rule a
candidate supersedes).

Returns the chosen rule id, or None when cancelled (``esc``, the default).
``enter`` picks the highlighted rule; ``j``/``k`` move.
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


#: Characters of a rule's text shown under its title.
TEXT_CHARS = 86


class RuleOptions(OptionList):
    """The rules to choose from."""

    HELP_TITLE = "rule choice"
    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
    ]


class PickRuleScreen(ModalScreen[str | None]):
    """``rules``: ``[{"id", "title", "status", "text"}]`` in the order to list
    them (with ``score``, a similarity shown beside the status); ``preselect``: the id to highlight first (e.g. the rule consolidation
    proposed); ``note``: a line under the title."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, rules: list[dict], *, preselect: str | None = None, note: str = ""):
        super().__init__()
        self.title_text = title
        self.rules = rules
        self.preselect = preselect
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(id="pick-dialog"):
            yield Static(self.title_text, id="pick-title")
            if self.note:
                yield Static(self.note, id="pick-note")
            options = []
            for r in self.rules:
                text = " ".join((r.get("text") or "").split())
                if len(text) > TEXT_CHARS:
                    text = text[: TEXT_CHARS - 1] + "…"
                status = r["status"] or "no status"
                if isinstance(r.get("score"), (int, float)):  # ranked: closest first
                    status += f" · {r['score']:.2f}"
                label = Content.from_markup(
                    "$title  [$text-muted]($status)[/]\n[$text-muted]  $text[/]",
                    title=r["title"] or r["id"], status=status, text=text or r["id"],
                )
                options.append(Option(label, id=r["id"]))
            yield RuleOptions(*options, id="pick-list")
            yield Static("enter picks · esc cancels", id="pick-hint")

    def on_mount(self) -> None:
        options = self.query_one(RuleOptions)
        options.focus()
        if self.preselect is not None:
            try:
                options.highlighted = options.get_option_index(self.preselect)
            except Exception:
                pass
        elif self.rules:
            options.highlighted = 0

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(OptionList.OptionSelected, "#pick-list")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
