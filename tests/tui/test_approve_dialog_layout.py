"""The approve step's dialog on its own (no store, no model): on an 80x24
terminal its buttons and its problem line stay inside the dialog (the form
scrolls instead), the evidence heading counts what is promoted and what goes
back to the inbox as boxes are toggled, each evidence row shows its
similarity to the rule at 80 columns however long its title, and a
supersession's border says which rule ctrl+s retires."""

from __future__ import annotations

from textual.app import App
from textual.widgets import Input, Static

from brainwork.tui.modals.approve_rule import ApproveRuleScreen, EvidenceChecklist

RULE = {
    "id": "rules/read-ci-log-before-rerun",
    "title": "Read the failing CI job's log before re-running it",
    "text": "When a CI job fails, read its log (gh run view --log-failed) and state the failure cause before re-running anything.",
    "why": "Repeated corrections: re-runs hid a real test bug, a race condition, a deterministic audit failure and a broken service container.",
    "apply": "Every failed CI job on any repository.",
}
EVIDENCE = [
    {"id": f"corrections/c{i}", "title": f"Correction {i} with a title long enough to be cut", "tasks": [{"title": f"Task {i}"}],
     "similarity": 0.5}
    for i in range(5)
]
OLDER = {"id": "rules/backup-and-dry-run-before-migration", "title": "Back up", "text": "Back up first. " * 6, "why": "Data was lost. " * 6}


class DialogApp(App):
    def __init__(self, older: dict | None = None) -> None:
        super().__init__()
        self.older = older

    def on_mount(self) -> None:
        self.push_screen(ApproveRuleScreen(RULE, EVIDENCE, older=self.older))


def _inside(inner, outer) -> bool:
    return (outer.y <= inner.y and inner.y + inner.height <= outer.y + outer.height
            and outer.x <= inner.x and inner.x + inner.width <= outer.x + outer.width)


async def test_buttons_and_problem_stay_in_the_dialog_at_80x24() -> None:
    for older in (None, OLDER):
        app = DialogApp(older)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            screen = app.screen
            dialog = screen.query_one("#approve-dialog").region
            assert _inside(screen.query_one("#approve-ok").region, dialog)
            assert _inside(screen.query_one("#approve-cancel").region, dialog)
            screen.query_one("#approve-title", Input).value = ""
            await pilot.press("ctrl+s")
            await pilot.pause()
            problem = screen.query_one("#approve-problem", Static)
            assert "Title cannot be empty" in str(problem.render())
            assert _inside(problem.region, dialog)
            buttons = screen.query_one("#approve-buttons").region
            assert problem.region.y + problem.region.height <= buttons.y  # above the buttons, not under them
            assert app.screen is screen  # nothing was approved


async def test_the_evidence_heading_counts_kept_and_sent_back() -> None:
    app = DialogApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        head = app.screen.query_one("#approve-evidence-head", Static)
        assert "5 of 5 promoted · 0 back to the inbox" in str(head.render())
        checklist = app.screen.query_one(EvidenceChecklist)
        checklist.focus()
        await pilot.press("space")
        await pilot.press("down", "space")
        await pilot.pause()
        assert "3 of 5 promoted · 2 back to the inbox" in str(head.render())
        await pilot.press("space")
        await pilot.pause()
        assert "4 of 5 promoted · 1 back to the inbox" in str(head.render())


async def test_a_supersession_says_which_rule_ctrl_s_retires() -> None:
    app = DialogApp(OLDER)
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        subtitle = app.screen.query_one("#approve-dialog").border_subtitle
        assert "ctrl+s retires backup-and-dry-run-before-migration" in subtitle
    app = DialogApp()
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        assert "ctrl+s approves" in app.screen.query_one("#approve-dialog").border_subtitle


async def test_every_evidence_row_shows_its_similarity_at_80x24() -> None:
    evidence = [
        {"id": f"corrections/c{i}", "title": f"Correction {i} whose title runs well past what eighty columns can show",
         "tasks": [{"title": f"A task title that is long as well {i}"}], "similarity": 0.41 + i / 100}
        for i in range(5)
    ] + [{"id": "corrections/linked", "title": "Linked by hand", "tasks": [], "similarity": None}]

    class Dialog(App):
        def on_mount(self) -> None:
            self.push_screen(ApproveRuleScreen(RULE, evidence))

    app = Dialog()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        checklist = app.screen.query_one(EvidenceChecklist)
        app.screen.query_one("#approve-scroll").scroll_end(animate=False)
        await pilot.pause()
        lines = [checklist.render_line(y).text for y in range(len(evidence))]
        for i in range(5):
            assert f"▐✓▌ {0.41 + i / 100:.2f}  Correction {i} " in lines[i], lines[i]
            assert lines[i].endswith("…")  # the title is what is cut
        assert "▐✓▌   —   Linked by hand" in lines[5], lines[5]
        head = str(app.screen.query_one("#approve-evidence-head", Static).render())
        assert "the figure: similarity to the rule" in head
