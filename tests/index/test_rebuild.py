"""``brainwork index --rebuild``: a new store from the vault that keeps
every table only the store holds, and the old database kept aside.

History is written through the store modules' own functions (undo log,
dismissals, rejected clusters, consolidation passes, the review queue,
recall hits, embeddings with their model name), then compared table by table
after the rebuild. A truncated store cannot be opened at all: its history is
reported lost in one line and the rebuild still succeeds.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from brainwork.config import load_config
from brainwork.index.rebuild import rebuild
from brainwork.index.sync import sync
from brainwork.store import Store, schema
from brainwork.store import dismissals, history, learning, recall, review, vectors

FILES = {
    "a.md": "# Alpha\n[[b]] [[Nowhere]]\n",
    "b.md": "---\ntype: tool\n---\n# Beta\n[[a]]\n",
    "sub/c.md": "# Gamma\n[[a|first]] ![[img.png]]\n",
    "img.png": b"\x89PNG",
}
BRAINWORK = str(Path(sys.executable).with_name("brainwork"))


def _history(store: Store) -> dict[str, list]:
    """Every kept table's rows (sorted, SERIAL columns left out)."""
    out = {}
    for table in schema.KEPT_TABLES:
        if not store.scalar("CALL show_tables() WHERE name = $t RETURN count(*)", {"t": table}):
            continue
        cols = schema.history_columns(table)
        # Positional names, so '' stays '' (Store.execute reads '' as None in
        # columns named like a page's absent text columns, e.g. ``created``).
        rows = store.execute(f"MATCH (n:{table}) RETURN " + ", ".join(f"n.{c} AS v{i}" for i, c in enumerate(cols)))
        rows = [[np.asarray(v).round(6).tolist() if c == "vec" else v for c, v in zip(cols, r)] for r in rows]
        if table == "Meta":
            rows = [r for r in rows if r[0] not in schema.META_NOT_KEPT]
        out[table] = sorted(map(repr, rows))
    out.setdefault("PageVec", [])
    out["PageVec"] = out["PageVec"] + out.pop("PageVecB", [])
    return out


def _fill_history(store: Store) -> None:
    with store.write():
        history.insert(store, history.UndoRow(
            id=1, token="t1", kind="rename", summary="rename 'a' -> 'A'", created="2026-01-01T00:00:00+00:00",
            reversible=True, state="done", paths=["a.md"], store_actions="[]", details="{}", payload="eJwDAAAAAAE="))
        history.insert(store, history.UndoRow(
            id=2, token="t2", kind="merge", summary="merge", created="2026-01-02T00:00:00+00:00",
            reversible=False, state="passed", paths=[], store_actions=None, details=None, payload=None))
        history.insert(store, history.UndoRow(
            id=3, token="t3", kind="dismiss", summary="dismiss", created="", reversible=True, state="done",
            paths=[], store_actions="[]", details="{}", payload=""))
    # A SET in place on a row whose list column is empty: Kùzu's Arrow export
    # of that column is then invalid (the export must not go through it).
    history.set_state(store, 3, "undone")
    with store.write():
        dismissals.dismiss(store, "stub:b", "fine as is")
    learning.record_rejection(store, "rules/r1", ["corrections/c1", "corrections/c2"], "too broad", "2026-01-03")
    learning.record_pass(store, "2026-01-04T00:00:00+00:00", ["corrections/c1"], [{"members": ["c1"]}], 1)
    review.replace_pending(store, [("retitle", "retitle:a", "Retitle a", {"title": "Alpha"})], "2026-01-05")
    recall.record_hits(store, [("a", "task"), ("b", "rule")], "how to", at="2026-01-06T00:00:00+00:00")
    rng = np.random.default_rng(3)
    vectors.write_vectors(store, [(pid, f"k-{pid}", "test-model", "tool" if pid == "b" else None,
                                   rng.random(schema.VECTOR_DIM).astype(np.float32)) for pid in ("a", "b", "sub/c")],
                          model="test-model")


