"""The line under a cut doctrine names the budget the section was cut to,
whatever the caller gave: a prompt's doctrine gets the hook's cap less
recall's share, so naming the cap would overstate the room."""

from __future__ import annotations

import pytest

from brainwork import thresholds as th
from brainwork.agents.hooks import RuleView, doctrine_section

RULES = [RuleView(id=f"rules/r{k:02d}", title=f"Rule {k}", rule=f"Do the careful thing number {k} " * 12,
                  why="it went wrong", evidence=k) for k in range(1, 21)]


@pytest.mark.parametrize("budget", [500, 1_500, th.HOOK_CONTEXT_MAX_CHARS - th.HOOK_RECALL_CHARS])
@pytest.mark.parametrize("compact", [False, True])
def test_the_left_out_line_names_the_budget_used(budget, compact):
    text = doctrine_section(RULES, budget, compact=compact)
    assert 0 < len(text) <= budget
    last = text.rstrip().splitlines()[-1]
    assert "left out" in last and f"to stay within {budget:,} characters:" in last, last
    if budget != th.HOOK_CONTEXT_MAX_CHARS:
        assert f"{th.HOOK_CONTEXT_MAX_CHARS:,}" not in text


def test_nothing_left_out_means_no_such_line():
    assert "left out" not in doctrine_section(RULES[:2], th.HOOK_CONTEXT_MAX_CHARS)
