"""The replay view (``p`` in the Rules pane) on an 80x24 terminal, built
from a Replay record (no store, no model): every column, the verdict
included, is on screen; the rule ids are cut with "…", not the verdicts.
A side without tasks and a lesson without repeats show the dash, here and
in the Rules pane's figures, never ``0/0``."""

from __future__ import annotations

from textual.app import App

from brainwork.learn.replay import FEWER, NOT_FEWER, TOO_LITTLE, LessonReplay, Replay, Side
from brainwork.tui.modals.replay import ReplayScreen

from screen_support import screen_text  # tests/tui is on sys.path (pytest prepend mode)


def _lesson(rule: str, status: str, verdict: str, after: bool = True) -> LessonReplay:
    before = Side(tasks=[f"tasks/b{i}" for i in range(5)], repeated=["tasks/b0", "tasks/b1"])
    return LessonReplay(rule=rule, title=rule, status=status, activated="2026-09-20", retired=None, corrections=[],
                        evidence=[], approved_from=[], task_class=[], before=before,
                        after=Side(tasks=[f"tasks/a{i}" for i in range(6)]) if after else None,
                        repeats=5, repeats_in_room=4, last_task="2026-10-28", verdict=verdict)


REPORT = Replay(tasks=45, undated_tasks=0, corrections=23, repeats=[], recall="recomputed", embedder="m", min_tasks=3,
                lessons=[_lesson("rules/backup-and-dry-run-before-migration", "active", NOT_FEWER),
                         _lesson("rules/read-ci-log-before-rerun", "candidate", "not active yet", after=False),
                         _lesson("rules/verify-full-cert-chain", "active", FEWER)])


class ReplayApp(App):
    def on_mount(self) -> None:
        self.push_screen(ReplayScreen(REPORT))


async def test_the_verdict_column_is_on_screen_at_80x24() -> None:
    app = ReplayApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = "\n".join(screen_text(app))
        header = next(line for line in text.splitlines() if "lesson (rule)" in line)
        for column in ("status", "before", "after", "in room", "verdict"):
            assert column in header, header
        assert "backup-and-dry" in text and "…" in text  # the long rule id is cut
        assert "candidate" in text and "0.40 2/5" in text and "0.00 0/6" in text
        words = " ".join(text.split())
        assert "fewer" in words and "not active" in words


async def test_a_side_without_tasks_is_a_dash_not_zero_of_zero() -> None:
    lesson = _lesson("rules/approved-today", "active", TOO_LITTLE)
    lesson.after, lesson.repeats, lesson.repeats_in_room = Side(), 0, 0
    report = Replay(tasks=5, undated_tasks=0, corrections=2, repeats=[], recall="recomputed", embedder="m",
                    min_tasks=3, lessons=[lesson])

    class App1(App):
        def on_mount(self) -> None:
            self.push_screen(ReplayScreen(report))

    app = App1()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        row = next(line for line in screen_text(app) if "approved-today" in line)
        assert "0.40 2/5" in row and "0/0" not in row
        assert row.split("0.40 2/5", 1)[1].split()[:2] == ["—", "—"], row  # after and in room: the dash alone


def test_the_rules_pane_says_no_tasks_yet() -> None:
    from brainwork.tui.screens.rules import effect_numbers

    lesson = _lesson("rules/approved-today", "active", TOO_LITTLE)
    lesson.after, lesson.repeats, lesson.repeats_in_room = Side(), 0, 0
    text = effect_numbers({"replay": lesson.to_json(), "activated": "2026-12-04"}).plain
    assert "before  0.40  2 of 5 tasks" in text
    assert "after   —  no tasks yet" in text and "in the room: no repeats" in text and "0 of 0" not in text