@pytest.fixture
def vault_with_history(make_vault):
    vault = make_vault(FILES)
    config = load_config(str(vault), None)
    with Store(config.store) as store:
        sync(config, store)
        _fill_history(store)
        before = _history(store)
    assert all(before[t] for t in ("UndoOp", "Dismissal", "RejectedCluster", "ConsolidationPass",
                                   "ReviewProposal", "RecallHit", "PageVec", "Meta"))
    return config, before


def _derived(store: Store) -> tuple:
    pages = sorted(store.execute("MATCH (p:Page) OPTIONAL MATCH (b:PageBody {id: p.id}) RETURN p.id, p.hash, p.kind, b.links"))
    edges = sorted(store.execute("MATCH (a:Page)-[r]->(b) RETURN label(r), a.id, b.id, r.line, r.target, r.label"))
    return pages, edges


def test_rebuild_keeps_history_and_the_old_store(vault_with_history, tmp_path):
    config, before = vault_with_history
    old_bytes = (config.store / "graph.kuzu").read_bytes()
    report = rebuild(config)
    assert report.lost == {} and report.lost_line() is None
    assert [p.name for p in report.moved_aside] == [f"graph.kuzu{p.name[len('graph.kuzu'):]}" for p in report.moved_aside]
    aside = report.moved_aside[0]
    assert aside.name.startswith("graph.kuzu.before-rebuild-") and aside.read_bytes() == old_bytes
    assert report.sync.pages == 3 and report.sync.dead_links == 1
    assert not list(config.store.glob("rebuild-export-*"))  # the export folder is cleaned up
    with Store(config.store) as store:
        assert _history(store) == before
        assert vectors.current_model(store) == "test-model" and vectors.count(store) == 3
        assert history.next_id(store) == 4
        assert store.execute("MATCH (o:UndoOp {id: 3}) RETURN o.created AS v, o.state AS w") == [["", "undone"]]
        rebuilt = _derived(store)
    fresh_config = load_config(str(config.vault), str(tmp_path / "fresh"))
    with Store(fresh_config.store) as fresh:
        sync(fresh_config, fresh)
        assert _derived(fresh) == rebuilt  # the same store a fresh index makes


def test_rebuild_of_a_truncated_store_loses_history_in_one_line(vault_with_history):
    config, _ = vault_with_history
    db = config.store / "graph.kuzu"
    damaged = db.read_bytes()[:100_000]
    db.write_bytes(damaged)
    r = subprocess.run([BRAINWORK, "index", "--rebuild", "--vault", str(config.vault)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("brainwork: history lost") and "could not be read" in err[0]
    assert "rebuilt: 3 pages, 1 attachments" in r.stdout
    asides = list(config.store.glob("graph.kuzu.before-rebuild-*"))
    assert len(asides) == 1 and asides[0].read_bytes() == damaged
    r = subprocess.run([BRAINWORK, "stats", "--json", "--vault", str(config.vault)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and '"pages": 3' in r.stdout


def test_rebuild_with_json_and_no_store_yet(make_vault):
    vault = make_vault(FILES)
    r = subprocess.run([BRAINWORK, "index", "--rebuild", "--json", "--vault", str(vault)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    import json

    data = json.loads(r.stdout)
    assert data["kept"] == {} and data["lost"] == {} and data["moved_aside"] == []
    assert data["index"]["pages"] == 3


def test_a_table_whose_reading_crashes_is_lost_alone(vault_with_history, monkeypatch):
    """The export child dies (SIGSEGV) on one table: that table is lost, the
    child starts again on the rest, and they are kept."""
    from brainwork.store.probe import CRASH_TABLE_ENV

    config, before = vault_with_history
    monkeypatch.setenv(CRASH_TABLE_ENV, "Dismissal")
    report = rebuild(config)
    assert report.lost == {"Dismissal": "reading it crashed the reader (SIGSEGV)"}
    assert report.lost_line() == ("history lost (unreadable in the old store): Dismissal — "
                                  "reading it crashed the reader (SIGSEGV)")
    with Store(config.store) as store:
        after = _history(store)
    assert after["Dismissal"] == []
    assert {t: rows for t, rows in after.items() if t != "Dismissal"} == \
        {t: rows for t, rows in before.items() if t != "Dismissal"}
