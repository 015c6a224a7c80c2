"""benchmarks.bench_sync_edit runs end to end on a tiny vault (no timing)."""

from __future__ import annotations

import json

from benchmarks import bench_sync_edit


def test_bench_sync_edit_runs_on_a_tiny_vault(capsys) -> None:
    assert bench_sync_edit.main(["--pages", "60", "--runs", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["results"]) == {"unchanged", "text", "link"}
    runs = out["results"]
    assert not runs["unchanged"]["runs"][0]["wrote"]
    assert runs["text"]["runs"][0]["changed"] == 1 and runs["link"]["runs"][0]["changed"] == 1
