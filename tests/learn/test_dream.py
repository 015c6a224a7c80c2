"""``brainwork dream``: proposals gathered into the store's review queue
without touching the vault; accepted one operation at a time, undoable
(merges only with --yes)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path


def _run(vault: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("brainwork")
    res = subprocess.run([str(exe), *args, "--vault", str(vault)], capture_output=True, text=True, timeout=600)
    if check:
        assert res.returncode == 0, res.stderr
    return res


def _snapshot(vault: Path) -> dict[str, str]:
    return {p.relative_to(vault).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in vault.rglob("*") if p.is_file() and ".brainwork" not in p.relative_to(vault).parts}


def test_dream_queue_accept_undo_decline(exported_template, tmp_path):
    vault = tmp_path / "vault"
    shutil.copytree(exported_template, vault)
    # a planted duplicate: a merge candidate
    src = (vault / "systems" / "edge-proxy.md").read_text(encoding="utf-8")
    (vault / "systems" / "edge-proxy-2.md").write_text(src, encoding="utf-8")
    before = _snapshot(vault)
    out = json.loads(_run(vault, "dream", "--json").stdout)
    assert _snapshot(vault) == before  # nothing changes until a person accepts
    kinds = {p["kind"] for p in out["proposals"]}
    assert {"retitle", "merge"} <= kinds and out["found"]["retitle"] >= 1
    assert all(p["state"] == "pending" for p in out["proposals"])
    retitle = next(p for p in out["proposals"] if p["kind"] == "retitle" and p["payload"]["page"].startswith("tasks/"))
    merge = next(p for p in out["proposals"] if p["kind"] == "merge")
    assert merge["reversible"] is False and {merge["payload"]["source"], merge["payload"]["target"]} == {
        "systems/edge-proxy", "systems/edge-proxy-2"}

    # accept the retitle: one undoable operation
    done = json.loads(_run(vault, "dream", "accept", str(retitle["id"]), "--json").stdout)
    assert done["operation"] and done["proposal"]["state"] == "accepted"
    page = vault / f"{retitle['payload']['page']}.md"
    assert retitle['payload']['new_title'] in page.read_text(encoding="utf-8").split("\n---", 1)[0]
    _run(vault, "undo")
    assert _snapshot(vault) == before
    listed = json.loads(_run(vault, "dream", "list", "--all", "--json").stdout)["proposals"]
    assert next(p for p in listed if p["id"] == retitle["id"])["state"] == "undone"
    again = _run(vault, "dream", "accept", str(retitle["id"]), check=False)
    assert again.returncode == 2 and "already" in again.stderr

    # a merge is irreversible: refused without --yes, done with it
    refused = _run(vault, "dream", "accept", str(merge["id"]), check=False)
    assert refused.returncode == 2 and "--yes" in refused.stderr and _snapshot(vault) == before
    _run(vault, "dream", "accept", str(merge["id"]), "--yes")
    assert not (vault / f"{merge['payload']['source']}.md").exists()

    # a declined proposal is not raised again
    other = next(p for p in out["proposals"] if p["state"] == "pending" and p["id"] not in (retitle["id"], merge["id"]))
    _run(vault, "dream", "decline", str(other["id"]))
    rerun = json.loads(_run(vault, "dream", "--json").stdout)
    assert other["id"] not in {p["id"] for p in rerun["proposals"]}
    assert merge["payload"]["source"] not in {p["payload"].get("source") for p in rerun["proposals"]}  # merged away


def test_a_merge_goes_the_way_the_duplicate_findings_merge_fix_goes(learn_vault):
    """The review queue merges a duplicate pair in the direction the
    workbench's ``m`` on the duplicate finding does: into the page more
    links point to (tools/pgdump, 2 links, into tools/pg-dump, 9)."""
    from brainwork.analysis.findings import check
    from brainwork.learn.dream import gather
    from brainwork.ops.merge import incoming_links, merge_direction

    config, store = learn_vault
    merges = {p["source"]: p["target"] for kind, _k, _s, p in gather(config, store, today="2026-12-02") if kind == "merge"}
    assert merges.get("tools/pgdump") == "tools/pg-dump"
    assert incoming_links(store, "tools/pg-dump") > incoming_links(store, "tools/pgdump")
    for f in check(config, store, ["duplicate"]):
        if not f.evidence.get("merge_candidate"):
            continue
        # the workbench's rule (tui/screens/findings.py, plan_merge with choose)
        src, dst = f.other, f.page
        if incoming_links(store, src) > incoming_links(store, dst):
            src, dst = dst, src
        assert merge_direction(store, f.page, f.other) == (src, dst)
        assert merges[src] == dst
