"""``brainwork capture --created`` refuses a date after today with an error
naming it (a record is dated when it happened); today and earlier dates are
kept."""

from __future__ import annotations

from datetime import date

import pytest

from brainwork.errors import UserError
from brainwork.learn.capture import capture

TODAY = date(2026, 12, 4)


def test_a_future_created_date_is_refused_and_nothing_is_written(make_vault):
    from brainwork.config import load_config

    config = load_config(make_vault({}))
    with pytest.raises(UserError, match=r"created 2026-12-05 is after today \(2026-12-04\)"):
        capture(config, None, "task", {"title": "Trace the login spike", "created": "2026-12-05"}, today=TODAY)
    assert not list(config.vault.rglob("*.md"))
    for day in ("2026-12-04", "2026-11-30"):
        rel = capture(config, None, "task", {"title": f"Trace the login spike {day}", "created": day}, today=TODAY).path
        assert f"created: {day}" in (config.vault / rel).read_text(encoding="utf-8")


def test_the_command_line_says_so(make_vault, bw):
    vault = make_vault({})
    res = bw(vault, vault / ".brainwork", "capture", "task", "--title", "Trace the login spike", "--created", "2999-01-01")
    assert res.returncode != 0 and "created 2999-01-01 is after today" in res.stderr
    assert not list(vault.rglob("*.md"))
