"""The journal entry and the store-action table, without a vault."""

from __future__ import annotations

import pytest

from brainwork.errors import UserError
from brainwork.ops.journal import FileChange, JournalEntry, pack, unpack
from brainwork.ops.store_actions import STORE_ACTIONS, check_known


def test_entry_round_trips_through_the_change_set_format() -> None:
    entry = JournalEntry.new("apply", "rename", "a -> b", store_actions=[{"do": "dismiss", "key": "k"}],
                             details={"links": 2})
    changes = [FileChange("a.md", b"old", None), FileChange("b.md", None, b"new")]
    meta, back = unpack(pack(entry.to_meta(), changes))
    assert JournalEntry.from_meta(meta) == entry and back == changes
    assert entry.op_id is None and entry.reversible and len(entry.token) == 32


def test_an_entry_lacking_fields_names_them() -> None:
    meta = JournalEntry.new("undo", "rename", "x", op_id=3).to_meta()
    del meta["kind"], meta["op_id"]
    with pytest.raises(KeyError, match="kind, op_id"):
        JournalEntry.from_meta(meta)


def test_the_store_action_table_knows_dismiss_and_undismiss() -> None:
    assert {"dismiss", "undismiss"} <= set(STORE_ACTIONS)
    assert STORE_ACTIONS["dismiss"].undo is STORE_ACTIONS["undismiss"].do
    check_known([{"do": "dismiss", "key": "k"}])
    with pytest.raises(UserError, match="unknown store action 'nope'"):
        check_known([{"do": "nope"}])
