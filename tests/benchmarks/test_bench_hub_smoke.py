"""benchmarks.bench_hub runs both commands on a tiny vault, beside "another"
tree (this one again), in fresh processes (no timing)."""

from __future__ import annotations

from pathlib import Path

from benchmarks import bench_hub


def test_bench_hub_runs_on_a_tiny_vault(make_vault, capsys) -> None:
    vault = make_vault({"a.md": "---\ntitle: A\n---\nsee [[b]]\n", "b.md": "text [[a]] [[nowhere]]\n"})
    src = Path(bench_hub.__file__).resolve().parents[1] / "src"
    assert bench_hub.main([str(vault), "--runs", "1", "--before", str(src)]) == 0
    out = capsys.readouterr().out
    for command in ("index", "check"):
        for tree in ("before", "after"):
            assert f"{command:6s} {tree:7s}" in out
