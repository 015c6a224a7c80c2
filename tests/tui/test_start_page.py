"""The workbench's start page: the newest task by a valid ``created`` date."""

from __future__ import annotations

from brainwork.store.graph import PageRow
from brainwork.tui.app import BrainworkApp
from brainwork.tui.screens.graph import GraphScreen, start_page


def task(id_: str, created: str | None) -> PageRow:
    return PageRow(id=id_, path=f"{id_}.md", kind="page", title=id_, type="task", status=None,
                   aliases=[], tags=[], created=created)


def test_only_calendar_dates_count() -> None:
    pages = [
        task("tasks/old", "2026-09-02"),
        task("tasks/new", "2026-12-03T09:15Z"),
        task("odd/bad-month", "2026-13-45"),
        task("odd/word", "yesterday"),
        task("odd/compact", "20261231"),
        task("odd/none", None),
    ]
    assert start_page(pages) == "tasks/new"
    assert start_page([task("odd/bad-month", "2026-13-45"), task("tasks/old", "2026-09-02")]) == "tasks/old"
    # with no valid date at all a task still opens (the last id, as before)
    assert start_page([task("a", "2026-13-45"), task("b", None)]) == "b"


async def test_a_task_with_an_invalid_date_does_not_open_first(fresh_sample_config, settle) -> None:
    bad = fresh_sample_config.vault / "odd" / "bad-date.md"
    bad.parent.mkdir(exist_ok=True)
    bad.write_text("---\ntype: task\ntitle: dates\ncreated: 2026-13-45\n---\nA task with no real date.\n")
    app = BrainworkApp(fresh_sample_config)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GraphScreen)
        assert "odd/bad-date" in {p.id for p in app.pages}
        assert screen.current != "odd/bad-date"
        assert screen.current == start_page([p for p in app.pages if p.id != "odd/bad-date"])
