"""A budget too small for the doctrine's lines: stdout (injected into an
agent's context as is) holds whole lines only, the left-out note complete
or nothing at all, never a line cut short."""

from __future__ import annotations

from brainwork.config import load_config
from brainwork.learn.doctrine import HEADER, _more_line, doctrine_from_vault


def test_budget_of_one_token_prints_nothing(rulebook, doctrine_cli):
    vault = rulebook(3, sentences=6)
    res = doctrine_cli(vault, "--budget", "1")
    assert res.returncode == 0, res.stderr
    assert res.stdout == ""
    # one line: nothing printed, and the budget the first rule needs (no "~0 of the 1 token budget" beside it)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("brainwork: warning: nothing printed: the first rule, rules/r03 ")
    assert "(the budget is 1; 3 active rules left out)" in lines[0]
    needs = doctrine_from_vault(load_config(vault), 1).needs
    assert f"needs a budget of {needs} or more" in lines[0]
    assert doctrine_from_vault(load_config(vault), needs).rules and not doctrine_from_vault(load_config(vault), needs - 1).rules


def test_every_small_budget_gives_whole_lines(rulebook):
    config = load_config(rulebook(3, sentences=6))
    full = doctrine_from_vault(config, 100_000).text
    note_seen = False
    for budget in range(1, 120):
        doc = doctrine_from_vault(config, budget)
        text = doc.text
        assert len(text) <= 4 * budget, budget
        if not text:
            assert doc.omitted and len(_more_line(len(doc.omitted), budget)) + 1 > 4 * budget, budget
            continue
        assert text.endswith("\n"), (budget, text)
        lines = text.splitlines()
        if doc.omitted:  # the note is the last line, whole
            assert lines[-1] == _more_line(len(doc.omitted), budget), (budget, text)
            note_seen = True
        for line in lines[:-1]:  # every other line is a whole line of the doctrine
            assert line.startswith(HEADER) or line in full.splitlines(), (budget, line)
    assert note_seen


def test_empty_doctrine_line_is_whole_or_absent(make_vault):
    config = load_config(make_vault({"notes/a.md": "# a\n"}))
    assert doctrine_from_vault(config, 1).text == ""
    assert doctrine_from_vault(config, 8).text == "No rule has been approved yet.\n"
