"""The findings pane's batch dismiss checks its keys as ``brainwork dismiss``
does: a key no current finding has is left out with that command's refusal
(its did-you-mean), the others are dismissed in one operation, and a batch
of unknown keys only is refused with nothing written."""

from __future__ import annotations

import pytest

from brainwork.analysis.findings import check
from brainwork.config import load_config
from brainwork.errors import UserError
from brainwork.index.sync import sync
from brainwork.ops import changeset, fixes
from brainwork.service import triage
from brainwork.store import Store, dismissals


@pytest.fixture
def vault(sample_vault_copy):
    config = load_config(sample_vault_copy)
    store = Store(config.store)
    sync(config, store)
    yield config, store
    store.close()


def _refusal(config, store, key: str) -> str:
    with pytest.raises(UserError) as e:
        fixes.dismiss(config, store, key)
    return str(e.value)


def test_an_unknown_key_is_left_out_with_the_cli_refusal(vault) -> None:
    config, store = vault
    good = next(f.key for f in check(config, store) if f.code == "dead-link")
    typo = good[:-1] + ("x" if good[-1] != "x" else "y")
    unknown_code = "no-such-code:whatever"
    result = triage.dismiss_findings(config, store, [good, typo, unknown_code], "known")
    assert result.done == [good]
    assert [s.id for s in result.skipped] == [typo, unknown_code]
    reasons = {s.id: s.reason for s in result.skipped}
    assert reasons[typo] == _refusal(config, store, typo) and f"did you mean {good!r}" in reasons[typo]
    assert reasons[unknown_code] == _refusal(config, store, unknown_code)
    assert {d.key for d in dismissals.dismissals(store)} == {good}
    assert "2 left out" in result.describe("Dismissed", "finding")
    changeset.undo(config, store)
    assert not dismissals.dismissals(store)


def test_a_batch_of_unknown_keys_only_is_refused(vault) -> None:
    config, store = vault
    good = next(f.key for f in check(config, store) if f.code == "dead-link")
    typo = good + "x"
    with pytest.raises(UserError, match="did you mean") as e:
        triage.dismiss_findings(config, store, [typo])
    assert str(e.value) == f"dismiss findings: nothing to do ({_refusal(config, store, typo)})"
    assert not dismissals.dismissals(store)


def test_an_already_dismissed_finding_can_be_dismissed_again(vault) -> None:
    config, store = vault
    good = next(f.key for f in check(config, store) if f.code == "dead-link")
    triage.dismiss_findings(config, store, [good], "once")
    result = triage.dismiss_findings(config, store, [good], "twice")
    assert result.done == [good] and not result.skipped
