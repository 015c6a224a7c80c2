"""The merge confirmation: what merging SOURCE into TARGET will do, and a
plain statement that it cannot be undone.

Shows both pages (title and file), the counts (links redirected, files
touched, conflicting fields), the conflicts with the value that is kept,
the aliases and fields TARGET gains, the links that will be rewritten, and
the two pages side by side (SOURCE left, TARGET right; lines only in one
page, or different, coloured). The focused, default button is **Cancel**:
``enter`` right after opening cancels, ``escape`` cancels; only ``tab`` to
*Merge* (or a click) and ``enter`` merges. ``s`` asks for the other
direction (TARGET into SOURCE).

The screen is given a finished :class:`~brainwork.ops.merge.MergePlan`
(planned in a worker by the caller) and dismisses with ``"merge"``,
``"swap"`` or ``None`` (cancelled); the caller runs the merge in a worker.
"""

from __future__ import annotations

from pathlib import Path

from rich import box
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from brainwork.ops.merge import MergePlan
from brainwork.wording import counted

#: Link rewrites listed in the modal (the count is always complete).
LINKS_LISTED = 12

#: Rows of the side-by-side view (long pages are cut, with a note).
SIDE_BY_SIDE_ROWS = 300

_LEFT = {"delete": "red", "replace": "red"}
_RIGHT = {"insert": "green", "replace": "green"}


def summary_content(plan: MergePlan) -> Content:
    """The header: both pages, what happens to each, and the counts."""
    others = len({e.path for e in plan.edits} - {plan.source_path, plan.target_path})
    lines = [
        Content.from_markup(
            "Merge [b]$st[/b] [$text-muted]($sp)[/]  →  into  [b]$tt[/b] [$text-muted]($tp)[/]",
            st=plan.source_title, sp=plan.source_path, tt=plan.target_title, tp=plan.target_path,
        ),
        Content.from_markup(
            "[$text-muted]$sp is removed; its body goes to the end of $tp under “## Merged from $st”; "
            "links to it point to $tt.[/]",
            sp=plan.source_path, tp=plan.target_path, st=plan.source_title, tt=plan.target_title,
        ),
        Content.from_markup(
            "[b]$links[/b] redirected in $others · [b]$files[/b] touched · $conflicts",
            links=counted(plan.links_rewritten, "link"),
            others=counted(others, "other file"),
            files=counted(len(plan.pages_touched), "file"),
            conflicts=Content.from_markup("[b $warning]$c[/]", c=counted(len(plan.conflicts), "conflict"))
            if plan.conflicts
            else Content("no conflicts"),
        ),
    ]
    return Content("\n").join(lines)


def details_content(plan: MergePlan) -> Content:
    """Conflicts, aliases and fields added, and the first rewritten links."""
    lines: list[Content] = []
    if plan.conflicts:
        lines.append(Content.from_markup("[b $warning]Conflicting fields[/] (the kept value is marked ✓):"))
        for c in plan.conflicts:
            keep_t, keep_s = ("✓", " ") if c.chosen == "target" else (" ", "✓")
            lines.append(
                Content.from_markup(
                    "  $key: $kt target “$tv”   $ks source “$sv”",
                    key=c.key, kt=keep_t, tv=str(c.target_value), ks=keep_s, sv=str(c.source_value),
                )
            )
    if plan.aliases_added:
        lines.append(Content.from_markup("Aliases added to the target: $a", a=", ".join(plan.aliases_added)))
    if plan.fields_added:
        lines.append(Content.from_markup("Fields copied from the source: $f", f=", ".join(plan.fields_added)))
    for key, items in plan.items_added.items():
        lines.append(Content.from_markup("$key: + $items", key=key, items=", ".join(items)))
    rewrites = [e for e in plan.edits if e.path not in (plan.source_path, plan.target_path)]
    if rewrites:
        lines.append(Content("Links rewritten:"))
        for e in rewrites[:LINKS_LISTED]:
            lines.append(
                Content.from_markup(
                    "  [$text-muted]$path:$line[/]  $old → $new", path=e.path, line=str(e.line), old=e.old, new=e.new
                )
            )
        if len(rewrites) > LINKS_LISTED:
            lines.append(Content(f"  … and {len(rewrites) - LINKS_LISTED} more"))
    return Content("\n").join(lines)


def side_by_side_table(plan: MergePlan) -> Table:
    """SOURCE and TARGET aligned line by line (rich Table, two columns)."""
    table = Table(expand=True, show_edge=False, pad_edge=False, box=box.MINIMAL, border_style="dim")
    table.add_column(Text(f"SOURCE {plan.source_path} (removed)", style="bold"), ratio=1, overflow="fold")
    table.add_column(Text(f"TARGET {plan.target_path} (kept)", style="bold"), ratio=1, overflow="fold")
    rows = plan.side_by_side()
    for tag, left, right in rows[:SIDE_BY_SIDE_ROWS]:
        table.add_row(Text(left, style=_LEFT.get(tag, "")), Text(right, style=_RIGHT.get(tag, "")))
    if len(rows) > SIDE_BY_SIDE_ROWS:
        table.add_row(Text(f"… {len(rows) - SIDE_BY_SIDE_ROWS} more lines", style="dim"), "")
    return table


class MergeConfirmScreen(ModalScreen[str | None]):
    """Asks before merging; dismisses with ``"merge"``, ``"swap"`` or None."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")
    AUTO_FOCUS = "#merge-cancel"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", tooltip="Close without merging"),
        Binding("s", "swap", "Swap direction", tooltip="Merge the other page into this one instead"),
        Binding("left,h", "app.focus_previous", "Previous button", show=False),
        Binding("right,l", "app.focus_next", "Next button", show=False),
    ]

    def __init__(self, plan: MergePlan):
        super().__init__()
        self.plan = plan

    def compose(self) -> ComposeResult:
        with Vertical(id="merge-dialog"):
            yield Static(summary_content(self.plan), id="merge-summary")
            yield Static(
                "A merge cannot be undone: the undo log keeps no copy of its files, and "
                f"{self.plan.source_path} is deleted.",
                id="merge-warning",
            )
            with VerticalScroll(id="merge-scroll"):
                details = details_content(self.plan)
                if details:
                    yield Static(details, id="merge-details")
                yield Static(side_by_side_table(self.plan), id="merge-sides")
            with Horizontal(id="merge-buttons"):
                yield Button("Cancel", id="merge-cancel", variant="primary")
                yield Button("Merge (cannot be undone)", id="merge-confirm", variant="error")

    def on_mount(self) -> None:
        self.query_one("#merge-dialog").border_title = "Merge pages"
        self.query_one("#merge-dialog").border_subtitle = "enter on Cancel · tab then enter merges · s swaps · esc"

    @on(Button.Pressed, "#merge-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#merge-confirm")
    def _confirm(self) -> None:
        self.dismiss("merge")

    def action_swap(self) -> None:
        self.dismiss("swap")
