"""The replay view (``p`` in the Rules pane) on an 80x24 terminal, built
from a Replay record (no store, no model): every column, the verdict
included, is on screen; the rule ids are cut with "…", not the verdicts."""

from __future__ import annotations

from textual.app import App

from brainwork.learn.replay import FEWER, NOT_FEWER, LessonReplay, Replay, Side
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
