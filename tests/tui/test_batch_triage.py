"""Pilot tests of batch triage (marks in the inbox and the findings, one
operation for all marked rows, one ``u`` undoes it), of panes that show
their own operation at once (the Rules and Inbox panes before their re-read
lands), of the review-queue pane and of confirming a proposed correction.

They run on a copy of sample_vault/ with the real embedding model
(learning_support.py) and assert on what the screen shows (its text as
exported) and on the messages the panes post.
"""

from __future__ import annotations

import re
import threading

from textual.widgets import Input

from brainwork.learn.capture import propose_correction
from brainwork.ops import changeset
from brainwork.store import Store
from brainwork.tui.app import BrainworkApp
from brainwork.tui.modals.confirm_correction import ConfirmCorrectionScreen
from brainwork.tui.modals.pick_rule import PickRuleScreen, RuleOptions
from brainwork.tui.modals.prompts import TextPrompt
from brainwork.tui.modals.reason import ReasonScreen
from brainwork.tui.screens import inbox as inbox_module
from brainwork.tui.screens import rules as rules_module
from brainwork.tui.screens.dream import DreamScreen, ProposalDecided
from brainwork.tui.screens.findings import FindingsResolved, FindingsScreen
from brainwork.tui.screens.inbox import CorrectionsTriaged, InboxScreen
from brainwork.tui.screens.rules import RulesDecided, RulesScreen
from brainwork.vault.edit import frontmatter_fields

from learning_support import show_pane, to_correction  # tests/tui is on sys.path (pytest prepend mode)
from screen_support import shown_text

SIZE = (120, 40)
TASK = "tasks/2026-09-02-renew-cert-billing-api"
CI = "rules/read-ci-log-before-rerun"


def vault_bytes(rules_config) -> dict[str, bytes]:
    return {str(p.relative_to(rules_config.vault)): p.read_bytes() for p in rules_config.vault.rglob("*.md")
            if ".brainwork" not in p.parts}


def fields(rules_config, page: str) -> dict:
    return frontmatter_fields((rules_config.vault / f"{page}.md").read_text(encoding="utf-8"))


async def wait_for(pilot, predicate, rounds: int = 400) -> None:
    """Let the app run until ``predicate()`` holds (no settle: a test may
    hold a worker on purpose)."""
    for _ in range(rounds):
        if predicate():
            return
        await pilot.pause(0.02)
    raise AssertionError("the condition never held")


class Gate:
    """Wraps a read function: after ``free`` calls, further calls wait
    until :meth:`release` (a re-read that lands late)."""

    def __init__(self, fn, free: int):
        self.fn = fn
        self.free = free
        self.calls = 0
        self.event = threading.Event()

    def __call__(self, *args, **kwargs):
        self.calls += 1
        if self.calls > self.free:
            self.event.wait(60)
        return self.fn(*args, **kwargs)

    def release(self) -> None:
        self.event.set()


# -- the inbox -------------------------------------------------------------------------
async def test_batch_dismiss_is_one_operation_and_one_undo_restores_all(rules_config, settle) -> None:
    before = vault_bytes(rules_config)
    messages = []
    app = BrainworkApp(rules_config)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        screen = await show_pane(pilot, settle, "4", InboxScreen)
        first = [screen.items[i].id for i in range(4)]
        # space marks the row and moves on to the next; v marks from the
        # last mark to the cursor
        await pilot.press("space")
        await pilot.press("j")
        await pilot.press("v")
        await settle(pilot)
        text = shown_text(app)
        assert "3 marked" in text
        assert text.count("● ") == 3
        await pilot.press("d")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, ReasonScreen) and "3 marked" in modal.title_text
        modal.query_one(Input).value = "one-offs"
        await pilot.press("enter")
        await settle(pilot)
        triaged = [m for m in messages if isinstance(m, CorrectionsTriaged)]
        assert triaged and set(triaged[-1].ids) == set(first[:3])
        for cid in first[:3]:
            assert fields(rules_config, cid)["status"] == "dismissed"
        assert fields(rules_config, first[3])["status"] != "dismissed"
        text = shown_text(app)
        assert "marked" not in text.splitlines()[1]
        with app.store.use() as store:
            newest = changeset.history(store, limit=1)[0]
        assert newest.kind == "dismiss-corrections" and len(newest.paths) == 3

        await pilot.press("u")  # ONE undo brings every one of them back
        await settle(pilot)
        assert vault_bytes(rules_config) == before
        assert [i.id for i in screen.items[:4]] == first


