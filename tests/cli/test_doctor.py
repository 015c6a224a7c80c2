"""``brainwork doctor``: one line per problem with the command that fixes
it; exit 0 healthy, 1 problems, 2 usage error. Each problem is made the way
it happens (a page's stored hash or an edge wrong in the store, a file
changed, what a killed process leaves behind, a truncated store), then fixed
with the command doctor names."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.store import Store

FILES = {
    "a.md": "# Alpha\n[[b]] [[Nowhere]]\n",
    "b.md": "---\ntype: tool\n---\n# Beta\n[[a]]\n",
    "sub/c.md": "# Gamma\n[[a|first]] [[b]]\n",
    "img.png": b"\x89PNG",
}
BRAINWORK = str(Path(sys.executable).with_name("brainwork"))


def doctor(vault: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([BRAINWORK, "doctor", "--vault", str(vault), *args], capture_output=True, text=True,
                          timeout=300)


def run(vault: Path, *args: str) -> subprocess.CompletedProcess:
    r = subprocess.run([BRAINWORK, *args, "--vault", str(vault)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r


@pytest.fixture
def vault(make_vault):
    root = make_vault(FILES)
    config = load_config(str(root), None)
    with Store(config.store) as store:
        sync(config, store)
    return root


def _codes(r: subprocess.CompletedProcess) -> dict[str, str]:
    data = json.loads(r.stdout)
    return {p["code"]: p["fix"] for p in data["problems"]}


def test_healthy(vault):
    r = doctor(vault)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[-1] == "healthy"
    assert "pages 3 (vault 3), attachments 1 (vault 1)" in lines[0] and "hashes: 3 checked, 0 differ" in lines[0]
    data = json.loads(doctor(vault, "--json").stdout)
    assert data["healthy"] is True and data["problems"] == []
    assert data["checked"]["stored_edges"] == data["checked"]["expected_edges"] == 4
    assert data["checked"]["stored_dead_links"] == 1


def test_wrong_store_contents_are_found_and_fixed_by_a_full_index(vault):
    config = load_config(str(vault), None)
    with Store(config.store) as store:
        store.execute("MATCH (p:Page {id: 'b'}) SET p.hash = $h", {"h": "0" * 64})
        store.execute("MATCH (:Page {id: 'sub/c'})-[r:RELATED]->(:Page {id: 'b'}) DELETE r")
    r = doctor(vault, "--json")
    assert r.returncode == 1
    assert _codes(r) == {"hash": "brainwork index --full", "edges": "brainwork index --full"}
    text = doctor(vault)
    problem_lines = [l for l in text.stdout.splitlines() if l.startswith(("hash:", "edges:"))]
    assert len(problem_lines) == 2 and all("fix: `brainwork index --full`" in l for l in problem_lines)
    assert "1 of 3 sampled pages differ" in text.stdout and "(e.g. b.md)" in text.stdout
    run(vault, "index", "--full")
    assert doctor(vault).returncode == 0


def test_a_changed_vault_is_out_of_date(vault):
    (vault / "d.md").write_text("# Delta\n")
    (vault / "a.md").write_text("# Alpha\nchanged [[b]]\n")
    r = doctor(vault, "--json")
    assert r.returncode == 1 and _codes(r) == {"out-of-date": "brainwork index"}
    assert "1 new, 1 changed" in json.loads(r.stdout)["problems"][0]["message"]
    run(vault, "index")
    assert doctor(vault).returncode == 0


def test_leftovers_of_killed_processes(vault):
    store = vault / ".brainwork"
    (store / "created").mkdir()
    (store / "created" / "0123abcd.bin").write_bytes(b"BWC1")
    tmp = vault / "sub" / ".bw-x1.tmp"
    tmp.write_bytes(b"half")
    old = time.time() - 3600
    os.utime(tmp, (old, old))
    (vault / "sub" / ".bw-young.tmp").write_bytes(b"still being written")  # a write running now: not reported
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(store / "owner.sock"))
    sock.close()  # the socket file stays, nobody listens: what a SIGKILLed owner leaves
    r = doctor(vault, "--json")
    assert r.returncode == 1
    codes = _codes(r)
    assert set(codes) == {"created", "temp-files", "stale-socket"}
    assert codes["created"] == "brainwork index"
    assert codes["stale-socket"] == f"rm '{store / 'owner.sock'}'"
    msg = {p["code"]: p["message"] for p in json.loads(r.stdout)["problems"]}
    assert "1 temp file left" in msg["temp-files"] and ".bw-x1.tmp" in msg["temp-files"]
    subprocess.run(codes["temp-files"], shell=True, check=True)
    subprocess.run(codes["stale-socket"], shell=True, check=True)
    assert not tmp.exists() and (vault / "sub" / ".bw-young.tmp").exists()


def test_an_interrupted_journal_is_reported(vault):
    (vault / ".brainwork" / "journal.bin").write_bytes(b"torn")
    r = doctor(vault, "--json")
    assert r.returncode == 1 and _codes(r) == {"journal": "brainwork index"}
    assert (vault / ".brainwork" / "journal.bin").exists()  # doctor changes nothing
    run(vault, "index")  # recovery discards the torn journal (no file had changed)
    assert doctor(vault).returncode == 0


def test_schema_version(vault):
    config = load_config(str(vault), None)
    with Store(config.store) as store:
        store.set_meta("schema_version", "3")
    r = doctor(vault, "--json")
    assert r.returncode == 1 and "schema" in _codes(r)


def test_damaged_store_then_rebuild(vault):
    db = vault / ".brainwork" / "graph.kuzu"
    db.write_bytes(db.read_bytes()[:100_000])
    r = doctor(vault)
    assert r.returncode == 1
    assert r.stdout.strip().splitlines()[0].startswith("damaged: the store ")
    assert "fix: `brainwork index --rebuild`" in r.stdout and "Traceback" not in r.stderr
    rebuilt = subprocess.run([BRAINWORK, "index", "--rebuild", "--vault", str(vault)], capture_output=True,
                             text=True, timeout=300)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert doctor(vault).returncode == 0


def test_usage_and_not_a_vault(tmp_path):
    (tmp_path / "empty").mkdir()
    r = doctor(tmp_path / "empty")
    assert r.returncode == 2 and "is not a vault" in r.stderr
    assert not (tmp_path / "empty" / ".brainwork").exists()
    r = doctor(tmp_path / "empty", "--sample", "-1")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1


def test_with_a_live_owner(serving):
    """With `brainwork serve` alive, doctor runs in it (on its open store,
    no stale-socket problem) and `index --rebuild` is refused: it would
    replace the files the owner has open."""
    vault, _proc = serving
    r = doctor(vault, "--json")
    assert r.returncode in (0, 1), r.stderr
    codes = _codes(r)
    assert "stale-socket" not in codes and "busy" not in codes and "damaged" not in codes
    assert json.loads(r.stdout)["checked"]["store_pages"] > 100
    r = subprocess.run([BRAINWORK, "index", "--rebuild", "--vault", str(vault)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 2 and "held by `brainwork serve`" in r.stderr and "before `brainwork index --rebuild`" in r.stderr
    assert not list((vault / ".brainwork").glob("graph.kuzu.before-rebuild-*"))


def test_an_interrupted_rebuild(vault):
    store = vault / ".brainwork"
    (store / "rebuild-export-20260101T000000Z").mkdir()
    r = doctor(vault, "--json")
    assert r.returncode == 1
    assert _codes(r) == {"rebuild-leftover": f"rm -r '{store / 'rebuild-export-20260101T000000Z'}'"}
    # Killed between the two renames of the swap: the new store waits in its side folder.
    new = store / "rebuild-new-20260101T000000Z"
    new.mkdir()
    (store / "graph.kuzu").rename(new / "graph.kuzu")
    (store / "graph.kuzu.seal").rename(new / "graph.kuzu.seal")
    codes = _codes(doctor(vault, "--json"))
    assert codes["rebuild-interrupted"] == f"mv '{new}'/graph.kuzu* '{store}'/"
    subprocess.run(codes["rebuild-interrupted"], shell=True, check=True)
    subprocess.run(codes["rebuild-leftover"], shell=True, check=True)
    new.rmdir()
    assert doctor(vault).returncode == 0
