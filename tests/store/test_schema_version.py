"""A store written by another schema version is rebuilt from the vault,
keeping its history tables; dead links written with an inverse key are
listed as incoming."""

from __future__ import annotations

from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.store import Store, graph


def test_old_schema_version_rebuilds_derived_tables_and_keeps_history(make_vault, tmp_path) -> None:
    vault = make_vault({"a.md": "links to [[b]]", "b.md": "back to [[a]]"})
    cfg = load_config(vault, tmp_path / "store")
    store = Store(cfg.store)
    sync(cfg, store)
    store.execute("CREATE (:Dismissal {key: 'orphan:x', reason: 'kept', created: '2026-11-29'})")
    store.set_meta("schema_version", "0")
    store.close()

    store = Store(cfg.store)
    try:
        assert graph.counts(store).pages == 0  # derived tables were dropped
        assert store.scalar("MATCH (d:Dismissal) RETURN count(d)") == 1  # history kept
        report = sync(cfg, store)
        assert report.pages == 2 and report.wrote
        assert graph.counts(store).edges["related"] == 2
    finally:
        store.close()


def test_dead_link_with_inverse_key_is_incoming(make_vault, tmp_path) -> None:
    vault = make_vault({"c.md": '---\ntype: correction\ncorrects: "[[gone-task]]"\n---\nbody\n'})
    cfg = load_config(vault, tmp_path / "store")
    with Store(cfg.store) as store:
        sync(cfg, store)
        edges = graph.page_edges(store, "c")
    assert edges.out == []
    [dead] = edges.in_
    assert dead.dead and dead.edge == "corrected_by" and dead.other == "gone-task"
