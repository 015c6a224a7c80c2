"""The approve step of the rules pane: edit, choose the evidence, confirm.

One modal for approving a candidate (``a``) and for approving it in place
of an older active rule (``s``, the older rule's text beside the new).
Unchecked evidence goes back to the inbox; a suggested supersession is a
note only (approving retires nothing unless superseding). Dismisses with
an :class:`ApprovalChoice` or None; the caller runs the approval as one
undoable operation. Walkthrough: docs/learning-loop.md ("The approval gate").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rich import box
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, SelectionList, Static, TextArea
from textual.widgets.selection_list import Selection

from brainwork.tui.widgets.checks import CheckList

#: Fields that may run over a line: edited in a wrapping box, not a one-line input.
LONG_FIELDS = ("text", "why")
#: The editable fields: (key, label, placeholder).
FIELDS = (
    ("title", "Title", "a complete phrase"),
    ("text", "Rule", "one imperative sentence"),
    ("why", "Why", "one sentence"),
    ("apply", "Applies", "when …"),
)


@dataclass
class ApprovalChoice:
    """What the person chose: the four fields as approved (whitespace
    folded) and ``evidence``, the correction ids to promote (the others go
    back to the inbox); ``supersedes``: the older rule to retire, or None."""

    title: str
    text: str
    why: str
    apply: str
    evidence: list[str] = field(default_factory=list)
    supersedes: str | None = None


def side_by_side(older: dict, new: dict) -> Table:
    """The older rule (left) and the candidate (right): rule and why."""
    table = Table(expand=True, box=box.MINIMAL, show_edge=False, pad_edge=False, border_style="dim")
    table.add_column(Text(f"{older['id']} (retired)", style="bold"), ratio=1, overflow="fold")
    table.add_column(Text(f"{new['id']} (replaces it)", style="bold"), ratio=1, overflow="fold")
    table.add_row(Text(older.get("text") or "—"), Text(new.get("text") or "—"))
    table.add_row(Text(older.get("why") or "—", style="dim"), Text(new.get("why") or "—", style="dim"))
    return table


class FieldBox(TextArea):
    """A wrapping box for the rule or why (line breaks are folded to spaces
    when approving)."""

    HELP_TITLE = "rule field"


class EvidenceChecklist(CheckList):
    """The candidate's evidence; checked ones are promoted."""

    HELP_TITLE = "evidence checklist"


