"""On an 80x24 terminal a proposed correction's one action, ``y``, is named
where the person looks: the inbox's border says "y confirm" while a
proposed row is highlighted (the footer leaves ``y`` out, and the detail's
line about it is below the fold), and the usual keys again on other rows;
either way the whole line fits the border, no key cut."""

from __future__ import annotations

from brainwork.learn.capture import propose_correction
from brainwork.tui.app import BrainworkApp

from learning_support import open_inbox, to_correction  # tests/tui is on sys.path (pytest prepend mode)
from screen_support import screen_text

TASK = "tasks/2026-09-02-renew-cert-billing-api"


async def test_the_border_names_y_on_a_proposed_row(sample_config, settle) -> None:
    proposed = propose_correction(sample_config, {
        "title": "Proposed: no, check the chain", "wrong": "no, check the chain the balancer serves",
        "corrects": TASK, "session": "s-1", "turn": "1", "created": "2026-12-30",
    })
    app = BrainworkApp(sample_config)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_inbox(pilot, settle)
        await to_correction(pilot, screen, proposed.id)
        await settle(pilot)
        border = next(line for line in screen_text(app) if line.startswith("╰─"))
        assert "y confirm · d dismiss" in border and "…" not in border, border
        await pilot.press("j")
        await settle(pilot)
        assert screen.highlighted_id != proposed.id
        border = next(line for line in screen_text(app) if line.startswith("╰─"))
        assert "y confirm" not in border and "l link ·" in border and "a open/all" in border, border
