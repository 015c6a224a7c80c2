"""Pilot test: a correction a session hook proposed waits in the inbox
(pane 4) and the person confirms it with ``y`` (what was wrong, the correct
behaviour, why), or dismisses it."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from brainwork.learn.capture import propose_correction
from brainwork.tui.app import BrainworkApp
from brainwork.tui.modals.confirm_correction import ConfirmCorrectionScreen
from brainwork.tui.screens.inbox import InboxScreen
from brainwork.vault.edit import frontmatter_fields
from learning_support import copy_template, learning_template

SIZE = (120, 40)
TASK = "tasks/2026-09-02-renew-cert-billing-api"


@pytest.fixture
def config(tmp_path_factory, tmp_path):
    return copy_template(learning_template(tmp_path_factory), tmp_path)


async def test_confirm_a_proposed_correction(config, settle) -> None:
    proposed = propose_correction(config, {
        "title": "Proposed: no, check the chain the balancer serves", "wrong": "no, check the chain the balancer serves",
        "corrects": TASK, "session": "s-1", "turn": "1", "created": "2026-11-30",
    })
    app = BrainworkApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, InboxScreen)
        item = next(i for i in screen.items if i.id == proposed.id)
        assert item.status == "proposed"
        for _ in range(40):
            if screen.highlighted_id == proposed.id:
                break
            await pilot.press("j")
        assert screen.check_action("confirm_correction", ()) is True
        await pilot.press("y")
        await settle(pilot)
        modal = pilot.app.screen
        assert isinstance(modal, ConfirmCorrectionScreen)
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
