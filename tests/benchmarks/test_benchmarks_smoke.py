"""Smoke tests: the synthetic vault generator and the benchmark scripts run
on tiny vaults. Nothing here is timed (figures live in docs/performance.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:  # `benchmarks` is a top-level folder, not installed
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks import bench_index, synth  # noqa: E402
from benchmarks.harness import Bench, measure  # noqa: E402
from brainwork.config import load_config  # noqa: E402
from brainwork.index.sync import sync  # noqa: E402
from brainwork.store import Store, graph  # noqa: E402
from brainwork.vocabulary import PAGE_TYPES  # noqa: E402


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_generator_is_deterministic_and_refuses_foreign_folders(tmp_path):
    a = synth.generate(tmp_path / "a", 120, seed=3)
    b = synth.generate(tmp_path / "b", 120, seed=3)
    c = synth.generate(tmp_path / "c", 120, seed=4)
    assert a == b and a != c
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    assert a["pages"] == 120 == sum(1 for p in (tmp_path / "a").rglob("*.md"))
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "note.md").write_text("keep me")
    with pytest.raises(FileExistsError):
        synth.generate(tmp_path / "mine", 10, force=True)
    assert (tmp_path / "mine" / "note.md").read_text() == "keep me"
    synth.generate(tmp_path / "a", 30, seed=3, force=True)  # replaces a generated vault
    assert sum(1 for _ in (tmp_path / "a").rglob("*.md")) == 30


def test_generated_vault_indexes_cleanly_with_a_500_edge_hub(tmp_path):
    m = synth.generate(tmp_path / "v", 600, seed=1, hub=True)
    assert set(m["types"]) - {"None"} <= set(PAGE_TYPES)
    assert len(m["clusters"]) >= 3 and all(len(c["ids"]) >= 3 for c in m["clusters"])
    config = load_config(tmp_path / "v", tmp_path / "store")
    with Store(config.store) as store:
        report = sync(config, store)
        assert report.pages == 600 and report.parse_errors == []
        assert report.dead_links > 0
        for edge in ("used", "cited", "produced", "corrected_by", "promoted_to", "related"):
            assert report.edges[edge] > 0, edge
        live = sum(report.edges.values())
        assert 2.3 <= (live + report.dead_links) / 600 <= 3.8  # ~3 links a page (plus the hub's 500)
        hop1 = graph.neighbourhood(store, m["hub"], hops=1)
        assert sum(r.count for r in hop1) == 500
        sizes = [len(p.read_text(encoding="utf-8").split("\n---\n", 1)[1]) for p in (tmp_path / "v").rglob("*.md")]
        assert min(sizes) < 120 and max(sizes) > 1800  # stubs exist; bodies reach ~2000 chars


def test_harness_table_and_verdicts():
    bench = Bench("smoke")
    bench.add("fast", measure(lambda: None, repeat=3, warmup=1), target=1.0)
    bench.add("big", 500, target=400, unit="MB")
    bench.add("rate", 10, target=5, unit="pages/s", lower_is_better=False)
    table = bench.table()
    assert "fast" in table and "OVER" in table and table.count(" ok") == 2
    assert bench.report() == 1


def test_bench_index_runs_on_a_tiny_vault(tmp_path, capsys):
    bench = bench_index.run(pages=60, runs=1, seed=0, vault=None, workdir=tmp_path, paint=False, cli=False)
    names = [r.name for r in bench.rows]
    assert any(n.startswith("full index") for n in names)
    assert any(n.startswith("neighbourhood, 2 hops") for n in names)
    assert any(n.startswith("palette search") for n in names)
    assert all(r.value > 0 for r in bench.rows)
