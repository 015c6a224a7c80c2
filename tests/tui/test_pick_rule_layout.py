"""The rule picker on an 80x24 terminal (no store, no model): each rule is
its title line and one text line cut with "…" (a wrapped text line lost its
indent and read like another rule), and the "enter picks · esc cancels"
hint stays inside the dialog however many rules there are."""

from __future__ import annotations

from textual.app import App

from brainwork.tui.modals.pick_rule import PickRuleScreen

from screen_support import screen_text  # tests/tui is on sys.path (pytest prepend mode)

TEXT = ("Before any schema or data change on a production database, take a backup of the affected tables, "
        "verify it can be restored")


def _rules(n: int) -> list[dict]:
    return [{"id": f"rules/r{i}", "title": f"Rule {i} with a title", "status": "active", "score": 0.5, "text": TEXT}
            for i in range(n)]


class PickApp(App):
    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def on_mount(self) -> None:
        self.push_screen(PickRuleScreen("Link corrections/x to a rule", _rules(self.n),
                                        note="Closest first (cosine similarity to the correction)."))


async def test_each_rule_is_two_lines_and_the_hint_stays_at_80x24() -> None:
    for n in (4, 12):
        app = PickApp(n)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            lines = screen_text(app)
            bottom = max(i for i, line in enumerate(lines) if "╰" in line)
            assert "enter picks · esc cancels" in lines[bottom - 1], "\n".join(lines)
            titles = [i for i, line in enumerate(lines) if "Rule " in line and "(active · 0.50)" in line]
            assert len(titles) >= 3
            for i in titles[:-1]:  # the last one may be cut by the list's edge  # the text under each title is one indented line, then the next title
                assert lines[i + 1].lstrip("│ ").startswith("Before any schema") and "…" in lines[i + 1]
                assert lines[i + 1].index("Before") > lines[i].index("Rule ")
                if i + 2 < bottom - 2:
                    assert "Rule " in lines[i + 2], "\n".join(lines)
