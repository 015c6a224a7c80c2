"""The approve step of the rules pane (real model, copy of sample_vault/):
the four fields edited in one modal, the evidence checklist (unchecked
corrections go back to the inbox), and a suggested supersession that a
plain approve does not apply."""

from __future__ import annotations

from textual.widgets import Input

from brainwork.tui.app import BrainworkApp
from brainwork.tui.modals.approve_rule import ApproveRuleScreen, EvidenceChecklist
from brainwork.vault.edit import frontmatter_fields, set_field

from learning_support import open_rules  # tests/tui is on sys.path (pytest prepend mode)

SIZE = (120, 40)
CI = "rules/read-ci-log-before-rerun"
BACKUP = "rules/backup-and-dry-run-before-migration"
RACE = "corrections/2026-09-15-retry-masked-race"


def fields(rules_config, page: str) -> dict:
    return frontmatter_fields((rules_config.vault / f"{page}.md").read_text(encoding="utf-8"))


async def test_edit_four_fields_and_drop_evidence_in_one_step(rules_config, settle) -> None:
    app = BrainworkApp(rules_config)
    new = {
        "title": "Read the failing job's log before any re-run",
        "text": "Read the failing job's log and state the cause before re-running it.",
        "why": "Re-runs until green hid real bugs.",
        "apply": "when a CI job fails",
    }
    before = (rules_config.vault / f"{RACE}.md").read_bytes()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_rules(pilot, settle)
        assert screen.current == CI
        await pilot.press("a")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, ApproveRuleScreen)
        assert modal.query_one("#approve-title", Input).value == screen.rule["title"]
        checklist = modal.query_one(EvidenceChecklist)
        assert sorted(checklist.selected) == sorted(screen.rule["evidence"])  # all checked by default
        for key, value in new.items():
            box = modal.query_one(f"#approve-{key}")
            if isinstance(box, Input):
                box.value = value
            else:  # the rule and why wrap in a text box
                box.load_text(value)
        checklist.focus()
        while checklist.get_option_at_index(checklist.highlighted).value != RACE:
            await pilot.press("down")
        await pilot.press("space")
        assert RACE not in checklist.selected
        await pilot.press("ctrl+s")
        await settle(pilot)
        f = fields(rules_config, CI)
        assert (f["title"], f["rule"], f["why"], f["apply"], f["status"]) == (
            new["title"], new["text"], new["why"], new["apply"], "active")
        assert f"[[{RACE}]]" not in f["promoted_from"] and len(f["promoted_from"]) == 4
        assert fields(rules_config, RACE)["status"] == "open"  # back in the inbox
        assert screen.view.rules[CI]["status"] == "active"
        await pilot.press("u")  # one operation: undo restores the correction too
        await settle(pilot)
        assert fields(rules_config, CI)["status"] == "candidate"
    assert (rules_config.vault / f"{RACE}.md").read_bytes() == before


async def test_a_suggested_supersession_is_only_shown(rules_config, settle) -> None:
    path = rules_config.vault / f"{CI}.md"
    path.write_text(set_field(path.read_text(encoding="utf-8"), "proposed_supersedes", f"[[{BACKUP}]]"), encoding="utf-8")
    app = BrainworkApp(rules_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_rules(pilot, settle)
        assert screen.current == CI
        await pilot.press("a")
        await settle(pilot)
        assert "retires nothing" in str(app.screen.query_one("#approve-suggestion").render())
        await pilot.press("escape")  # cancel: nothing written
        await settle(pilot)
        assert fields(rules_config, CI)["status"] == "candidate"
        await pilot.press("a")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert fields(rules_config, CI)["status"] == "active"
        assert fields(rules_config, BACKUP)["status"] == "active"  # a plain approve retired nothing
