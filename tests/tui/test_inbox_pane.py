"""Pilot tests of the correction inbox (pane 4) on a copy of sample_vault/
with the real embedding model (see learning_support.py)."""

from __future__ import annotations

from textual.widgets import Input

from brainwork.store import learning as q
from brainwork.tui.app import BrainworkApp
from brainwork.tui.modals.pick_rule import PickRuleScreen, RuleOptions
from brainwork.tui.modals.reason import ReasonScreen
from brainwork.tui.screens.graph import GraphScreen
from brainwork.tui.screens.inbox import InboxScreen, InboxTable
from brainwork.vault.edit import frontmatter_fields

from learning_support import open_inbox, to_correction  # tests/tui is on sys.path (pytest prepend mode)

SIZE = (120, 40)
NEWEST = "corrections/2026-10-27-unapproved-customer-quote"
EMPTY_DUMP = "corrections/2026-10-26-empty-dump-file"  # recurs with an active rule: link it
BACKUP_RULE = "rules/backup-and-dry-run-before-migration"


def fields(learning_config, rel: str) -> dict:
    return frontmatter_fields((learning_config.vault / rel).read_text(encoding="utf-8"))


async def test_inbox_lists_open_corrections_newest_first(learning_config, settle) -> None:
    app = BrainworkApp(learning_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_inbox(pilot, settle)
        with app.store.use() as store:
            unresolved = [c for c in q.corrections(store) if c["status"] in ("open", "clustered", None)]
        assert len(unresolved) == 15
        ids = [i.id for i in screen.items]
        assert sorted(ids) == sorted(c["id"] for c in unresolved)
        created = [i.created for i in screen.items]
        assert created == sorted(created, reverse=True)
        assert ids[0] == NEWEST
        assert screen.query_one(InboxTable).row_count == 15
        assert app.focused is screen.query_one(InboxTable)
        # the detail shows wrong / correct / why and the task of the highlighted one
        head = str(screen.query_one("#inbox-detail-head").render())
        assert "Customer quote in the case study was not approved" in head
        first = screen.items[0]
        assert first.wrong and first.correct and first.why
        assert [t.id for t in first.tasks] == ["tasks/2026-10-27-case-study-northwind"] and first.tasks[0].title
        # a clustered correction names the candidate rule holding it
        ci = next(i for i in screen.items if i.id == "corrections/2026-09-15-retry-masked-race")
        assert [r.id for r in ci.rules] == ["rules/read-ci-log-before-rerun"]
        assert screen.query_one("#inbox-top").border_title == "Correction inbox · 7 open · 8 clustered"
        # the model loaded in a worker; the status bar does not warn
        assert app.embedder is not None and not app.embedder[1]
        assert not screen.query_one("#status-model").display


async def test_dismiss_asks_a_reason_and_undo_brings_it_back(learning_config, settle) -> None:
    app = BrainworkApp(learning_config)
    rel = "corrections/2026-10-21-wrong-kube-context.md"
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_inbox(pilot, settle)
        await to_correction(pilot, screen, rel[:-3])
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, ReasonScreen)
        app.screen.query_one(Input).value = "one-off: the cluster context was a typo"
        await pilot.press("enter")
        await settle(pilot)
        assert fields(learning_config, rel)["status"] == "dismissed"
        assert fields(learning_config, rel)["dismissed_reason"] == "one-off: the cluster context was a typo"
        assert rel[:-3] not in [i.id for i in screen.items]
        assert len(screen.items) == 14
        # the cursor stays on the row (now the next correction)
        assert screen.highlighted_id == "corrections/2026-10-17-industry-stat-no-link"

        await pilot.press("u")
        await settle(pilot)
        assert fields(learning_config, rel)["status"] == "open"
        assert "dismissed_reason" not in fields(learning_config, rel)
        assert len(screen.items) == 15


async def test_cancelled_dismiss_changes_nothing(learning_config, settle) -> None:
    app = BrainworkApp(learning_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_inbox(pilot, settle)
        before = (learning_config.vault / f"{NEWEST}.md").read_bytes()
        await pilot.press("d")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, InboxScreen)
        assert (learning_config.vault / f"{NEWEST}.md").read_bytes() == before
        assert len(screen.items) == 15


