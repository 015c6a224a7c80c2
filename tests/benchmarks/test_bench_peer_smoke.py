"""benchmarks.bench_peer runs on a tiny vault; the peer is skipped when not
installed (no timing)."""

from __future__ import annotations

import importlib.util
import json

from benchmarks import bench_peer


def test_bench_peer_runs_on_a_tiny_vault(make_vault, capsys) -> None:
    vault = make_vault({"a.md": "---\ntitle: A\n---\nsee [[b]]\n", "b.md": "text [[a]] [[nowhere]]\n"})
    assert bench_peer.main([str(vault), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["results"]["brainwork"]["edges"] == 2
    assert out["results"]["brainwork"]["dead_links"] == 1
    assert out["results"]["floor"]["files"] == 2
    assert ("obsidiantools" in out["results"]) == (importlib.util.find_spec("obsidiantools") is not None)
