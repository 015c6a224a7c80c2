"""Pilot tests: the undo log pane (3) and the app's ``u`` / ``U`` keys, on a
copy of sample_vault/ (real store, real files)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from brainwork.ops import fixes
from brainwork.tui.app import BrainworkApp
from brainwork.tui.screens.undo_log import UndoLogScreen, UndoTable, format_time

from findings_support import findings_vault_config, move_to, snap_app  # tests/tui is on sys.path
from screen_support import toasts

SIZE = (120, 40)
UNTYPED = "topics/on-call-handover"  # no type: in its (empty) frontmatter


def plain(widget) -> str:
    return str(widget.render())


def notes(app) -> list[str]:
    return [t.message for t in toasts(app)]


async def test_an_operation_shows_in_the_log_and_undo_redo_work(sample_config, settle) -> None:
    path = sample_config.vault / f"{UNTYPED}.md"
    original = path.read_bytes()
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        assert app.check_action("undo", ()) is None and app.check_action("redo", ()) is None
        await pilot.press("3")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, UndoLogScreen)
        assert "No operations yet" in plain(screen.query_one("#undo-empty"))

        app.operations.run("set type", lambda c, s: fixes.set_type(c, s, UNTYPED, "topic"))
        await settle(pilot)
        assert b"type: topic" in path.read_bytes()
        table = screen.query_one(UndoTable)
        assert table.row_count == 1
        assert [str(c) for c in table.get_row_at(0)][1:3] == ["done ← u", "set-type"]
        head = plain(screen.query_one("#undo-detail-head"))
        assert f"set type of {UNTYPED}: (none) -> topic" in head
        assert f"changed  {UNTYPED}.md" in head
        assert "+type: topic" in screen.diff_text
        assert app.check_action("undo", ()) is True
        assert any("u undoes" in n for n in notes(app))

        await pilot.press("u")
        await settle(pilot)
        assert path.read_bytes() == original
        assert [str(c) for c in table.get_row_at(0)][1] == "undone ← U"
        assert app.check_action("undo", ()) is None and app.check_action("redo", ()) is True
        assert any(n.startswith("Undone: set type") for n in notes(app))

        await pilot.press("U")
        await settle(pilot)
        assert b"type: topic" in path.read_bytes()
        assert [str(c) for c in table.get_row_at(0)][1] == "done ← u"
        counts_text = plain(screen.query_one("#status-counts"))
        assert f"{app.counts.pages} pages" in counts_text

        # someone edits the file afterwards: undo refuses and names it
        edited = path.read_bytes() + b"\nA line the agent added afterwards.\n"
        path.write_bytes(edited)
        await pilot.press("u")
        await settle(pilot)
        assert path.read_bytes() == edited  # their work is not overwritten
        errors = [t for t in toasts(app) if t.severity == "error"]
        assert errors and "changed since it was applied" in errors[-1].message
        assert "nothing was done" in errors[-1].title and f"{UNTYPED}.md" in errors[-1].message
        assert app.background is None  # the progress was cleared
        assert [str(c) for c in table.get_row_at(0)][1] == "done ← u"

        # enter opens the operation's page in the graph pane
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.pane_id == "graph"
        assert app.screen.current == UNTYPED


def test_format_time() -> None:
    now = datetime(2026, 10, 1, 12, 0, tzinfo=timezone.utc)
    assert format_time((now - timedelta(seconds=5)).isoformat(), now) == "just now"
    assert format_time((now - timedelta(minutes=7)).isoformat(), now) == "7 min ago"
    assert format_time((now - timedelta(hours=3)).isoformat(), now) == "3 h ago"
    assert format_time("2026-09-01T10:00:00+00:00", now).startswith("2026-09-01")
    assert format_time("not a time", now) == "not a time"


def test_snapshot_undo_pane_after_a_fix(snap_compare, tmp_path, settle, monkeypatch) -> None:
    """A type set from the findings pane, then ``3``: the operation marked
    ``← u`` with its file and diff (times pinned)."""

    async def steps(pilot) -> None:
        await pilot.press("2")
        await settle(pilot)
        await move_to(pilot, pilot.app.screen, "untyped", "notes/scratch")
        await pilot.press("s")
        await settle(pilot)
        await pilot.press(*"topic", "enter")
        await settle(pilot)
        await pilot.press("3")

    assert snap_app(snap_compare, findings_vault_config(tmp_path), settle, steps, monkeypatch)


async def test_a_merge_is_listed_as_not_undoable_with_its_files(sample_config, settle) -> None:
    """A merge is recorded without its bytes: the pane lists it (as ``brainwork
    log`` does), its detail never reads "undone" (an undo only steps past it)
    and names the files it touched; the border says so."""
    from brainwork.ops.merge import merge_pages

    app = BrainworkApp(sample_config)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        app.operations.run("merge", lambda c, s: merge_pages(c, s, "tools/pgdump", "tools/pg-dump"))
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, UndoLogScreen)
        top = screen.query_one("#undo-top")
        assert "merges cannot be undone" in str(top.border_subtitle)
        assert "not listed" not in str(top.border_subtitle)
        table = screen.query_one(UndoTable)
        assert [str(c) for c in table.get_row_at(0)][1:3] == ["done ← u", "merge"]
        head = plain(screen.query_one("#undo-detail-head"))
        assert "cannot be undone" in head and "undone (U redoes it)" not in head
        assert "No file changed." not in head
        assert "tools/pgdump.md" in head and "their contents were not kept" in head
        merged = screen.operations[0]
        assert f"{len(merged.paths)} file" in head and len(merged.paths) >= 2

        await pilot.press("u")  # steps past the merge; nothing is reverted
        await settle(pilot)
        assert not (sample_config.vault / "tools/pgdump.md").exists()
        assert [str(c) for c in table.get_row_at(0)][1:3] == ["passed", "merge"]
        said = toasts(app)[-1]  # a warning that says what changed, not "nothing was done"
        assert said.severity == "warning" and "stepped past" in said.title and "cannot be undone" in said.message
        head = plain(screen.query_one("#undo-detail-head"))
        assert "passed" in head and "still applied" in head
        assert "undone (U redoes it)" not in head and "No file changed." not in head
        assert "tools/pgdump.md" in head
