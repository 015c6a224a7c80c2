"""The full sync's page spool: Parquet files in the store folder, COPied
into ``Page``/``PageBody`` and removed afterwards."""

from __future__ import annotations

from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.store import Store, graph

from tests.index.test_sync import BASE

PAGE_Q = "MATCH (p:Page) RETURN p.id, p.path, p.kind, p.title, p.type, p.aliases, p.tags, p.fields, p.hash ORDER BY p.id"
BODY_Q = "MATCH (b:PageBody) RETURN b.id, b.body, b.links ORDER BY b.id"


def _index(vault, folder):
    cfg = load_config(vault, folder)
    with Store(cfg.store) as store:
        report = sync(cfg, store)
        return report, store.execute(PAGE_Q), store.execute(BODY_Q)


def test_spool_is_removed_with_a_leftover_one(make_vault, tmp_path):
    vault = make_vault(BASE)
    folder = tmp_path / "st"
    leftover = folder / f"{graph.SPOOL_PREFIX}killed"
    leftover.mkdir(parents=True)
    (leftover / "page.parquet").write_bytes(b"half")
    report, pages, bodies = _index(vault, folder)
    assert report.wrote and len(pages) == len(BASE) and len(bodies) == len(BASE)
    assert not list(folder.glob(graph.SPOOL_PREFIX + "*"))


def test_a_store_path_with_a_quote_gets_the_same_rows(make_vault, tmp_path):
    """Kùzu takes a COPY file name only as a literal: a quote in the path
    goes through Arrow instead, with the same rows."""
    vault = make_vault(BASE)
    plain = _index(vault, tmp_path / "st")
    quoted = _index(vault, tmp_path / "it's a store")
    assert plain[1] == quoted[1] and plain[2] == quoted[2]
    assert not list((tmp_path / "it's a store").glob(graph.SPOOL_PREFIX + "*"))


def test_bodies_left_by_a_killed_first_index_are_replaced(make_vault, tmp_path):
    """A first index writes the bodies in a transaction before the pages: a
    kill between the two leaves bodies without pages, which the next index
    drops instead of failing on their ids."""
    vault = make_vault(BASE)
    folder = tmp_path / "st"
    with Store(folder) as store, store.write():
        store.execute("CREATE (:PageBody {id: 'Home', body: 'stale', links: '[]'})")
        store.execute("CREATE (:PageBody {id: 'gone', body: 'stale', links: '[]'})")
    report, pages, bodies = _index(vault, folder)
    fresh = _index(vault, tmp_path / "fresh")
    assert report.wrote and pages == fresh[1] and bodies == fresh[2]
