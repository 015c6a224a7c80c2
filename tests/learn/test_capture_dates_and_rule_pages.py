"""Capture refuses dates that do not exist; the approval gate names the
page type of a page that is not a rule."""

from __future__ import annotations

import pytest

from brainwork.errors import UserError
from brainwork.learn.capture import capture
from brainwork.learn.rules import get_rule


@pytest.mark.parametrize("bad", ["2026-13-45", "2026-02-30", "2026-00-10"])
def test_capture_refuses_a_date_that_does_not_exist(sample_config, sample_store, bad):
    """``--created 2026-13-45`` was accepted and named the file
    ``tasks/2026-13-45-r.md``."""
    before = sorted(p.name for p in (sample_config.vault / "tasks").iterdir())
    with pytest.raises(UserError, match="real date"):
        capture(sample_config, sample_store, "task", {"request": "r", "created": bad})
    assert sorted(p.name for p in (sample_config.vault / "tasks").iterdir()) == before


def test_not_a_rule_names_the_page_type(sample_store):
    """It said "... is not a rule page (type: rule)" for a task."""
    with pytest.raises(UserError) as err:
        get_rule(sample_store, "tasks/2026-09-04-fix-ci-billing-api-tests")
    assert str(err.value) == (
        "tasks/2026-09-04-fix-ci-billing-api-tests is not a rule page (its type is task, not rule)"
    )