async def test_inbox_header_counts_states_apart(rules_config, settle) -> None:
    propose_correction(rules_config, {"title": "Proposed: no, ask first", "wrong": "no, ask first", "corrects": TASK,
                                      "session": "s-9", "turn": "1", "created": "2026-11-30"})
    app = BrainworkApp(rules_config)
    async with app.run_test(size=SIZE) as pilot:
        await show_pane(pilot, settle, "4", InboxScreen)
        # sample_vault: 7 open and 8 clustered corrections, and the proposal
        assert "Correction inbox · 7 open · 8 clustered · 1 proposed" in shown_text(app)


async def test_inbox_shows_a_dismissal_before_its_reread_lands(rules_config, settle, monkeypatch) -> None:
    messages = []
    app = BrainworkApp(rules_config)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        screen = await show_pane(pilot, settle, "4", InboxScreen)
        gate = Gate(inbox_module.inbox_view, free=0)
        monkeypatch.setattr(inbox_module, "inbox_view", gate)
        victim = screen.items[0]
        await pilot.press("d")
        await settle(pilot)
        await pilot.press("enter")  # no reason: optional
        await wait_for(pilot, lambda: any(isinstance(m, CorrectionsTriaged) for m in messages))
        await pilot.pause()
        assert gate.calls <= 1 and not gate.event.is_set()  # the re-read is still held
        assert victim.title[:20] not in shown_text(app)
        assert "Correction inbox · 6 open · 8 clustered" in shown_text(app)
        gate.release()
        await settle(pilot)
        assert "Correction inbox · 6 open · 8 clustered" in shown_text(app)


# -- the rules pane at once --------------------------------------------------------------
async def test_rules_pane_shows_a_rejection_at_once(rules_config, settle, monkeypatch) -> None:
    messages = []
    app = BrainworkApp(rules_config)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        screen = await show_pane(pilot, settle, "5", RulesScreen)
        assert screen.current == CI
        # From now on every re-read is held: only the operation's result can
        # make the pane show the rejection.
        gate = Gate(rules_module.read_rules_view, free=0)
        monkeypatch.setattr(rules_module, "read_rules_view", gate)
        await pilot.press("r")
        await settle(pilot)
        app.screen.query_one(Input).value = "too broad"
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(isinstance(m, RulesDecided) for m in messages))
        await pilot.pause()
        assert not gate.event.is_set()
        text = shown_text(app)
        assert "Rules · 1 candidate" in text
        assert "Rejected(2)" in text.replace(" ", "")
        assert "cite-sources-in-posts · candidate" in text  # the cursor moved on to the next candidate
        assert fields(rules_config, CI)["status"] == "rejected"
        gate.release()
        await settle(pilot)
        text = shown_text(app)
        assert "Rules · 1 candidate" in text and "Rejected(2)" in text.replace(" ", "")


async def test_rules_pane_shows_an_approval_at_once(rules_config, settle, monkeypatch) -> None:
    messages = []
    app = BrainworkApp(rules_config)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        await show_pane(pilot, settle, "5", RulesScreen)
        gate = Gate(rules_module.read_rules_view, free=0)
        monkeypatch.setattr(rules_module, "read_rules_view", gate)
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: any(isinstance(m, RulesDecided) for m in messages))
        await pilot.pause()
        assert not gate.event.is_set()
        text = shown_text(app).replace(" ", "")
        assert "Active(3)" in text and "Candidates(1)" in text
        assert fields(rules_config, CI)["status"] == "active"
        gate.release()
        await settle(pilot)
        assert "Active(3)" in shown_text(app).replace(" ", "")


