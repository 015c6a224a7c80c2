"""Pilot test: ``enter`` in the help dialog unfolds Textual's keys (no
``tab`` to the fold's title first), as docs/keybindings.md says."""

from __future__ import annotations

from textual.widgets import Collapsible

from brainwork.tui.app import BrainworkApp
from brainwork.tui.modals.help import HelpScreen


async def test_enter_unfolds_and_folds_textuals_keys(sample_config, settle) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        help_ = app.screen
        assert isinstance(help_, HelpScreen)
        fold = help_.query_one("#help-generic", Collapsible)
        assert fold.collapsed
        assert "enter unfolds" in str(help_.query_one("#help-title").render())
        await pilot.press("end", "enter")
        await settle(pilot)
        assert not fold.collapsed
        await pilot.press("enter")
        await settle(pilot)
        assert fold.collapsed
        await pilot.press("tab", "enter")  # the fold's own title still works
        await settle(pilot)
        assert not fold.collapsed
