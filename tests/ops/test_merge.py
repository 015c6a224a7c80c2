"""Merge: plan shows everything, links redirected, fields unioned, conflicts
listed, source removed, not in the undo log."""

from __future__ import annotations

import pytest

from brainwork.config import load_config
from brainwork.errors import PageNotFound, UserError
from brainwork.ops import changeset as cs
from brainwork.ops.merge import merge, merge_pages, plan_merge
from brainwork.store import graph
from brainwork.vault.edit import frontmatter_fields

from ops_helpers import resolved_links, snapshot

TARGET = """---
title: Postgres
type: system
tags: [db]
owner: alice
---
# Postgres
The main database. See [[Orders]].
"""

SOURCE = """---
type: system
aliases: [PG]
tags: [db, sql]
owner: bob
used_by:
  - "[[tasks/T1]]"
url: https://pg.example
---
# PostgreSQL
Same thing, longer name. Mentions [[Postgres]].
"""


@pytest.fixture
def vault(make_vault):
    return make_vault({
        "things/Postgres.md": TARGET,
        "things/PostgreSQL.md": SOURCE,
        "things/Orders.md": "# Orders\n",
        "tasks/T1.md": '---\ntype: task\nused: "[[PostgreSQL]]"\n---\nUsed [[PG]], [[PostgreSQL|pg]], ![[PostgreSQL#Setup]] and [x](../things/PostgreSQL.md)\n',
    })


def test_plan_shows_everything_and_writes_nothing(env, vault) -> None:
    config, store = env
    before = snapshot(vault)
    plan = plan_merge(config, store, "PostgreSQL", "Postgres")
    assert snapshot(vault) == before
    assert (plan.source, plan.target) == ("things/PostgreSQL", "things/Postgres")
    assert plan.links_rewritten == 5
    assert set(plan.pages_touched) == {"tasks/T1.md", "things/Postgres.md", "things/PostgreSQL.md"}
    assert [(c.key, c.target_value, c.source_value, c.chosen) for c in plan.conflicts] == [("owner", "alice", "bob", "target")]
    assert plan.fields_added == ["used_by", "url"]
    assert plan.items_added == {"tags": ["sql"]}
    assert plan.aliases_added == ["PostgreSQL", "PG"]
    rows = plan.side_by_side()
    assert ("equal", "type: system", "type: system") in rows
    assert any(tag == "delete" or (tag == "replace" and left == "owner: bob") for tag, left, _ in rows)
    assert "+## Merged from PostgreSQL" in plan.target_diff()
    text = plan.describe()
    assert "cannot be undone" in text and "owner: target 'alice' vs source 'bob'" in text
    assert plan.to_json()["irreversible"] is True


def test_merge_applies_and_is_irreversible(env, vault) -> None:
    config, store = env
    result = merge_pages(config, store, "PostgreSQL", "Postgres")
    assert result.operation.id == 1 and not result.operation.reversible
    assert not (vault / "things/PostgreSQL.md").exists()
    merged = (vault / "things/Postgres.md").read_text()
    assert merged == (
        "---\ntitle: Postgres\ntype: system\ntags: [db, sql]\nowner: alice\n"
        'used_by:\n  - "[[tasks/T1]]"\nurl: https://pg.example\naliases:\n  - PostgreSQL\n  - PG\n---\n'
        "# Postgres\nThe main database. See [[Orders]].\n\n## Merged from PostgreSQL\n\n"
        "Same thing, longer name. Mentions [[Postgres]].\n"
    )
    assert (vault / "tasks/T1.md").read_text() == (
        '---\ntype: task\nused: "[[Postgres]]"\n---\n'
        "Used [[Postgres]], [[Postgres|pg]], ![[Postgres#Setup]] and [x](../things/Postgres.md)\n"
    )
    assert all(t != "things/PostgreSQL" for items in resolved_links(vault).values() for _, t in items)
    assert graph.get_page(store, "things/PostgreSQL") is None
    edges = graph.page_edges(store, "things/Postgres")
    assert {e.other for e in edges.in_} >= {"tasks/T1"}
    (entry,) = cs.history(store)  # recorded, without its bytes, so that undo can say it stops there
    assert entry.kind == "merge" and not entry.reversible
    with pytest.raises(UserError, match=r"merge #1 .* cannot be undone; there is nothing older to undo"):
        cs.undo(config, store)
    with pytest.raises(UserError, match="nothing to undo"):
        cs.undo(config, store)


