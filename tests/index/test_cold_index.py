"""The cold index (a store without pages) is written in slices, several
transactions: it stores exactly what the one-transaction full sync and the
partial sync store, and one killed between two slices leaves a store the
next command indexes again from nothing."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from brainwork.config import load_config
from brainwork.index import cold
from brainwork.index.sync import sync
from brainwork.store import Store, delta

SAMPLE = Path(__file__).resolve().parents[2] / "sample_vault"

EXTRA = {
    "files/diagram.png": b"\x89PNG\r\n\x1a\nnot really",
    "files/report.pdf": b"%PDF-1.4",
    "links/to-files.md": "see ![[diagram.png]] and [report](../files/report.pdf) and [[Nowhere at all]]\n",
    "links/bad-yaml.md": "---\ntitle: [unclosed\n---\nbody [[diagram.png]]\n",
    "links/alias.md": "---\ntitle: Aliased\naliases: [Other Name, Third]\n---\n[[Other Name]] [[links/to-files]]\n",
    unicodedata.normalize("NFC", "links/Café.md"): "nfc [[Aliased]]\n",
    unicodedata.normalize("NFD", "links/Café.md"): "nfd twin [[Aliased]]\n",
}


def _vault(root: Path, twin: bool = True) -> Path:
    """The sample vault with :data:`EXTRA`; ``twin`` False leaves out the
    NFD twin (``doctor`` counts that skipped file as not yet indexed)."""
    shutil.copytree(SAMPLE, root)
    for rel, content in EXTRA.items():
        if not twin and rel == unicodedata.normalize("NFD", "links/Café.md"):
            continue
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    # A file name that is not UTF-8 (a parse error, never a page).
    fd = os.open(os.fsencode(root / "links") + b"/caf\xe9.md", os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, b"latin-1 name\n")
    os.close(fd)
    return root


def dump(store: Store) -> dict:
    """Every row a sync writes (pages with their bodies, edges with every
    property, dead-link targets, parse errors) and the cold-index marker."""
    cols = ("id", "path", "kind", "title", "type", "status", "created", "updated", "aliases", "tags", "fields",
            "body_line", "hash", "size", "mtime_ns")
    pages = sorted(map(repr, store.execute(
        f"MATCH (p:Page) OPTIONAL MATCH (b:PageBody {{id: p.id}}) RETURN {', '.join('p.' + c for c in cols)}, "
        "b.body, b.links")))
    return {
        "pages": pages,
        "bodies": store.scalar("MATCH (b:PageBody) RETURN count(*)"),
        "edges": sorted(map(repr, store.execute(
            "MATCH (a:Page)-[r]->(b) RETURN label(r), a.id, b.id, label(b), r.file, r.line, r.place, r.target, "
            "r.label, r.heading, r.embed, r.ambiguous, r.reverse"))),
        "missing": sorted(store.execute("MATCH (m:Missing) RETURN m.id")),
        "errors": sorted(store.execute("MATCH (e:ParseError) RETURN e.path, e.line, e.message")),
        "incomplete": delta.cold_index_incomplete(store),
    }


def _cold(vault: Path, store_dir: Path) -> tuple[dict, dict]:
    config = load_config(str(vault), str(store_dir))
    with Store(config.store) as store:
        report = sync(config, store)
        return dump(store), report.to_json()


def test_sliced_cold_index_equals_the_one_transaction_and_the_partial_sync(tmp_path, monkeypatch):
    vault = _vault(tmp_path / "v")
    monkeypatch.setenv(cold.SLICE_ENV, "7")  # ~20 page slices, several edge slices
    writes = []
    real = cold._SliceWriter._committed
    monkeypatch.setattr(cold._SliceWriter, "_committed", lambda self: (writes.append(1), real(self)))
    sliced, report = _cold(vault, tmp_path / "sliced")
    assert len(writes) > 20
    assert not sliced["incomplete"] and sliced["edges"] and sliced["missing"] and sliced["errors"]
    assert report["added"] == report["pages"] + report["attachments"]
    monkeypatch.delenv(cold.SLICE_ENV)

    # The one-transaction full sync: forced on a store that has pages.
    config = load_config(str(vault), str(tmp_path / "full"))
    with Store(config.store) as store:
        sync(config, store)
        again = sync(config, store, force=True)
        assert dump(store) == sliced
    assert {k: v for k, v in again.to_json().items() if k not in ("added", "reread")} == \
        {k: v for k, v in report.items() if k not in ("added", "reread")}

    # The partial sync: one page indexed first, the rest of the vault added.
    partial_vault = tmp_path / "p"
    partial_vault.mkdir()
    shutil.copy2(vault / "links" / "alias.md", partial_vault / "alias-first.md")
    config = load_config(str(partial_vault), str(tmp_path / "partial"))
    with Store(config.store) as store:
        sync(config, store)
        (partial_vault / "alias-first.md").unlink()
        shutil.rmtree(partial_vault)
        shutil.copytree(vault, partial_vault, symlinks=True)
        report = sync(config, store)
        assert report.wrote and len(report.added) > 100
        assert dump(store) == sliced


def test_an_unchanged_vault_after_a_cold_index_writes_nothing(tmp_path, monkeypatch):
    vault = _vault(tmp_path / "v")
    monkeypatch.setenv(cold.SLICE_ENV, "9")
    config = load_config(str(vault), str(tmp_path / "s"))
    with Store(config.store) as store:
        first = sync(config, store)
        second = sync(config, store)
    assert first.wrote and not second.wrote
    assert second.parse_errors == first.parse_errors


def _cli(vault: Path, store: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "from brainwork.cli import main; main()", "--vault", str(vault), "--store", str(store),
         *args], env=env or dict(os.environ), capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("when", ["first", "middle", "last"])
def test_a_cold_index_killed_between_slices_is_done_again_by_the_next_command(tmp_path, monkeypatch, when):
    """Killed after the first transaction (Page rows without their bodies),
    half way, or after the last edge slice (everything but the parse errors
    and the marker's deletion)."""
    vault = _vault(tmp_path / "v", twin=False)
    monkeypatch.setenv(cold.SLICE_ENV, "5")
    writes = []
    real = cold._SliceWriter._committed
    monkeypatch.setattr(cold._SliceWriter, "_committed", lambda self: (writes.append(1), real(self)))
    want, _ = _cold(vault, tmp_path / "fresh")
    after = {"first": 1, "middle": len(writes) // 2, "last": len(writes)}[when]
    store_dir = tmp_path / "store"
    env = {**os.environ, cold.SLICE_ENV: "5", cold.CRASH_AFTER_SLICES_ENV: str(after)}
    r = _cli(vault, store_dir, "index", env=env)
    assert r.returncode == -signal.SIGKILL, r.stdout + r.stderr

    with Store(store_dir) as store:
        half = dump(store)
    assert half["incomplete"]
    assert half != want

    env = {k: v for k, v in os.environ.items() if k not in (cold.SLICE_ENV, cold.CRASH_AFTER_SLICES_ENV)}
    r = _cli(vault, store_dir, "index", env=env)
    assert r.returncode == 0, r.stderr
    with Store(store_dir) as store:
        assert dump(store) == want
    doctor = _cli(vault, store_dir, "doctor", env=env)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
