"""A damaged store is noticed: every command says so in one line (exit 2),
never a traceback, a crash or silently wrong figures.

The damage is made the way it happens: bytes overwritten inside
``graph.kuzu`` (with the header intact Kùzu 0.11.3 crashes with SIGSEGV at
open), the file truncated (Kùzu: "Reading past the end of the file"), the
header overwritten, the file emptied (Kùzu would start a new database and
lose the history). Commands run as real subprocesses: a crash must not take
the test run with it.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.store import Store
from brainwork.store.integrity import DAMAGED_HINT, StoreDamaged, seal_path, seal_state

FILES = {
    "a.md": "# Alpha\n[[b]] [[Nowhere]]\n",
    "b.md": "---\ntype: tool\n---\n# Beta\n[[a]]\n",
    "sub/c.md": "# Gamma\n[[a|first]]\n",
}
BRAINWORK = str(Path(sys.executable).with_name("brainwork"))


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([BRAINWORK, *args], capture_output=True, text=True, timeout=300)


@pytest.fixture
def indexed(make_vault):
    vault = make_vault(FILES)
    config = load_config(str(vault), None)
    with Store(config.store) as store:
        sync(config, store)
    db = config.store / "graph.kuzu"
    assert seal_state(db) == "sealed"
    return vault, db


def _garble(db: Path) -> None:
    """Overwrite 4 KiB in every 64 KiB after the first two pages (seeded)."""
    data = bytearray(db.read_bytes())
    rng = random.Random(7)
    for off in range(8192, len(data), 65536):
        data[off:off + 4096] = rng.randbytes(min(4096, len(data) - off))
    db.write_bytes(bytes(data))


def _truncate(db: Path) -> None:
    db.write_bytes(db.read_bytes()[:100_000])


def _header(db: Path) -> None:
    with open(db, "r+b") as fh:
        fh.write(b"\x00garbage" * 512)


def _empty(db: Path) -> None:
    db.write_bytes(b"")


CASES = [
    *[(d, ("stats", "--json")) for d in (_garble, _truncate, _header, _empty)],
    *[(_garble, c) for c in (("check",), ("index",), ("show", "a"))],
    (_truncate, ("index", "--full")),
]


@pytest.mark.parametrize("damage,command", CASES, ids=lambda x: x.__name__ if callable(x) else "-".join(x))
def test_a_command_on_a_damaged_store_says_so(indexed, damage, command):
    vault, db = indexed
    damage(db)
    before = db.read_bytes()
    r = _run(*command, "--vault", str(vault))
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and DAMAGED_HINT in lines[0], r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
    assert db.read_bytes() == before  # nothing rewrote the damaged file


def test_seal_follows_clean_closes(tmp_path):
    folder = tmp_path / "s"
    with Store(folder):
        pass
    db = folder / "graph.kuzu"
    assert seal_state(db) == "sealed"
    with Store(folder, read_only=True):
        pass
    assert seal_state(db) == "sealed"
    with open(db, "r+b") as fh:  # written by something else: the next open reads it all first
        fh.seek(0, 2)
        fh.write(b"\x00" * 4096)
    assert seal_state(db) == "changed"
    with Store(folder):  # trailing zeros harm nothing: the probe passes, the store opens
        pass
    assert seal_state(db) == "sealed"
    db.unlink()  # deleted on purpose to start over: a new store, not a damaged one
    with Store(folder):
        pass
    assert seal_state(db) == "sealed"


def test_store_raises_store_damaged_in_process(tmp_path):
    """In process only for damage Kùzu reports (truncation, emptied file):
    the caller gets StoreDamaged, a UserError with the one-line hint."""
    folder = tmp_path / "s"
    with Store(folder):
        pass
    db = folder / "graph.kuzu"
    _truncate(db)
    with pytest.raises(StoreDamaged) as err:
        Store(folder)
    assert DAMAGED_HINT in str(err.value) and "\n" not in str(err.value)
    seal_path(db).unlink()  # even without a seal, Kùzu's own error is recognised
    with pytest.raises(StoreDamaged):
        Store(folder)
