"""Dismissed findings persist in the store and survive re-indexing."""

from __future__ import annotations

from brainwork.analysis.findings import check
from brainwork.index.sync import sync
from brainwork.store import dismissals

PAGE = "---\ntitle: {t}\ntype: topic\n---\nShort {t}.\n"


def test_dismiss_hides_a_finding_until_undismissed(make_vault, with_store, tmp_path):
    vault = make_vault({"a.md": PAGE.format(t="A"), "b.md": PAGE.format(t="B")})
    store_dir = tmp_path / "store"
    with with_store(vault, store_dir) as (config, store):
        before = check(config, store)
        stub_a = next(f for f in before if f.code == "stub" and f.page == "a")
        dismissals.dismiss(store, stub_a.key, "a deliberate one-liner")
        assert stub_a.key in dismissals.dismissed_keys(store)
        after = check(config, store)
        assert stub_a.key not in {f.key for f in after}
        assert len(after) == len(before) - 1
        shown = check(config, store, include_dismissed=True)
        flagged = [f for f in shown if f.dismissed]
        assert [f.key for f in flagged] == [stub_a.key]
        (row,) = dismissals.dismissals(store)
        assert row.key == stub_a.key and row.reason == "a deliberate one-liner" and row.created

    # a new process: the dismissal is still there, also after a forced full re-index and an edit
    (vault / "a.md").write_text(PAGE.format(t="A") + "More.\n", encoding="utf-8")
    with with_store(vault, store_dir) as (config, store):
        sync(config, store, force=True)
        assert stub_a.key not in {f.key for f in check(config, store)}
        dismissals.undismiss(store, stub_a.key)
        dismissals.undismiss(store, stub_a.key)  # idempotent
        assert stub_a.key in {f.key for f in check(config, store)}
        assert dismissals.dismissed_keys(store) == set()


def test_dismiss_twice_replaces_the_reason_and_works_inside_a_write(make_vault, with_store):
    vault = make_vault({"a.md": PAGE.format(t="A")})
    with with_store(vault) as (config, store):
        dismissals.dismiss(store, "orphan:a", "first")
        with store.write():  # the undo machinery may run store actions inside its own transaction
            dismissals.dismiss(store, "orphan:a", "second")
        assert [r.reason for r in dismissals.dismissals(store)] == ["second"]
        assert "orphan:a" not in {f.key for f in check(config, store)}


def test_dismissing_nothing_is_refused(make_vault, with_store):
    import pytest

    vault = make_vault({"a.md": PAGE.format(t="A")})
    with with_store(vault) as (_config, store), pytest.raises(ValueError):
        dismissals.dismiss(store, "", "no key")
