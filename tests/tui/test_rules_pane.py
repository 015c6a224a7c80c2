"""Pilot tests of the rule approval pane (pane 5) on a copy of sample_vault/
with the real embedding model (see learning_support.py)."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner
from textual.widgets import Input

from brainwork.cli import cli
from brainwork.tui.app import BrainworkApp
from brainwork.tui.modals.approve_rule import ApproveRuleScreen
from brainwork.tui.modals.pick_rule import PickRuleScreen, RuleOptions
from brainwork.tui.modals.reason import ReasonScreen
from brainwork.tui.modals.replay import ReplayScreen
from brainwork.tui.screens.rules import RuleList, RulesScreen, RuleText, doctrine_share
from brainwork.tui.widgets.effect_chart import EffectChart
from brainwork.vault.edit import frontmatter_fields

from learning_support import open_rules, to_rule  # tests/tui is on sys.path (pytest prepend mode)

SIZE = (120, 40)
CI = "rules/read-ci-log-before-rerun"
CITE = "rules/cite-sources-in-posts"
CERT = "rules/verify-full-cert-chain"
BACKUP = "rules/backup-and-dry-run-before-migration"


def fields(rules_config, rule: str) -> dict:
    return frontmatter_fields((rules_config.vault / f"{rule}.md").read_text(encoding="utf-8"))


def doctrine_ids(rules_config) -> list[str]:
    result = CliRunner().invoke(cli, ["doctrine", "--vault", str(rules_config.vault), "--format", "json"])
    assert result.exit_code == 0, result.output
    return [r["id"] for r in json.loads(result.stdout)["rules"]]


async def test_candidates_first_with_their_evidence(rules_config, settle) -> None:
    app = BrainworkApp(rules_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_rules(pilot, settle)
        view = screen.view
        assert view.order[:2] == [CI, CITE]  # candidates, newest first
        assert view.order[2:4] == [CERT, BACKUP]  # active, by activation date
        assert set(view.order[4:]) == {"rules/verify-leaf-cert", "rules/retry-failed-ci-jobs-automatically"}
        assert screen.current == CI
        assert app.focused is screen.query_one(RuleList)
        evidence = view.evidence[CI]
        assert len(evidence) == 5
        assert {e["id"] for e in evidence} == {
            "corrections/2026-09-04-read-log-before-rerun", "corrections/2026-09-15-retry-masked-race",
            "corrections/2026-09-28-say-what-job-reported", "corrections/2026-10-09-audit-failure-deterministic",
            "corrections/2026-10-23-healthcheck-in-output",
        }
        assert all(e["tasks"] and 0.0 < e["similarity"] <= 1.0 for e in evidence)
        similarity, source = view.cluster[CI]
        assert 0.0 < similarity <= 1.0 and source
        assert screen.query_one("#evidence-table").row_count == 5
        box = screen.query_one(RuleText)
        assert not box.read_only
        assert box.text == fields(rules_config, CI)["rule"]
        assert view.doctrine["tokens"] > 0 and view.doctrine["budget"] == rules_config.thresholds.doctrine_budget_tokens
        assert view.pruning == []
        # nothing is active without approval
        assert fields(rules_config, CI)["status"] == "candidate"
        assert not screen.query_one("#rule-effect").display


async def test_active_rules_show_their_replay_figures_and_doctrine_cost(rules_config, settle) -> None:
    app = BrainworkApp(rules_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_rules(pilot, settle)
        await to_rule(pilot, screen, CERT)
        rule = screen.rule
        lesson = rule["replay"]
        before, after = lesson["before"], lesson["after"]
        assert lesson["verdict"] == "fewer repeats after" and after["rate"] < before["rate"]
        chart = screen.query_one(EffectChart)
        assert screen.query_one("#rule-effect").display
        assert chart.figures == (before["rate"], after["rate"], before["tasks"], after["tasks"], True)
        numbers = str(screen.query_one("#effect-numbers").render())
        assert "fewer repeats after" in numbers and f"{after['repeated']} of {after['tasks']} tasks" in numbers
        assert "helped" not in numbers
        share = doctrine_share(rule, screen.view.doctrine)
        assert share.startswith(f"{rule['doctrine_tokens']} tokens · ")
        assert "of the doctrine" in share and "budget" in share
        assert screen.query_one(RuleText).read_only
        await to_rule(pilot, screen, BACKUP)
        assert screen.rule["replay"]["verdict"] == "no fewer repeats after"
        assert "no fewer repeats after" in str(screen.query_one("#effect-numbers").render())
        # p shows the whole replay; esc closes it
        await pilot.press("p")
        await settle(pilot)
        assert isinstance(app.screen, ReplayScreen)
        shown = str(app.screen.query_one("#replay-headline").render())
        assert "Lesson in the room" in shown and f"of {len(screen.view.replay.repeats)} repeat" in shown
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen


async def test_approve_makes_it_doctrine_and_undo_reverts(rules_config, settle) -> None:
    app = BrainworkApp(rules_config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        assert len(app.screen.items) == 15
        screen = await open_rules(pilot, settle)
        assert screen.current == CI
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, ApproveRuleScreen)  # the approve step: fields and evidence
        await pilot.press("ctrl+s")
        await settle(pilot)
        f = fields(rules_config, CI)
        assert f["status"] == "active" and f["activated"] == "2026-11-01"
        assert len(f["promoted_from"]) == 5
        assert fields(rules_config, "corrections/2026-09-15-retry-masked-race")["status"] == "promoted"
        assert screen.view.rules[CI]["status"] == "active"
        assert screen.view.order[:1] == [CITE]  # the one candidate left
        assert screen.current == CITE  # the cursor moved on to it
        # the inbox (shown before, out of sight since) re-reads when shown again
        await pilot.press("4")
        await settle(pilot)
        assert len(app.screen.items) == 10  # 15 open less the 5 promoted
    assert CI in doctrine_ids(rules_config)

    app = BrainworkApp(rules_config)
    async with app.run_test(size=SIZE) as pilot:
        await open_rules(pilot, settle)
        await pilot.press("u")
        await settle(pilot)
        assert fields(rules_config, CI)["status"] == "candidate"
        assert app.screen.rule_is("candidate")
    assert CI not in doctrine_ids(rules_config)


EDITED = "When a CI job fails, read its log and name the cause before any re-run."


async def edit_in_place(pilot, screen: RulesScreen, text: str) -> None:
    """``e`` on the highlighted candidate, then its text replaced by ``text``
    as typing would (an unsaved edit in ``screen.edits``)."""
    await pilot.press("e")
    box = screen.query_one(RuleText)
    assert pilot.app.focused is box
    box.load_text(text)  # load_text does not post Changed: type one char and delete it
    box.move_cursor(box.document.end)
    await pilot.press("x", "backspace")
    assert screen.edits == {screen.current: text}


async def test_edit_in_place_then_approve(rules_config, settle) -> None:
    app = BrainworkApp(rules_config)
    new = EDITED
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_rules(pilot, settle)
        await edit_in_place(pilot, screen, new)
        assert screen.edits == {CI: new}
        await pilot.press("escape")
        assert app.focused is screen.query_one(RuleList)
        await pilot.press("a")
        await settle(pilot)
        assert app.screen.query_one("#approve-text").text == new  # the in-place edit is pre-filled
        await pilot.press("ctrl+s")
        await settle(pilot)
        f = fields(rules_config, CI)
        assert f["rule"] == new and f["status"] == "active"
        assert screen.edits == {}


async def test_reject_asks_the_reason(rules_config, settle) -> None:
    app = BrainworkApp(rules_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_rules(pilot, settle)
        await to_rule(pilot, screen, CITE)
        await pilot.press("r")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, ReasonScreen)
        await pilot.press("enter")  # empty: refused, the modal stays
        assert app.screen is modal
        modal.query_one(Input).value = "Quotes and figures need separate checks"
        await pilot.press("enter")
        await settle(pilot)
        f = fields(rules_config, CITE)
        assert f["status"] == "rejected" and f["rejected_reason"] == "Quotes and figures need separate checks"
        assert screen.view.rules[CITE]["status"] == "rejected"
        assert screen.current == CI  # on to the next candidate
        assert CITE not in doctrine_ids_running(screen)
        await pilot.press("u")
        await settle(pilot)
        assert fields(rules_config, CITE)["status"] == "candidate"


def doctrine_ids_running(screen: RulesScreen) -> list[str]:
    return [i for i in screen.view.order if screen.view.rules[i]["status"] == "active"]


async def test_supersede_retires_the_older_rule(rules_config, settle) -> None:
    app = BrainworkApp(rules_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_rules(pilot, settle)
        await pilot.press("s")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, PickRuleScreen)
        options = modal.query_one(RuleOptions)
        assert [options.get_option_at_index(i).id for i in range(options.option_count)] == [CERT, BACKUP]
        while options.get_option_at_index(options.highlighted).id != BACKUP:
            await pilot.press("j")
        await pilot.press("enter")
        await settle(pilot)
        confirm = app.screen
        assert isinstance(confirm, ApproveRuleScreen) and confirm.older["id"] == BACKUP  # both texts side by side
        assert "retire" in str(confirm.query_one("#approve-ok").label)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert fields(rules_config, CI)["status"] == "active"
        assert fields(rules_config, CI)["supersedes"] == f"[[{BACKUP}]]"
        assert fields(rules_config, BACKUP)["status"] == "retired"
        assert doctrine_ids_running(screen) == [CERT, CI]
        await pilot.press("u")
        await settle(pilot)
        assert fields(rules_config, BACKUP)["status"] == "active"
        assert fields(rules_config, CI)["status"] == "candidate"


async def test_stale_rules_are_suggested_for_retirement(rules_config, settle, monkeypatch) -> None:
    monkeypatch.setattr(RulesScreen, "TODAY", "2027-06-01")
    app = BrainworkApp(rules_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_rules(pilot, settle)
        kinds = {(s["kind"], s["rules"][0]) for s in screen.view.pruning}
        assert ("retire", CERT) in kinds and ("retire", BACKUP) in kinds
        summary = str(screen.query_one("#rules-doctrine").render())
        assert "retire verify-full-cert-chain" in summary
        await to_rule(pilot, screen, CERT)
        await pilot.press("R")
        await settle(pilot)
        assert isinstance(app.screen, ReasonScreen)
        await pilot.press("enter")  # the reason is optional
        await settle(pilot)
        assert fields(rules_config, CERT)["status"] == "retired"


async def test_consolidate_from_the_palette(rules_config, settle, palette) -> None:
    """``learn: consolidate`` from the graph pane shows the Rules pane and runs a pass."""
    app = BrainworkApp(rules_config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.current_mode == "graph"
        await palette(pilot, "consolidate")
        assert app.current_mode == "rules"
        screen = app.screen
        assert isinstance(screen, RulesScreen)
        # the pass ran (one undoable operation) and the pane shows its clusters
        assert app.undo_state.undo.startswith("consolidate")
        assert screen.view.cluster[CI][1] == "last consolidation"
        assert app.background is None
        assert "consolidating" not in str(screen.query_one("#rules-left").border_subtitle)  # no phase shown


# -- SVG snapshots (review changes in the pytest HTML report; accept with --snapshot-update) --
def _snap(snap_compare, rules_config, settle, rule: str | None = None) -> bool:
    async def run_before(pilot) -> None:
        screen = await open_rules(pilot, settle)
        if rule is not None:
            await to_rule(pilot, screen, rule)
            await settle(pilot)
        screen.query_one(RuleText).cursor_blink = False
        await pilot.pause()  # the steady cursor drawn before the screenshot

    return snap_compare(BrainworkApp(rules_config), terminal_size=SIZE, run_before=run_before)


def test_rules_pane_candidate_snapshot(snap_compare, rules_config, settle) -> None:
    """The newest candidate: editable text, why/applies, evidence with similarities."""
    assert _snap(snap_compare, rules_config, settle)


def test_rules_pane_active_rule_snapshot(snap_compare, rules_config, settle) -> None:
    """An active rule with fewer repeats after: before/after repeat-rate chart, counts, doctrine share."""
    assert _snap(snap_compare, rules_config, settle, CERT)


async def test_a_fresh_vault_is_embedded_in_a_worker(fresh_sample_config, settle, monkeypatch) -> None:
    """No vectors yet: the rules show at once, the figures once the worker embedded the pages."""
    if os.environ.get("BRAINWORK_EMBEDDER", "").lower() == "lexical":
        pytest.skip("needs the real model")
    monkeypatch.setattr(RulesScreen, "TODAY", "2026-11-01")
    app = BrainworkApp(fresh_sample_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_rules(pilot, settle)
        view = screen.view
        assert view.figures and view.embedded > 40
        assert view.rules[CERT]["replay"]["verdict"] == "fewer repeats after"
        assert all(e["similarity"] is not None for e in view.evidence[CI])


async def test_an_edit_overtaken_by_a_decision_elsewhere_is_not_lost(rules_config, settle) -> None:
    """An agent approves the candidate (CLI, MCP) while its text has an unsaved
    edit here: the next read drops the edit, so the person is told and the
    edited text goes to the clipboard."""
    import copy
    import dataclasses

    app = BrainworkApp(rules_config)
    new = EDITED
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_rules(pilot, settle)
        await edit_in_place(pilot, screen, new)
        assert screen.edits == {CI: new}
        rules = copy.deepcopy(screen.view.rules)
        rules[CI]["status"] = "active"
        screen._show_view(dataclasses.replace(screen.view, rules=rules))
        await settle(pilot)
        assert screen.edits == {}
        assert app.clipboard == new
        warned = [n for n in app._notifications if n.title == "Edit not applied"]
        assert warned and CI in warned[0].message and "is now active" in warned[0].message
