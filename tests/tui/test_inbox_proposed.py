"""Pilot tests: a correction a session hook proposed waits in the inbox
(pane 4) and the person confirms it with ``y`` (what was wrong, the correct
behaviour, why), or dismisses it. A push-back that first tells the agent
what it did, then what to do, is split by the form (wrong: the action
objected to; correct: the instruction), and the confirmed page's title is a
thing-title, so the quality bar does not flag it."""

from __future__ import annotations

from textual.widgets import Input

from brainwork.analysis.titles import diary_title
from brainwork.learn.capture import propose_correction
from brainwork.tui.app import BrainworkApp
from brainwork.tui.modals.confirm_correction import ConfirmCorrectionScreen
from brainwork.tui.screens.inbox import InboxScreen
from brainwork.vault.edit import frontmatter_fields

from learning_support import open_confirm_form, open_inbox  # tests/tui is on sys.path (pytest prepend mode)

SIZE = (120, 40)
TASK = "tasks/2026-09-02-renew-cert-billing-api"
QUOTE = ("No, that's wrong — you only checked the leaf on disk and never looked at what the load balancer "
         "hands out. Check the chain the load balancer actually serves.")


def propose(config, title: str, wrong: str):
    return propose_correction(config, {
        "title": title, "wrong": wrong,
        "corrects": TASK, "session": "s-1", "turn": "1", "created": "2026-11-30",
    })


async def test_confirm_a_proposed_correction(learning_config, settle) -> None:
    config = learning_config
    wrong = "no, check the chain the balancer serves"
    proposed = propose(config, f"Proposed: {wrong}", wrong)
    app = BrainworkApp(config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_inbox(pilot, settle)
        item = next(i for i in screen.items if i.id == proposed.id)
        assert item.status == "proposed"
        modal = await open_confirm_form(pilot, settle, screen, proposed.id)
        assert modal.query_one("#confirm-wrong", Input).value == "no, check the chain the balancer serves"
        modal.query_one("#confirm-wrong", Input).value = "Checked the certificate file on disk only"
        # enter in the first boxes moves on; the last one confirms only when all are filled
        modal.query_one("#confirm-correct", Input).focus()
        await pilot.press("enter")
        await pilot.press("enter")
        assert isinstance(pilot.app.screen, ConfirmCorrectionScreen)  # why is missing
        modal.query_one("#confirm-correct", Input).value = "Test the chain the load balancer serves"
        modal.query_one("#confirm-why", Input).value = "Clients see the balancer, not the file"
        modal.query_one("#confirm-why", Input).focus()
        await pilot.press("enter")
        await settle(pilot)
        f = frontmatter_fields((config.vault / proposed.path).read_text(encoding="utf-8"))
        assert f["status"] == "open" and f["correct"] == "Test the chain the load balancer serves"
        assert f["why"] == "Clients see the balancer, not the file" and f["wrong"] == "Checked the certificate file on disk only"
        screen = pilot.app.screen
        assert isinstance(screen, InboxScreen)
        assert next(i for i in screen.items if i.id == proposed.id).status == "open"
        assert screen.check_action("confirm_correction", ()) is None


async def test_confirm_form_splits_the_action_from_the_instruction(learning_config, settle) -> None:
    config = learning_config
    proposed = propose(config, "Proposed: " + QUOTE[:80], QUOTE)
    app = BrainworkApp(config)
    async with app.run_test(size=SIZE) as pilot:
        modal = await open_confirm_form(pilot, settle, await open_inbox(pilot, settle), proposed.id)
        wrong = modal.query_one("#confirm-wrong", Input).value
        assert wrong.startswith("You only checked the leaf on disk")
        assert modal.query_one("#confirm-correct", Input).value == "Check the chain the load balancer actually serves"
        modal.query_one("#confirm-why", Input).value = "Clients see the balancer, not the file"
        modal.query_one("#confirm-why", Input).focus()
        await pilot.press("enter")
        await settle(pilot)
        fields = frontmatter_fields((config.vault / proposed.path).read_text(encoding="utf-8"))
        assert fields["status"] == "open"
        title = fields["title"]
        assert diary_title(title, config.thresholds.diary_title_chars) is None  # a thing-title
        assert title.startswith("You only checked the leaf on disk")