def test_prefer_source_and_per_key(env, vault) -> None:
    config, store = env
    plan = plan_merge(config, store, "PostgreSQL", "Postgres", prefer="source")
    assert frontmatter_fields(plan.merged_text)["owner"] == "bob"
    assert plan.conflicts[0].chosen == "source"
    plan = plan_merge(config, store, "PostgreSQL", "Postgres", prefer={"owner": "target"})
    assert frontmatter_fields(plan.merged_text)["owner"] == "alice"


def test_stale_plan_is_refused(env, vault) -> None:
    config, store = env
    plan = plan_merge(config, store, "PostgreSQL", "Postgres")
    (vault / "tasks/T1.md").write_text("changed after planning [[PostgreSQL]]\n")
    before = snapshot(vault)
    with pytest.raises(UserError, match=r"tasks/T1\.md was changed since"):
        merge(config, store, plan)
    assert snapshot(vault) == before


def test_merge_refusals(env) -> None:
    config, store = env
    with pytest.raises(UserError, match="into itself"):
        plan_merge(config, store, "Postgres", "things/Postgres.md")
    with pytest.raises(PageNotFound):
        plan_merge(config, store, "Nope", "Postgres")


def test_undo_of_earlier_rename_refuses_after_merge_touched_its_files(env, vault) -> None:
    from brainwork.ops.rename import rename

    config, store = env
    rename(config, store, "Orders", "Order book")
    merge_pages(config, store, "PostgreSQL", "Postgres")  # rewrites Postgres.md again
    with pytest.raises(UserError, match=r"merge #2 .* cannot be undone; the next undo would revert rename #1"):
        cs.undo(config, store)
    with pytest.raises(UserError, match=r"cannot undo rename #1 .*things/Postgres\.md was changed since it was applied"):
        cs.undo(config, store)


def test_property_merge_redirects_links_and_keeps_others(tmp_path) -> None:
    import shutil

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from brainwork.store import Store
    from brainwork.vault.parse import page_id
    from test_rename import vault_specs

    root = tmp_path / "v"
    root.mkdir()
    config = load_config(root, tmp_path / "store")
    store = Store(config.store)
    outcomes: list[str] = []

    @settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(vault_specs(), st.integers(0, 4))
    def check(spec, pick) -> None:
        files, victim, _, _ = spec
        shutil.rmtree(root)
        root.mkdir()
        for rel, data in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
        others = sorted(r for r in files if r != victim)
        target_rel = others[pick % len(others)]
        sid, tid = page_id(victim), page_id(target_rel)
        before = snapshot(root)
        links_before = resolved_links(root)
        try:
            merge_pages(config, store, sid, tid)
        except UserError:
            assert snapshot(root) == before
            outcomes.append("refused")
            return
        outcomes.append("merged")
        assert not (root / victim).exists()
        links_after = resolved_links(root)
        for rel, items in links_before.items():
            if rel in (victim, target_rel):
                continue
            for (raw, was), (raw2, now) in zip(items, links_after[rel], strict=True):
                want = tid if was == sid else was
                assert now == want or (was is None and now == tid), (rel, raw, raw2, now)
        allowed = {tid if t == sid else t for _, t in links_before[victim] + links_before[target_rel]} | {None, tid}
        assert {t for _, t in links_after[target_rel]} <= allowed
        assert all(t != sid for items in links_after.values() for _, t in items)

    try:
        check()
    finally:
        store.close()
    assert outcomes.count("merged") >= 5, outcomes  # the property was really exercised
