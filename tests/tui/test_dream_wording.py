"""The dream pass toast counts each kind of proposal in words that agree."""

from __future__ import annotations

from brainwork.learn.dream import KIND_NOUNS, KINDS
from brainwork.tui.screens.dream import gathered_text


def test_the_toast_counts_with_plurals() -> None:
    assert gathered_text({"retitle": 4, "merge": 0}, 4) == "Dream pass: 4 retitles (4 pending)."
    assert gathered_text({"retitle": 1, "merge": 2, "retire-rule": 1}, 5) == (
        "Dream pass: 1 retitle, 2 page merges, 1 rule to retire (5 pending)."
    )
    assert gathered_text({k: 0 for k in KINDS}, 0) == "Dream pass: nothing (0 pending)."
    assert set(KIND_NOUNS) == set(KINDS)  # every kind has its words
