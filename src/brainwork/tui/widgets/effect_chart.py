"""A small bar chart of a rule's replay figures: the share of tasks of its
kind that got its lesson's correction again, before and after the rule
became active (:mod:`brainwork.learn.replay`), drawn with textual-plotext.

Two horizontal bars, ``before`` and ``after``, each labelled with its task
count; the ``after`` bar is green with fewer repeats after activation, red
with no fewer, grey when there is no verdict (too little data). The counts
and the verdict in words sit beside it (the Rules pane); :func:`effect_title`
gives the change as a percentage.
"""

from __future__ import annotations

import math

from textual_plotext import PlotextPlot


def effect_title(before: float | None, after: float | None) -> str:
    """The chart's title: the change in the repeat rate, in words."""
    if before is None or after is None:
        return "repeat rate"
    if before == 0:
        return "repeat rate" if after == 0 else "repeat rate: up from 0"
    change = (after - before) / before * 100
    return f"repeat rate: {change:+.0f}%"


def axis_end(rates: list[float]) -> float:
    """The end of the rate axis: 1.1 x the largest rate (0.5 at least),
    rounded up to a tenth and at most 1.0."""
    return min(1.0, math.ceil(max(rates + [0.5]) * 11 - 1e-9) / 10)


class EffectChart(PlotextPlot):
    """Repeat rate before/after a rule's activation.

    Call :meth:`show_effect` with the rates and task counts of
    :class:`brainwork.learn.replay.LessonReplay`'s sides; :meth:`clear_effect`
    when the selected rule has no figures (not active).
    """

    DEFAULT_CSS = """
    EffectChart {
        width: 1fr;
        height: 8;
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        #: What is drawn: (before, after, tasks_before, tasks_after, fewer) or None.
        self.figures: tuple[float | None, float | None, int, int, bool | None] | None = None

    def show_effect(
        self,
        before: float | None,
        after: float | None,
        tasks_before: int,
        tasks_after: int,
        fewer: bool | None,
    ) -> None:
        """Draw the two bars (a side without tasks is drawn as 0 and labelled ``no tasks``)."""
        self.figures = (before, after, tasks_before, tasks_after, fewer)
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        labels = [
            f"after ({tasks_after} task{'s' if tasks_after != 1 else ''})" if tasks_after else "after (no tasks)",
            f"before ({tasks_before} task{'s' if tasks_before != 1 else ''})" if tasks_before else "before (no tasks)",
        ]
        values = [after or 0.0, before or 0.0]
        after_colour = "green" if fewer else "red" if fewer is False else "gray"
        # One call per bar, at numeric positions (1 = bottom), so each has
        # its own colour; string labels would put both bars at position 1.
        plt.bar([1], [values[1]], orientation="horizontal", width=0.6, color="blue")
        plt.bar([2], [values[0]], orientation="horizontal", width=0.6, color=after_colour)
        plt.yticks([1, 2], [labels[1], labels[0]])
        # Headroom past the longer bar, rounded up to a tenth, but never past
        # 1.00: a rate is at most 1 and an axis to 1.10 shows rates that
        # cannot be.
        plt.xlim(0, axis_end(values))
        self.refresh()

    def clear_effect(self) -> None:
        """Draw nothing."""
        self.figures = None
        self.plt.clear_data()
        self.plt.clear_figure()
        self.refresh()
