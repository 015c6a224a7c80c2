"""The replay figures (``p`` in the Rules pane): did doctrine reduce
repeated corrections? (:mod:`brainwork.learn.replay`).

Top: the lesson-in-the-room rate (repeat corrections whose lesson was in
the agent's context when the task started, by doctrine or by recall).
Below: one row per lesson — its rule, status, the repeat-correction rate on
tasks of its kind before and after the rule became active with the counts
(``repeated/tasks``), the repeats that had the lesson in the room, and the
verdict ("too little data" below the minimum sample). ``esc`` closes.
"""

from __future__ import annotations

from pathlib import Path

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from brainwork.learn.replay import FEWER, NO_FIGURE, NOT_FEWER, Replay, Side, rate_text


def _side(side: Side | None) -> Text:
    """``0.67 4/6``; a side without tasks (or not yet begun) is the dash alone."""
    if side is None or not side.tasks:
        return Text(NO_FIGURE, style="dim")
    text = Text(rate_text(side.rate))
    text.append(f" {len(side.repeated)}/{len(side.tasks)}", style="dim")
    return text


def replay_table(report: Replay) -> Table:
    """One row per lesson (rule id without its folder). Expanded, so the
    ratios share the width: without it Rich sizes the columns by their
    content and, in an 80-column terminal, dropped the verdict column."""
    table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold", expand=True)
    table.add_column("lesson (rule)", ratio=3, overflow="ellipsis", no_wrap=True, min_width=12)
    # The figures are as wide as their text; the rule and verdict share the rest.
    table.add_column("status", no_wrap=True)
    table.add_column("before", no_wrap=True)
    table.add_column("after", no_wrap=True)
    table.add_column("in room", no_wrap=True)
    table.add_column("verdict", ratio=2, min_width=10)
    for lesson in report.lessons:
        style = {FEWER: "green", NOT_FEWER: "red"}.get(lesson.verdict, "dim")
        table.add_row(
            lesson.rule.rsplit("/", 1)[-1], lesson.status or "—", _side(lesson.before), _side(lesson.after),
            f"{lesson.repeats_in_room}/{lesson.repeats}" if lesson.repeats else Text(NO_FIGURE, style="dim"),
            Text(lesson.verdict, style=style),
        )
    return table


def headline(report: Replay) -> Text:
    """The lesson-in-the-room rate with its counts."""
    text = Text()
    text.append("Lesson in the room  ", style="bold")
    if not report.repeats:
        text.append("no repeat corrections yet", style="dim")
    else:
        text.append(f"{report.in_room_rate:.0%}")
        by = report.to_json()["in_room_by"]
        detail = ", ".join(f"{n} by {via}" for via, n in sorted(by.items()))
        text.append(f"  {report.in_room} of {len(report.repeats)} repeat corrections" + (f" ({detail})" if detail else ""),
                    style="dim")
    text.append(f"\n{report.tasks} dated tasks walked in date order ({report.undated_tasks} undated left out); "
                f"recall {report.recall}.", style="dim")
    return text


NOTE = (
    "before / after: tasks of the lesson's kind, and how many got one of its corrections again "
    "(repeated/tasks), before and after its rule became active. Corrections a rule was approved from "
    "never count after it. A verdict needs at least {n} tasks on each side."
)


class ReplayScreen(ModalScreen[None]):
    """Shows ``report`` (read by the Rules pane's worker)."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS = [
        Binding("escape,q,p", "dismiss", "Close"),
        Binding("j", "scroll('down')", "Scroll down", show=False),
        Binding("k", "scroll('up')", "Scroll up", show=False),
    ]

    def __init__(self, report: Replay):
        super().__init__()
        self.report = report

    def compose(self) -> ComposeResult:
        with Vertical(id="replay-dialog"):
            yield Static("Replay: repeat corrections before and after doctrine  ·  esc closes", id="replay-title")
            with VerticalScroll(id="replay-scroll"):
                yield Static(headline(self.report), id="replay-headline")
                yield Static(replay_table(self.report), id="replay-table")
                yield Static(Text(NOTE.format(n=self.report.min_tasks), style="dim"), id="replay-note")

    def action_scroll(self, direction: str) -> None:
        scroll = self.query_one("#replay-scroll", VerticalScroll)
        if direction == "down":
            scroll.scroll_down()
        else:
            scroll.scroll_up()
