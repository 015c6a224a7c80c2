"""Pilot test: confirming a proposed correction drafted from a push-back that
first tells the agent what it did, then what to do. The form splits the two
(wrong: the action objected to; correct: the instruction), and the confirmed
page's title is a thing-title, so the quality bar does not flag it."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from brainwork.analysis.titles import diary_title
from brainwork.learn.capture import propose_correction
from brainwork.tui.app import BrainworkApp
from brainwork.tui.modals.confirm_correction import ConfirmCorrectionScreen
from brainwork.tui.screens.inbox import InboxScreen
from brainwork.vault.edit import frontmatter_fields
from learning_support import copy_template, learning_template

SIZE = (120, 40)
TASK = "tasks/2026-09-02-renew-cert-billing-api"
QUOTE = ("No, that's wrong — you only checked the leaf on disk and never looked at what the load balancer "
         "hands out. Check the chain the load balancer actually serves.")


@pytest.fixture
def config(tmp_path_factory, tmp_path):
    return copy_template(learning_template(tmp_path_factory), tmp_path)


async def test_confirm_form_splits_the_action_from_the_instruction(config, settle) -> None:
    proposed = propose_correction(config, {
        "title": "Proposed: " + QUOTE[:80], "wrong": QUOTE,
        "corrects": TASK, "session": "s-1", "turn": "1", "created": "2026-11-30",
    })
    app = BrainworkApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, InboxScreen)
        for _ in range(40):
            if screen.highlighted_id == proposed.id:
                break
            await pilot.press("j")
        await pilot.press("y")
        await settle(pilot)
        modal = pilot.app.screen
        assert isinstance(modal, ConfirmCorrectionScreen)
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
