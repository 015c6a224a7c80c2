"""A SIGKILL in the window after an operation's files are written and
recorded but before the graph update commits: the next command re-syncs, the
WHOLE store (pages, edges, dead-link targets, parse errors) equals a fresh
index of the vault, and ``brainwork doctor`` finds it healthy. The killed
process leaves the database unsealed, so the next open also has a child read
it in full first (brainwork.store.integrity)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.ops import changeset as cs
from brainwork.store import Store
from brainwork.store.integrity import seal_state

FILES = {
    "Hub.md": "# Hub\n",
    "crlf.md": "# Windows\r\nlinks [[Hub]] and [[Nowhere]]\r\n",
    "latin1.md": "caf\xe9 [[Hub|the hub]]\n".encode("latin-1"),
    **{f"n{i}.md": f"note {i} links [[Hub]] and [[Hub#Part|the hub]]\n" for i in range(6)},
}


def _cli(vault, store, *args, env=None):
    return subprocess.run(
        [sys.executable, "-c", "from brainwork.cli import main; main()", "--vault", str(vault), "--store", str(store),
         *args], env=env or dict(os.environ), capture_output=True, text=True, timeout=300)


def _dump(store: Store) -> dict:
    return {
        "pages": sorted(map(repr, store.execute(
            "MATCH (p:Page) OPTIONAL MATCH (b:PageBody {id: p.id}) "
            "RETURN p.id, p.path, p.kind, p.title, p.aliases, p.hash, p.size, b.links, b.body"))),
        "edges": sorted(map(repr, store.execute(
            "MATCH (a:Page)-[r]->(b) RETURN label(r), a.id, b.id, label(b), r.file, r.line, r.place, r.target, "
            "r.label, r.heading, r.embed, r.ambiguous, r.reverse"))),
        "missing": sorted(store.execute("MATCH (m:Missing) RETURN m.id")),
        "errors": sorted(store.execute("MATCH (e:ParseError) RETURN e.path, e.line, e.message")),
    }


def test_store_equals_a_fresh_index_after_a_kill_before_the_graph_update(make_vault, tmp_path):
    vault = make_vault(FILES, name="v")
    store_dir = tmp_path / "store"
    assert _cli(vault, store_dir, "index").returncode == 0
    env = dict(os.environ)
    env.pop(cs.CRASH_ENV, None)
    env[cs.CRASH_BEFORE_SYNC_ENV] = "1"
    r = _cli(vault, store_dir, "rename", "Hub", "Center", env=env)
    assert r.returncode == -signal.SIGKILL, r.stderr
    assert (store_dir / cs.JOURNAL).exists()
    assert seal_state(store_dir / "graph.kuzu") == "changed"  # killed with the database open

    r = _cli(vault, store_dir, "index")
    assert r.returncode == 0, r.stderr
    assert not (store_dir / cs.JOURNAL).exists()
    doctor = _cli(vault, store_dir, "doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr

    config = load_config(str(vault), str(store_dir))
    fresh_config = load_config(str(vault), str(tmp_path / "fresh"))
    with Store(config.store) as recovered, Store(fresh_config.store) as fresh:
        sync(fresh_config, fresh)
        got, want = _dump(recovered), _dump(fresh)
    assert got == want
    assert any("'Center'" in e for e in got["edges"]) and not any("'Hub'" in e for e in got["edges"])