async def test_link_to_a_rule_picks_from_active_rules(learning_config, settle) -> None:
    app = BrainworkApp(learning_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_inbox(pilot, settle)
        await to_correction(pilot, screen, EMPTY_DUMP)
        await pilot.press("l")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, PickRuleScreen)
        options = modal.query_one(RuleOptions)
        listed = [options.get_option_at_index(i).id for i in range(options.option_count)]
        # the closest rules first (cosine similarity to the correction): the backup rule
        assert listed[0] == BACKUP_RULE
        assert "cosine similarity" in modal.note  # the order is explained
        assert set(listed) == {"rules/verify-full-cert-chain", BACKUP_RULE,
                               "rules/read-ci-log-before-rerun", "rules/cite-sources-in-posts"}
        while options.get_option_at_index(options.highlighted).id != BACKUP_RULE:
            await pilot.press("j")
        await pilot.press("enter")
        await settle(pilot)
        assert fields(learning_config, f"{EMPTY_DUMP}.md")["status"] == "promoted"
        assert f"[[{EMPTY_DUMP}]]" in fields(learning_config, f"{BACKUP_RULE}.md")["promoted_from"]
        assert EMPTY_DUMP not in [i.id for i in screen.items]
        with app.store.use() as store:
            assert EMPTY_DUMP in q.rule_evidence(store)[BACKUP_RULE]


async def test_enter_opens_the_task_neighbourhood(learning_config, settle) -> None:
    app = BrainworkApp(learning_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_inbox(pilot, settle)
        task = screen.items[0].tasks[0].id
        await pilot.press("enter")
        await settle(pilot)
        assert app.current_mode == "graph"
        graph = app.screen
        assert isinstance(graph, GraphScreen)
        assert graph.current == task


async def test_consolidate_from_the_inbox_assigns_clusters(learning_config, settle) -> None:
    app = BrainworkApp(learning_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_inbox(pilot, settle)
        assert all(i.cluster is None for i in screen.items)
        await pilot.press("c")
        await settle(pilot)
        by_id = {i.id: i for i in screen.items}
        # backup before migration recurs in two tasks and matches the active rule
        cluster = by_id[EMPTY_DUMP].cluster
        assert cluster is not None and cluster["action"] == "evidence" and cluster["rule"] == BACKUP_RULE
        assert by_id["corrections/2026-10-05-schema-only-dump"].cluster["rule"] == BACKUP_RULE
        # the CI-log corrections went to the existing candidate
        ci = by_id["corrections/2026-10-23-healthcheck-in-output"].cluster
        assert ci["candidate"] == "rules/read-ci-log-before-rerun"
        assert fields(learning_config, f"{EMPTY_DUMP}.md")["status"] == "clustered"
        assert app.background is None
        assert "consolidating" not in str(screen.query_one("#inbox-top").border_subtitle)  # no phase shown
        # the consolidation is one undoable operation
        await pilot.press("u")
        await settle(pilot)
        assert fields(learning_config, f"{EMPTY_DUMP}.md")["status"] == "open"


async def test_lexical_fallback_is_said_plainly(fresh_sample_config, settle, monkeypatch) -> None:
    monkeypatch.setenv("BRAINWORK_EMBEDDER", "lexical")
    app = BrainworkApp(fresh_sample_config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        label = app.screen.query_one("#status-model")
        assert label.display
        assert "lexical" in str(label.render())
        assert label.has_class("-lexical")


# -- SVG snapshots (review changes in the pytest HTML report; accept with --snapshot-update) --
def test_inbox_pane_snapshot(snap_compare, learning_config, settle) -> None:
    """15 open corrections newest first; the newest in full below."""

    async def run_before(pilot) -> None:
        await open_inbox(pilot, settle)

    assert snap_compare(BrainworkApp(learning_config), terminal_size=SIZE, run_before=run_before)


def test_inbox_pane_after_consolidation_snapshot(snap_compare, learning_config, settle) -> None:
    """After ``c``: clusters and the rules they went to, on the correction
    consolidation proposed as evidence for an active rule."""

    async def run_before(pilot) -> None:
        screen = await open_inbox(pilot, settle)
        await pilot.press("c")
        await settle(pilot)
        await to_correction(pilot, screen, EMPTY_DUMP)
        await settle(pilot)
        pilot.app.clear_notifications()
        await settle(pilot)

    assert snap_compare(BrainworkApp(learning_config), terminal_size=SIZE, run_before=run_before)