# -- the findings ----------------------------------------------------------------------
async def _cursor_to_key(pilot, screen: FindingsScreen, key: str) -> None:
    for _ in range(80):
        if screen.current is not None and screen.current.key == key:
            return
        await pilot.press("j")
    raise AssertionError(f"{key} not in the findings list")


async def test_batch_fix_applies_suggested_fixes_in_one_undoable_operation(rules_config, settle) -> None:
    before = vault_bytes(rules_config)
    messages = []
    app = BrainworkApp(rules_config)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        screen = await show_pane(pilot, settle, "2", FindingsScreen)
        untyped = [f for f in screen.findings if f.code == "untyped" and f.target]
        diary = [f for f in screen.findings if f.code == "diary-title"][:1]
        wanted = untyped + diary
        assert len(wanted) >= 2
        for f in wanted:
            await _cursor_to_key(pilot, screen, f.key)
            await pilot.press("space")
        await settle(pilot)
        assert f"{len(wanted)} marked" in shown_text(app)
        await pilot.press("F")
        await settle(pilot)
        resolved = [m for m in messages if isinstance(m, FindingsResolved)]
        assert resolved and set(resolved[-1].keys) == {f.key for f in wanted}
        for f in untyped:
            assert fields(rules_config, f.page)["type"] == f.target
        with app.store.use() as store:
            newest = changeset.history(store, limit=1)[0]
        assert newest.kind == "batch-fix"
        assert not {f.key for f in wanted} & {f.key for f in screen.findings}
        assert not re.search(r"\d+ marked", shown_text(app))  # the marks are gone (the footer's "Fix marked" key stays)

        await pilot.press("u")
        await settle(pilot)
        assert vault_bytes(rules_config) == before
        assert {f.key for f in wanted} <= {f.key for f in screen.findings}


async def test_batch_dismiss_findings_one_undo(rules_config, settle) -> None:
    app = BrainworkApp(rules_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await show_pane(pilot, settle, "2", FindingsScreen)
        keys = [f.key for f in screen.findings if f.code == "dead-link"][:2]
        for key in keys:
            await _cursor_to_key(pilot, screen, key)
            await pilot.press("space")
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, TextPrompt)
        await pilot.press("enter")
        await settle(pilot)
        assert not set(keys) & {f.key for f in screen.findings}
        await pilot.press("u")
        await settle(pilot)
        assert set(keys) <= {f.key for f in screen.findings}


# -- the review queue ------------------------------------------------------------------
async def test_dream_pane_accepts_and_declines_with_one_key(rules_config, settle) -> None:
    from brainwork.learn.dream import dream

    with Store(rules_config.store) as store:
        report = dream(rules_config, store)
    retitles = [p for p in report.proposals if p.kind == "retitle"]
    assert len(retitles) >= 2
    first, second = retitles[0], retitles[1]
    messages = []
    app = BrainworkApp(rules_config)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        screen = await show_pane(pilot, settle, "6", DreamScreen)
        text = shown_text(app)
        assert f"Review queue · {len(report.proposals)} pending" in text
        assert "retitle" in text and "Reason" in text and "Accepting" in text
        while screen.highlighted.id != first.id:
            await pilot.press("j")
        await pilot.press("y")
        await settle(pilot)
        assert any(isinstance(m, ProposalDecided) and m.state == "accepted" for m in messages)
        assert fields(rules_config, first.payload["page"]).get("title") == first.payload["new_title"] or \
            first.payload["new_title"] in (rules_config.vault / f"{first.payload['page']}.md").read_text(encoding="utf-8")
        assert f"Review queue · {len(report.proposals) - 1} pending" in shown_text(app)
        with app.store.use() as store:
            assert changeset.history(store, limit=1)[0].kind == "rename"

        while screen.highlighted.id != second.id:
            await pilot.press("j")
        await pilot.press("n")
        await settle(pilot)
        assert any(isinstance(m, ProposalDecided) and m.state == "declined" for m in messages)
        assert f"Review queue · {len(report.proposals) - 2} pending" in shown_text(app)

        await pilot.press("a")  # the decided ones too
        await settle(pilot)
        text = shown_text(app)
        assert "accepted" in text and "declined" in text
        await pilot.press("u")  # the accepted rename is in the undo log
        await settle(pilot)
        assert "undone" in shown_text(app)


