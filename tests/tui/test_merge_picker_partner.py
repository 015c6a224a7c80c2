"""The merge picker (``m`` in the graph pane, ``page: merge into…``) lists
first, highlighted, the pages the findings pane's duplicate findings pair
with the page, so ``enter`` plans the merge with the partner; before, it
offered nothing until a title was typed."""

from __future__ import annotations

from brainwork.tui.app import BrainworkApp
from brainwork.tui.modals.merge_confirm import MergeConfirmScreen
from brainwork.tui.modals.prompts import ChoicePrompt

from findings_support import SIZE, choices, findings_vault_config, move_to, open_findings, page_of
from screen_support import shown_text


async def test_the_picker_offers_the_duplicate_partner_first(tmp_path, settle) -> None:
    app = BrainworkApp(findings_vault_config(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        findings = await open_findings(pilot, settle)
        pair = next(f for f in findings.findings if f.code == "duplicate")
        await move_to(pilot, findings, "duplicate", pair.page)
        await pilot.press("enter")  # the finding's page in the graph pane
        await settle(pilot)
        assert app.screen.pane_id == "graph" and app.screen.current == pair.page
        await pilot.press("m")
        await settle(pilot)
        prompt = app.screen
        assert isinstance(prompt, ChoicePrompt)
        listed = choices(prompt)
        assert listed and page_of(listed[0]) == pair.other, listed
        assert "duplicate" in listed[0], listed
        assert f"{pair.other}  duplicate" in shown_text(app)
        await pilot.press("enter")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, MergeConfirmScreen)
        assert {modal.plan.source, modal.plan.target} == {pair.page, pair.other}


async def test_from_the_other_side_of_the_pair_too(tmp_path, settle) -> None:
    app = BrainworkApp(findings_vault_config(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        findings = await open_findings(pilot, settle)
        pair = next(f for f in findings.findings if f.code == "duplicate")
        app.open_page(pair.other)
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        assert page_of(choices(app.screen)[0]) == pair.page


async def test_a_page_without_duplicates_gets_the_search_only(tmp_path, settle) -> None:
    app = BrainworkApp(findings_vault_config(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await open_findings(pilot, settle)
        app.open_page("tools/certbot")
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, ChoicePrompt)
        assert "no suggestions; type to find a page" in shown_text(app)
