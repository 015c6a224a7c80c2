"""The replay chart of the Rules pane on its own (no store, no model): its
rate axis ends at 1.00 at most, since a repeat rate is at most 1, and
leaves room past a shorter bar."""

from __future__ import annotations

from textual.app import App, ComposeResult

from brainwork.tui.widgets.effect_chart import EffectChart, axis_end

from screen_support import screen_text  # tests/tui is on sys.path (pytest prepend mode)


class ChartApp(App):
    def compose(self) -> ComposeResult:
        yield EffectChart()


async def _axis(before: float, after: float) -> str:
    app = ChartApp()
    async with app.run_test(size=(80, 12)) as pilot:
        app.query_one(EffectChart).show_effect(before, after, 5, 6, after < before)
        await pilot.pause()
        lines = screen_text(app)
    return next(line for line in reversed(lines) if "0.00" in line)


async def test_a_rate_of_one_ends_the_axis_at_one() -> None:
    ticks = (await _axis(1.0, 0.2)).split()
    assert ticks[0] == "0.00" and ticks[-1] == "1.00", ticks
    assert all(float(t) <= 1.0 for t in ticks)


async def test_a_smaller_rate_leaves_room_to_the_next_tenth() -> None:
    assert (await _axis(0.8, 0.0)).split()[-1] == "0.90"
    assert [axis_end([r]) for r in (0.0, 0.5, 0.6, 0.9, 1.0)] == [0.6, 0.6, 0.7, 1.0, 1.0]
