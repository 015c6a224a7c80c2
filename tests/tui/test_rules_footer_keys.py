"""The Rules pane's footer offers only what some rule of the list takes:
with no candidate left, Approve, Edit text, Reject and Supersede are not
listed at all (greyed, they still read "a Approve" at 160 columns, where
every key fits); with a candidate elsewhere in the list they are greyed
on an active rule, and they work on the candidate."""

from __future__ import annotations

from brainwork.tui.app import BrainworkApp

from learning_support import open_rules, to_rule  # tests/tui is on sys.path (pytest prepend mode)
from screen_support import screen_text

WIDE = (160, 50)
CANDIDATES = ("rules/read-ci-log-before-rerun", "rules/cite-sources-in-posts")
CANDIDATE_KEYS = ("a Approve", "e Edit text", "r Reject", "s Supersede")


def _footer(app) -> str:
    return screen_text(app)[-1]


async def test_no_candidate_hides_the_candidate_keys(rules_config, settle) -> None:
    for rule in CANDIDATES:  # decided before the workbench opens: its start-up sync reads them
        path = rules_config.vault / f"{rule}.md"
        text = path.read_text(encoding="utf-8")
        assert "\nstatus: candidate\n" in text
        path.write_text(text.replace("\nstatus: candidate\n", "\nstatus: rejected\n"), encoding="utf-8")
    app = BrainworkApp(rules_config)
    async with app.run_test(size=WIDE) as pilot:
        await open_rules(pilot, settle)
        assert "Rules · 0 candidates" in "\n".join(screen_text(app))
        footer = _footer(app)
        assert "R Retire" in footer and "c Consolidate" in footer, footer
        assert not any(key in footer for key in CANDIDATE_KEYS), footer


async def test_candidate_keys_follow_the_highlighted_rule(rules_config, settle) -> None:
    app = BrainworkApp(rules_config)
    async with app.run_test(size=WIDE) as pilot:
        rules = await open_rules(pilot, settle)
        assert rules.current == CANDIDATES[0]
        assert all(key in _footer(app) for key in CANDIDATE_KEYS), _footer(app)
        assert rules.check_action("approve", ()) is True
        await to_rule(pilot, rules, "rules/verify-full-cert-chain")
        await settle(pilot)
        assert all(key in _footer(app) for key in CANDIDATE_KEYS), _footer(app)  # greyed: a candidate is in the list
        assert rules.check_action("approve", ()) is None
