"""changeset.apply / undo / redo / history against a real store in tmp_path."""

from __future__ import annotations

import pytest

from brainwork.config import load_config
from brainwork.errors import UnsafePath, UserError
from brainwork.index.sync import sync
from brainwork.ops import changeset as cs
from brainwork.ops.changeset import FileChange
from brainwork.store import graph


@pytest.fixture
def vault(make_vault):
    return make_vault({"a.md": "---\ntitle: A\n---\nSee [[b]].\n", "b.md": "# B\n\nbody\n"})


def test_apply_undo_redo_roundtrip(env, vault) -> None:
    config, store = env
    a = (vault / "a.md").read_bytes()
    op = cs.apply(config, store, "test", "edit a, add c",
                  [FileChange("a.md", a, a + b"[[c]]\n"), FileChange("c.md", None, b"# C\n")],
                  details={"n": 1})
    assert op.id == 1 and op.state == "done" and op.paths == ["a.md", "c.md"] and op.details == {"n": 1}
    assert (vault / "c.md").read_bytes() == b"# C\n"
    assert graph.get_page(store, "c") is not None  # the graph follows in the same step
    assert not cs.pending_journal(config)

    undone = cs.undo(config, store)
    assert undone.id == 1 and undone.state == "undone"
    assert (vault / "a.md").read_bytes() == a and not (vault / "c.md").exists()
    assert graph.get_page(store, "c") is None
    assert cs.can_redo(store).id == 1 and cs.can_undo(store) is None

    redone = cs.redo(config, store)
    assert redone.state == "done" and (vault / "c.md").exists()
    with pytest.raises(UserError, match="nothing to redo"):
        cs.redo(config, store)

    [listed] = cs.history(store)
    assert listed.changes == [] and listed.paths == ["a.md", "c.md"]
    [full] = cs.history(store, with_changes=True)
    diffs = dict(full.diff())
    assert "+[[c]]" in diffs["a.md"] and "+++ c.md" in diffs["c.md"]


def test_new_operation_clears_redo_stack(env, vault) -> None:
    config, store = env
    a = (vault / "a.md").read_bytes()
    cs.apply(config, store, "t", "one", [FileChange("a.md", a, a + b"1\n")])
    cs.undo(config, store)
    cs.apply(config, store, "t", "two", [FileChange("a.md", a, a + b"2\n")])
    assert [o.summary for o in cs.history(store)] == ["two"]
    with pytest.raises(UserError, match="nothing to redo"):
        cs.redo(config, store)


def test_apply_refuses_when_file_changed_since_planning(env, vault) -> None:
    config, store = env
    a = (vault / "a.md").read_bytes()
    (vault / "a.md").write_bytes(a + b"agent wrote this\n")
    with pytest.raises(UserError, match=r"a\.md was changed since"):
        cs.apply(config, store, "t", "x", [FileChange("a.md", a, b"new"), FileChange("z.md", None, b"z")])
    assert not (vault / "z.md").exists()
    with pytest.raises(UserError, match=r"b\.md now exists"):
        cs.apply(config, store, "t", "x", [FileChange("b.md", None, b"new")])


def test_undo_refuses_when_someone_changed_the_file(env, vault) -> None:
    config, store = env
    a = (vault / "a.md").read_bytes()
    cs.apply(config, store, "t", "x", [FileChange("a.md", a, a + b"op\n")])
    (vault / "a.md").write_bytes(a + b"op\nthen a person typed\n")
    with pytest.raises(UserError, match=r"cannot undo t #1 \(x\): a\.md was changed since it was applied"):
        cs.undo(config, store)
    assert (vault / "a.md").read_bytes().endswith(b"then a person typed\n")
    assert cs.history(store)[0].state == "done"


def test_irreversible_operation_is_logged_without_bytes_and_stops_undo(env, vault) -> None:
    config, store = env
    b = (vault / "b.md").read_bytes()
    op = cs.apply(config, store, "merge", "gone", [FileChange("b.md", b, None)], reversible=False)
    assert op.id == 1 and not (vault / "b.md").exists()
    (entry,) = cs.history(store, with_changes=True)
    assert not entry.reversible and entry.changes == [] and entry.paths == ["b.md"]
    with pytest.raises(UserError, match="merge #1 \\(gone\\) cannot be undone; there is nothing older to undo"):
        cs.undo(config, store)
    assert not (vault / "b.md").exists()
    with pytest.raises(UserError, match="nothing to undo"):
        cs.undo(config, store)


@pytest.mark.parametrize(
    "path",
    ["../outside.md", "/etc/passwd", "a/../../x.md", "nul\x00.md", "CON.md", "dir/aux.txt", ".hidden.md",
     ".brainwork/graph.md", "C:/x.md", "a\\..\\b.md", " lead.md"],
)
def test_hostile_paths_rejected(env, vault, path) -> None:
    config, store = env
    with pytest.raises(UnsafePath):
        cs.apply(config, store, "t", "x", [FileChange(path, None, b"x")])
    assert sorted(p.name for p in vault.iterdir() if not p.name.startswith(".")) == ["a.md", "b.md"]


def test_symlink_out_of_vault_rejected(env, vault, tmp_path) -> None:
    config, store = env
    outside = tmp_path / "outside"
    outside.mkdir()
    (vault / "link").symlink_to(outside)
    with pytest.raises(UnsafePath, match="outside"):
        cs.apply(config, store, "t", "x", [FileChange("link/x.md", None, b"x")])
    assert list(outside.iterdir()) == []


def test_store_actions_are_undoable(env) -> None:
    config, store = env
    seen: list[str] = []
    cs.register_store_action("test-mark", lambda s, a: seen.append("do " + a["key"]), lambda s, a: seen.append("undo " + a["key"]))
    op = cs.apply(config, store, "mark", "mark k", [], store_actions=[{"do": "test-mark", "key": "k"}])
    assert op.store_actions == [{"do": "test-mark", "key": "k"}]
    cs.undo(config, store)
    cs.redo(config, store)
    assert seen == ["do k", "undo k", "do k"]
    with pytest.raises(UserError, match="unknown store action"):
        cs.apply(config, store, "x", "x", [], store_actions=[{"do": "nope"}])
    with pytest.raises(UserError, match="nothing to change"):
        cs.apply(config, store, "x", "x", [])


def test_history_survives_reopening_the_store(vault, tmp_path) -> None:
    from brainwork.store import Store

    config = load_config(vault, tmp_path / "s2")
    with Store(config.store) as store:
        sync(config, store)
        a = (vault / "a.md").read_bytes()
        cs.apply(config, store, "t", "persist", [FileChange("a.md", a, a + b"x\n")])
    with Store(config.store) as store:
        assert [o.summary for o in cs.history(store)] == ["persist"]
        cs.undo(config, store)
    assert (vault / "a.md").read_bytes() == a
