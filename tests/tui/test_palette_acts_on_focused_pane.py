"""The palette's ``page: …`` commands act on the page of the pane in view:
in the findings pane, the highlighted finding's page (the one its preview
shows), not the graph pane's page hidden behind it; and they leave the
findings pane in view. Acting from the graph pane is covered in
test_workbench_day.py."""

from __future__ import annotations

from brainwork.tui.app import BrainworkApp
from brainwork.tui.modals.prompts import ChoicePrompt
from brainwork.tui.screens.findings import FindingsScreen

from findings_support import SIZE, UNTYPED, move_to, open_findings  # tests/tui is on sys.path
from screen_support import toast_titled

CERT = "tasks/renew-cert"


async def test_page_commands_in_the_findings_pane_act_on_the_finding(sample_config, settle, palette) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_page(CERT)
        await settle(pilot)
        screen = await open_findings(pilot, settle)
        await move_to(pilot, screen, "untyped", UNTYPED)
        assert app.current_page() == UNTYPED
        await palette(pilot, "page: set type")
        assert isinstance(app.screen, ChoicePrompt)
        assert UNTYPED in app.screen.title_text and CERT not in app.screen.title_text
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen and isinstance(screen, FindingsScreen)


async def test_a_group_header_in_the_findings_pane_is_no_page(sample_config, settle, palette) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        app.open_page(CERT)
        await settle(pilot)
        screen = await open_findings(pilot, settle)
        await move_to(pilot, screen, "untyped", UNTYPED)
        await pilot.press("k")  # onto the group's header
        assert screen.current is None
        assert app.current_page() is None
        await palette(pilot, "page: set type")
        assert app.screen is screen  # nothing asked, the pane stays
        toast = await toast_titled(pilot, "Nothing to act on")
        assert "Findings pane" in toast.message


async def test_a_pane_without_pages_of_its_own_acts_on_the_graph_page_and_shows_it(sample_config, settle,
                                                                                   palette) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_page(CERT)
        await settle(pilot)
        await pilot.press("3")  # the undo log names no page
        await settle(pilot)
        await palette(pilot, "page: set type")
        assert isinstance(app.screen, ChoicePrompt) and CERT in app.screen.title_text
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.pane_screen("graph")
