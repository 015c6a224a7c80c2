"""The labels beside a rule's text are whole: a retired rule's "Replaced by"
(the rule that superseded it) was cut to "Replaced …"."""

from __future__ import annotations

from brainwork.tui.app import BrainworkApp

from learning_support import open_rules, to_rule  # tests/tui is on sys.path (pytest prepend mode)
from screen_support import screen_text

LEAF = "rules/verify-leaf-cert"


async def test_a_retired_rule_names_its_successor_under_a_whole_label(rules_config, settle) -> None:
    app = BrainworkApp(rules_config)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_rules(pilot, settle)
        await to_rule(pilot, screen, LEAF)
        await settle(pilot)
        line = next(line for line in screen_text(app) if "rules/verify-full-cert-chain" in line and "Replaced" in line)
        assert "Replaced by  rules/verify-full-cert-chain" in line, line
