"""``thresholds.rule_match_similarity`` matches a group to a CANDIDATE rule
by its page only; an active rule is matched on its lesson (its promoted
evidence), never on its page, however low that bar is set (real store,
real model)."""

from __future__ import annotations

import pytest

from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.learn.consolidate import consolidate
from brainwork.store import Store

TODAY = "2026-11-29"
RULE = "rules/rotate-a-leaked-key"
LEAKS = ["corrections/2026-10-20-leaked-key-left-active", "corrections/2026-10-27-leaked-token-kept"]


def _files(status: str) -> dict[str, str]:
    files = {
        "brainwork.toml": "[thresholds]\nrule_match_similarity = 0.0\n",
        "tasks/webhook-setup.md": "---\ntitle: Set up the payment webhook\ntype: task\ncreated: 2026-10-20\n---\n",
        "tasks/deploy-bot.md": "---\ntitle: Deploy the chat bot\ntype: task\ncreated: 2026-10-27\n---\n",
        "corrections/2026-10-20-leaked-key-left-active.md": (
            "---\ntitle: leaked key left active\ntype: correction\ncreated: 2026-10-20\n"
            'wrong: "Left the API key active after it was pasted into the chat."\n'
            'correct: "Rotate a leaked API key at once and update every place that uses it."\n'
            'why: "Anyone who read the chat could charge cards with it."\nstatus: open\n'
            'corrects: "[[tasks/webhook-setup]]"\n---\n'),
        "corrections/2026-10-27-leaked-token-kept.md": (
            "---\ntitle: leaked token kept\ntype: correction\ncreated: 2026-10-27\n"
            'wrong: "Kept using the bot token after it showed up in a public log."\n'
            'correct: "Revoke an exposed token immediately and issue a new one."\n'
            'why: "A token in a public log is in the hands of whoever reads it."\nstatus: open\n'
            'corrects: "[[tasks/deploy-bot]]"\n---\n'),
        "corrections/2026-09-01-informal-du.md": (
            "---\ntitle: informal du\ntype: correction\ncreated: 2026-09-01\n"
            'wrong: "Addressed the readers with du throughout."\ncorrect: "Use the formal register (Sie) for customers."\n'
            f'why: "Our customers are businesses."\nstatus: {"promoted" if status == "active" else "clustered"}\n---\n'),
        # The page teaches the leaked-key lesson; its evidence (for the active
        # rule) is another lesson: the page and the evidence disagree on purpose.
        f"{RULE}.md": (
            f"---\ntitle: Rotate a leaked key\ntype: rule\nstatus: {status}\n"
            "rule: Rotate a leaked API key at once and update every place that uses it.\n"
            "why: A leaked key can be used by anyone who saw it.\napply: when a key or secret was exposed\n"
            + ('evidence:\n  - "[[corrections/2026-09-01-informal-du]]"\n' if status == "active" else "")
            + "---\n"),
    }
    return files


@pytest.mark.parametrize("status, matched", [("candidate", True), ("active", False)])
def test_only_a_candidate_is_matched_by_its_page(make_vault, status, matched):
    config = load_config(make_vault(_files(status)))
    assert config.thresholds.rule_match_similarity == 0.0
    with Store(config.store) as store:
        sync(config, store)
        report = consolidate(config, store, today=TODAY, dry_run=True)
    leaks = [c for c in report.clusters if set(c.corrections) & set(LEAKS)]
    assert leaks, report.clusters
    assert any(c.rule == RULE for c in leaks) is matched, [(c.corrections, c.rule, c.action) for c in leaks]
