"""The one-line replay summary of `brainwork rules` and `brainwork replay`:
a side without tasks reads as the dash and "no tasks", never as a rate
over ``0/0``."""

from __future__ import annotations

from brainwork.learn.replay import FEWER, NO_FIGURE, TOO_LITTLE, LessonReplay, Side, summary_line


def _lesson(before: Side, after: Side | None, verdict: str) -> dict:
    return LessonReplay(rule="rules/r", title="r", status="active", activated="2026-09-20", retired=None,
                        corrections=[], evidence=[], approved_from=[], task_class=[], before=before, after=after,
                        repeats=0, repeats_in_room=0, last_task=None, verdict=verdict).to_json()


def test_both_sides_with_tasks() -> None:
    lesson = _lesson(Side([f"b{i}" for i in range(5)], ["b0", "b1", "b2", "b3"]), Side([f"a{i}" for i in range(6)]), FEWER)
    assert summary_line(lesson) == f"repeats 0.80 → 0.00 (4/5 → 0/6 tasks): {FEWER}"


def test_a_side_without_tasks_is_the_dash() -> None:
    lesson = _lesson(Side([f"b{i}" for i in range(5)], ["b0", "b1"]), Side(), TOO_LITTLE)
    line = summary_line(lesson)
    assert line == f"repeats 0.40 → {NO_FIGURE} (2/5 tasks → no tasks): {TOO_LITTLE}"
    assert "0/0" not in line and "–" not in line  # one dash, the em dash the workbench shows
    assert summary_line(_lesson(Side(), None, "not active yet")) == f"repeats {NO_FIGURE} (no tasks so far): not active yet"