class ApproveRuleScreen(ModalScreen[ApprovalChoice | None]):
    """``rule``: the candidate's overview item (``id``, ``title``, ``text``,
    ``why``, ``apply``, ``proposed_supersedes``); ``text``: the rule text
    edited in the pane (None: the page's); ``evidence``: rows ``{"id",
    "title", "tasks": [{"title"}], "similarity"}`` in list order; ``older``:
    for a supersession, the older rule's item (``id``, ``title``, ``text``,
    ``why``)."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")
    AUTO_FOCUS = "#approve-title"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", tooltip="Close without approving"),
        Binding("ctrl+s", "confirm", "Approve", tooltip="Approve with these fields and the checked evidence"),
    ]

    def __init__(self, rule: dict, evidence: list[dict], *, text: str | None = None, older: dict | None = None):
        super().__init__()
        self.rule = rule
        self.evidence = evidence
        self.text = text
        self.older = older

    def _value(self, key: str) -> str:
        if key == "text" and self.text is not None:
            return self.text
        return " ".join(str(self.rule.get(key) or "").split())

    def compose(self) -> ComposeResult:
        rid = self.rule["id"]
        with Vertical(id="approve-dialog"):
            with VerticalScroll(id="approve-scroll"):
                for key, label, placeholder in FIELDS:
                    with Horizontal(classes="approve-row"):
                        yield Label(label, classes="approve-label")
                        if key in LONG_FIELDS:
                            yield FieldBox(self._value(key), id=f"approve-{key}", soft_wrap=True, show_line_numbers=False,
                                           tab_behavior="focus", placeholder=placeholder)
                        else:
                            yield Input(self._value(key), placeholder=placeholder, id=f"approve-{key}", select_on_focus=False)
                if self.older is not None:
                    yield Static(side_by_side(self.older, {"id": rid, "text": self._value("text"), "why": self._value("why")}),
                                 id="approve-sides")
                elif self.rule.get("proposed_supersedes"):
                    yield Static(
                        Text(f"Consolidation suggested it supersedes {self.rule['proposed_supersedes']}. This approval "
                             "retires nothing; use s (supersede) to replace that rule.", style="yellow"),
                        id="approve-suggestion",
                    )
                yield Static(self._evidence_head(), id="approve-evidence-head")
                yield EvidenceChecklist(*[self._selection(r) for r in self.evidence], id="approve-evidence")
            with Vertical(id="approve-foot"):
                yield Static("", id="approve-problem")
                with Horizontal(id="approve-buttons"):
                    yield Button("Cancel", id="approve-cancel")
                    label = f"Approve, retire {self.older['id'].rsplit('/', 1)[-1]}" if self.older else "Approve"
                    yield Button(label, id="approve-ok", variant="warning" if self.older else "primary")

    def _evidence_head(self, kept: int | None = None) -> Text:
        """The checklist's heading with the count kept and sent back: a
        checked and an unchecked box differ only by colour, which a
        monochrome terminal or a colour-blind eye does not show."""
        text = Text()
        text.append("Evidence ", style="bold")
        if not self.evidence:
            text.append("none recorded", style="dim")
            return text
        total = len(self.evidence)
        kept = total if kept is None else kept
        text.append(f"{kept} of {total} promoted", style="bold")
        back = total - kept
        text.append(" · ")
        text.append(f"{back} back to the inbox", style="bold yellow" if back else "dim")
        text.append(" · checked: supports this rule, promoted; unchecked: back to the inbox (space toggles)", style="dim")
        if self._any_similarity():
            text.append(" · the figure: similarity to the rule", style="dim")
        return text

    @on(SelectionList.SelectedChanged, "#approve-evidence")
    def _count_evidence(self, event: SelectionList.SelectedChanged) -> None:
        self.query_one("#approve-evidence-head", Static).update(self._evidence_head(len(event.selection_list.selected)))

    def _selection(self, row: dict) -> Selection:
        """One row: the similarity to the rule first, as a fixed-width
        column (after the title and task it was cut off at 80 columns, as
        a one-line row is ellipsised at the dialog's edge), then the title
        and the task, which may be cut."""
        label = Text(overflow="ellipsis", no_wrap=True)
        if self._any_similarity():
            sim = row.get("similarity")
            label.append(f"{sim:.2f}" if sim is not None else "  — ", style="bold")
            label.append("  ")
        label.append(row.get("title") or row["id"])
        task = row["tasks"][0]["title"] if row.get("tasks") else None
        if task:
            label.append(f"  · {task}", style="dim")
        return Selection(label, row["id"], True)

    def _any_similarity(self) -> bool:
        return any(r.get("similarity") is not None for r in self.evidence)

    def on_mount(self) -> None:
        dialog = self.query_one("#approve-dialog")
        verb = "Supersede" if self.older else "Approve"
        dialog.border_title = f"{verb} {self.rule['id']}"
        confirm = f"ctrl+s retires {self.older['id'].rsplit('/', 1)[-1]}" if self.older else "ctrl+s approves"
        dialog.border_subtitle = f"tab moves · space toggles · {confirm} · esc cancels · u undoes afterwards"

    @on(Input.Submitted)
    def _next_field(self, event: Input.Submitted) -> None:
        event.stop()
        self.focus_next()

    @on(TextArea.Changed)
    def _refresh_sides(self, event: TextArea.Changed) -> None:
        if self.older is None:
            return
        new = {"id": self.rule["id"], "text": self._typed("text"), "why": self._typed("why")}
        self.query_one("#approve-sides", Static).update(side_by_side(self.older, new))

    def _typed(self, key: str) -> str:
        box = self.query_one(f"#approve-{key}")
        return " ".join((box.text if isinstance(box, TextArea) else box.value).split())

    def choice(self) -> ApprovalChoice | str:
        """The choice as the form stands, or a problem to show."""
        values = {key: self._typed(key) for key, _, _ in FIELDS}
        empty = [label for key, label, _ in FIELDS if not values[key]]
        if empty:
            return f"{', '.join(empty)} cannot be empty (esc cancels)."
        chosen = list(self.query_one(EvidenceChecklist).selected)
        if self.evidence and not chosen:
            return "Keep at least one correction as evidence, or reject the candidate instead (r)."
        order = [r["id"] for r in self.evidence]
        chosen.sort(key=order.index)
        return ApprovalChoice(**values, evidence=chosen, supersedes=self.older["id"] if self.older else None)

    def action_confirm(self) -> None:
        result = self.choice()
        if isinstance(result, str):
            problem = self.query_one("#approve-problem", Static)
            problem.update(result)
            problem.display = True
            return
        self.dismiss(result)

    @on(Button.Pressed, "#approve-ok")
    def _ok(self) -> None:
        self.action_confirm()

    @on(Button.Pressed, "#approve-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
