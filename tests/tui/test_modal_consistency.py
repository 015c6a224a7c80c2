"""Dialogs behave alike and read without colour: the inbox's Confirm dialog
takes ctrl+s and lists its keys in its border as the approve dialog does,
and every check box shows its state as a glyph (``▐✓▌`` ticked, ``▐ ▌``
not), not by colour only."""

from __future__ import annotations

from textual.widgets import Input

from brainwork.learn.capture import propose_correction
from brainwork.tui.app import BrainworkApp
from brainwork.tui.modals.approve_rule import ApproveRuleScreen
from brainwork.tui.modals.confirm_correction import ConfirmCorrectionScreen
from brainwork.tui.screens.inbox import InboxScreen
from brainwork.vault.edit import frontmatter_fields

from learning_support import open_confirm_form, open_inbox, open_rules  # tests/tui is on sys.path
from screen_support import shown_text

SMALL = (80, 24)
TASK = "tasks/2026-09-02-renew-cert-billing-api"


def _propose(config):
    """A correction a session hook drafted, waiting in the inbox for its Confirm dialog."""
    return propose_correction(config, {
        "title": "Proposed: check the served chain", "wrong": "checked the leaf only",
        "corrects": TASK, "session": "s-1", "turn": "1", "created": "2026-11-30",
    })


async def test_confirm_dialog_takes_ctrl_s_and_lists_its_keys(learning_config, settle) -> None:
    proposed = _propose(learning_config)
    app = BrainworkApp(learning_config)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_inbox(pilot, settle)
        modal = await open_confirm_form(pilot, settle, screen, proposed.id)
        text = shown_text(app)
        assert "ctrl+s confirms" in text and "esc cancels" in text, text
        modal.query_one("#confirm-correct", Input).value = "Check the chain the balancer serves"
        modal.query_one("#confirm-why", Input).value = "Clients see the balancer"
        modal.query_one("#confirm-wrong", Input).focus()
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, InboxScreen)
        f = frontmatter_fields((learning_config.vault / proposed.path).read_text(encoding="utf-8"))
        assert f["status"] == "open" and f["why"] == "Clients see the balancer"


async def test_confirm_dialog_escape_cancels(learning_config, settle) -> None:
    proposed = _propose(learning_config)
    app = BrainworkApp(learning_config)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_inbox(pilot, settle)
        await open_confirm_form(pilot, settle, screen, proposed.id)
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ConfirmCorrectionScreen)


async def test_the_rename_box_shows_its_state_without_colour(snapshot_config, settle, open_rename) -> None:
    app = BrainworkApp(snapshot_config)
    async with app.run_test(size=SMALL) as pilot:
        text = await open_rename(pilot)
        line = next(l for l in text.splitlines() if "Keep the old title" in l)
        assert "▐ ▌" in line and "✓" not in line, line
        app.screen.query_one("#rename-keep-alias").focus()
        await pilot.press("space")
        await settle(pilot)
        line = next(l for l in shown_text(app).splitlines() if "Keep the old title" in l)
        assert "▐✓▌" in line, line


async def test_evidence_rows_show_their_state_without_colour(rules_config, settle) -> None:
    app = BrainworkApp(rules_config)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_rules(pilot, settle)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, ApproveRuleScreen)
        ticked = shown_text(app).count("▐✓▌")
        assert ticked >= 2 and "▐X▌" not in shown_text(app)
        app.screen.query_one("#approve-evidence").focus()
        await pilot.press("space")
        await settle(pilot)
        text = shown_text(app)
        assert text.count("▐✓▌") == ticked - 1 and "▐ ▌" in text, text