# -- proposed corrections -----------------------------------------------------------------
async def test_confirm_a_proposal_prefilled_from_the_quote(rules_config, settle) -> None:
    quote = "no, check the chain the balancer serves because clients only see the balancer"
    proposed = propose_correction(rules_config, {
        "title": f"Proposed: {quote}", "wrong": quote, "corrects": TASK, "session": "s-2", "turn": "3",
        "created": "2026-12-01",
    })
    messages = []
    app = BrainworkApp(rules_config)
    async with app.run_test(size=SIZE, message_hook=messages.append) as pilot:
        screen = await show_pane(pilot, settle, "4", InboxScreen)
        assert screen.highlighted_id == proposed.id  # the newest
        assert "proposed" in shown_text(app)
        await pilot.press("y")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, ConfirmCorrectionScreen)
        assert modal.query_one("#confirm-wrong", Input).value == quote
        assert modal.query_one("#confirm-correct", Input).value == "Check the chain the balancer serves"
        assert modal.query_one("#confirm-why", Input).value == "Clients only see the balancer"
        modal.query_one("#confirm-wrong", Input).value = "Checked only the certificate file on disk"
        modal.query_one("#confirm-why", Input).focus()
        await pilot.press("enter")
        await settle(pilot)
        assert any(isinstance(m, CorrectionsTriaged) and m.status == "open" for m in messages)
        page = fields(rules_config, proposed.id)
        assert page["status"] == "open" and page["correct"] == "Check the chain the balancer serves"
        assert "1 proposed" not in shown_text(app)


# -- SVG snapshots: the inbox with marks ---------------------------------------------------
def _marked_inbox(snap_compare, rules_config, settle, size) -> bool:
    async def run_before(pilot) -> None:
        await show_pane(pilot, settle, "4", InboxScreen)
        await pilot.press("space", "j", "space")
        await pilot.press("j", "j", "v")
        await settle(pilot)

    return snap_compare(BrainworkApp(rules_config), terminal_size=size, run_before=run_before)


def test_inbox_with_marks_snapshot_80x24(snap_compare, rules_config, settle) -> None:
    assert _marked_inbox(snap_compare, rules_config, settle, (80, 24))


def test_inbox_with_marks_snapshot_160x50(snap_compare, rules_config, settle) -> None:
    assert _marked_inbox(snap_compare, rules_config, settle, (160, 50))


async def test_home_and_end_go_to_the_first_and_last_row(rules_config, settle) -> None:
    app = BrainworkApp(rules_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await show_pane(pilot, settle, "4", InboxScreen)
        first, last = screen.items[0].id, screen.items[-1].id
        await pilot.press("end")
        await pilot.pause()
        assert f"╭─ {last} " in shown_text(app)
        await pilot.press("home")
        await pilot.pause()
        assert f"╭─ {first} " in shown_text(app)


async def test_batch_link_to_a_rule_is_one_operation(rules_config, settle) -> None:
    before = vault_bytes(rules_config)
    backup = "rules/backup-and-dry-run-before-migration"
    app = BrainworkApp(rules_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await show_pane(pilot, settle, "4", InboxScreen)
        wanted = ["corrections/2026-10-26-empty-dump-file", "corrections/2026-10-05-schema-only-dump"]
        wanted = [w for w in wanted if w in [i.id for i in screen.items]]
        assert len(wanted) == 2
        for cid in wanted:
            await to_correction(pilot, screen, cid)
            await pilot.press("space")
        await pilot.press("l")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, PickRuleScreen) and "2 marked" in modal.title_text
        options = modal.query_one(RuleOptions)
        assert options.get_option_at_index(options.highlighted).id == backup  # the closest, preselected
        await pilot.press("enter")
        await settle(pilot)
        for cid in wanted:
            assert fields(rules_config, cid)["status"] == "promoted"
            assert cid not in [i.id for i in screen.items]
        with app.store.use() as store:
            assert changeset.history(store, limit=1)[0].kind == "link-correction"
        await pilot.press("u")
        await settle(pilot)
        assert vault_bytes(rules_config) == before
