"""Pilot tests: the merge confirmation modal, opened with ``m`` on the
duplicate pair tools/pg-dump + tools/pgdump of sample_vault/."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Button

from brainwork.ops.changeset import history
from brainwork.tui.app import BrainworkApp
from brainwork.tui.modals.merge_confirm import MergeConfirmScreen

from findings_support import SIZE, codes_and_pages, findings_vault_config, move_to, open_findings, snap_app
from screen_support import toasts

KEPT = "tools/pg-dump"  # 9 pages link to it
MERGED = "tools/pgdump"  # 2 links from one task


def snapshot(vault: Path) -> dict[str, bytes]:
    return {str(p.relative_to(vault)): p.read_bytes() for p in sorted(vault.rglob("*.md"))}


async def open_merge(pilot, settle) -> MergeConfirmScreen:
    screen = await open_findings(pilot, settle)
    pair = next(f for f in screen.findings if f.code == "duplicate" and {f.page, f.other} == {KEPT, MERGED})
    await move_to(pilot, screen, "duplicate", pair.page)
    await pilot.press("m")
    await settle(pilot)
    modal = pilot.app.screen
    assert isinstance(modal, MergeConfirmScreen)
    return modal


def text_of(modal: MergeConfirmScreen) -> str:
    return "\n".join(str(w.render()) for w in modal.query("#merge-summary, #merge-warning, #merge-details"))


async def test_cancel_is_the_default_and_nothing_changes(sample_config, settle) -> None:
    before = snapshot(sample_config.vault)
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SIZE) as pilot:
        modal = await open_merge(pilot, settle)
        # the page fewer links point to is merged into the other
        assert (modal.plan.source, modal.plan.target) == (MERGED, KEPT)
        assert app.focused is modal.query_one("#merge-cancel", Button)
        text = text_of(modal)
        assert "pg_dump (Postgres backup)" in text and "tools/pgdump.md" in text and "tools/pg-dump.md" in text
        assert "2 links redirected in 1 other file" in text
        assert f"{len(modal.plan.conflicts)} conflict" in text and "created" in text
        assert "cannot be undone" in text
        assert modal.plan.side_by_side()  # both pages side by side

        await pilot.press("enter")  # enter on the focused Cancel
        await settle(pilot)
        assert not isinstance(app.screen, MergeConfirmScreen)
        assert snapshot(sample_config.vault) == before

        modal = await open_merge(pilot, settle)
        await pilot.press("s")  # the other direction
        await settle(pilot)
        swapped = app.screen
        assert isinstance(swapped, MergeConfirmScreen)
        assert (swapped.plan.source, swapped.plan.target) == (KEPT, MERGED)
        assert swapped.plan.links_rewritten > modal.plan.links_rewritten
        await pilot.press("escape")
        await settle(pilot)
        assert snapshot(sample_config.vault) == before


async def test_confirm_merges_the_pair_and_undo_says_it_cannot_be_undone(sample_config, settle) -> None:
    vault = sample_config.vault
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        modal = await open_merge(pilot, settle)
        await pilot.press("tab")
        assert app.focused is modal.query_one("#merge-confirm", Button)
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert not (vault / f"{MERGED}.md").exists()
        merged = (vault / f"{KEPT}.md").read_text(encoding="utf-8")
        assert "## Merged from pg_dump (Postgres backup)" in merged
        task = (vault / "tasks" / "2026-10-05-migrate-orders-db-pg16.md").read_text(encoding="utf-8")
        assert "[[tools/pgdump]]" not in task and "[[tools/pg-dump]]" in task
        assert ("duplicate", KEPT) not in codes_and_pages(screen) and ("duplicate", MERGED) not in codes_and_pages(screen)
        assert any("cannot be undone" in t.message for t in toasts(app))
        with app.store.use() as store:
            merges = [op for op in history(store) if op.kind == "merge"]
            assert len(merges) == 1 and not merges[0].reversible  # logged without its bytes
        assert not any(p.id == MERGED for p in app.pages)
        app.clear_notifications()
        await pilot.press("u")
        await settle(pilot)
        assert any("cannot be undone" in t.message for t in toasts(app))
        assert not (vault / f"{MERGED}.md").exists()


def test_snapshot_merge_modal(snap_compare, tmp_path, settle) -> None:
    """``m`` on the duplicate pair of tests/tui/findings_vault/: both pages,
    counts, the conflict, the warning, side by side; Cancel focused."""

    async def steps(pilot) -> None:
        await pilot.press("2")
        await settle(pilot)
        await move_to(pilot, pilot.app.screen, "duplicate", "tools/pg-dump")
        await pilot.press("m")

    assert snap_app(snap_compare, findings_vault_config(tmp_path), settle, steps)
