"""Shared fixtures for the whole suite.

- ``repo_root``: the repository folder.
- ``corpora``: ``REPO/../shared/corpora`` (CI lays ``shared/`` beside the
  clone); tests using it are skipped when it is missing. It is READ-ONLY:
  never index it without ``--store`` / a ``Config`` whose store is in
  ``tmp_path`` (running as root, missing write bits do not protect it).
- ``obsidian_help``: the ``obsidian-help-en`` vault inside ``corpora``.
- ``indexed_corpus``: ``indexed_corpus(name) -> IndexedCorpus``: the corpus
  ``name`` cold-indexed ONCE per session into a store in a session temp
  folder, with its sync report and ``check`` findings (all codes, dismissed
  left out). Indexing and checking obsidian-hub costs tens of seconds; every
  test that only reads these results shares the one pass. Read-only.
- ``sample_vault_copy``: a writable copy of ``sample_vault/`` in ``tmp_path``
  (no store: the first command indexes it).
- ``embedder``: the REAL bundled all-MiniLM-L6-v2, loaded once per session
  (``get_embedder`` caches it per process, so every test shares it).
- ``indexed_template``: a copy of ``sample_vault/`` indexed once per
  session (no embedding; closed: copy it, never write it).
- ``embedded_template``: a copy of ``sample_vault/`` indexed and embedded
  once per session with the real model (closed; copy it, never write it).
- ``exported_template``: the same whose store also holds the model's ONNX
  export, as the first ``brainwork`` process on a store leaves it; a
  ``brainwork`` process on a copy of it loads ONNX (~0.2 s CPU), not torch
  and an export (~8 s CPU).
- ``embedded_vault_copy``: a writable copy of ``exported_template`` in
  ``tmp_path/sample_vault``.
- ``make_vault``: build a small vault in ``tmp_path`` from ``{path: text or bytes}``.
- ``serving``: ``brainwork serve`` running (a real subprocess) on an
  ``embedded_vault_copy``, as ``(vault, process)``; stopped with SIGTERM after the
  test unless the test killed it.
- ``store``: an open :class:`~brainwork.store.Store` in ``tmp_path`` (closed
  after the test). One Store per path per process (Kùzu).
- ``hold_store``: ``hold_store(path, seconds=None)`` opens the store at
  ``path`` in another process (a real subprocess) and returns it once the
  store is open; it holds the store for ``seconds``, or until the test ends.
- ``bw``: ``bw(vault, store, *args) -> CompletedProcess``: ``brainwork
  *args --vault VAULT --store STORE`` run as a real subprocess of this
  interpreter, output captured as text (check ``returncode`` yourself).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
CORPORA = REPO_ROOT / ".." / "shared" / "corpora"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def corpora() -> Path:
    if not CORPORA.is_dir():
        pytest.skip(f"shared corpora not found at {CORPORA}")
    return CORPORA.resolve()


@pytest.fixture(scope="session")
def obsidian_help(corpora: Path) -> Path:
    path = corpora / "obsidian-help-en"
    if not path.is_dir():
        pytest.skip(f"corpus not found at {path}")
    return path


@dataclass(frozen=True)
class IndexedCorpus:
    """One corpus indexed into a store that is closed again (a test may open
    it, one Store per path per process): ``report`` is the cold sync's
    SyncReport, ``findings`` the ``check`` of every code."""

    vault: Path
    config: Any
    report: Any
    findings: tuple


@pytest.fixture(scope="session")
def indexed_corpus(corpora: Path, tmp_path_factory):
    from brainwork.analysis.findings import check
    from brainwork.config import load_config
    from brainwork.index.sync import sync
    from brainwork.store import Store

    done: dict[str, IndexedCorpus] = {}

    def get(name: str) -> IndexedCorpus:
        if name not in done:
            vault = corpora / name
            if not vault.is_dir():
                pytest.skip(f"corpus {name} not found")
            config = load_config(vault, tmp_path_factory.mktemp(f"corpus-{name}") / "store")
            with Store(config.store) as store:
                report = sync(config, store)
                findings = tuple(check(config, store, None))
            done[name] = IndexedCorpus(vault, config, report, findings)
        return done[name]

    return get


def _copy_sample_vault(parent: Path) -> Path:
    """``parent/sample_vault``: a copy of ``sample_vault/`` without its store."""
    src = REPO_ROOT / "sample_vault"
    if not src.is_dir():
        pytest.skip("sample_vault/ not present")
    dest = parent / "sample_vault"
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns(".brainwork"))
    return dest


@pytest.fixture
def sample_vault_copy(tmp_path: Path) -> Path:
    return _copy_sample_vault(tmp_path)


@pytest.fixture(scope="session")
def embedder():
    from brainwork.learn.embed import get_embedder

    if os.environ.get("BRAINWORK_EMBEDDER", "").lower() == "lexical":
        pytest.skip("BRAINWORK_EMBEDDER=lexical forces the fallback; these tests need the real model")
    emb = get_embedder(None)
    assert not emb.lexical, f"the bundled model did not load: {emb.reason}"
    return emb


@pytest.fixture(scope="session")
def indexed_template(tmp_path_factory) -> Path:
    """A copy of ``sample_vault/`` with its store indexed once (no embedding),
    then closed. Copies keep the files' mtimes (``copytree`` copies them), so
    a sync of a copy finds nothing changed, as right after its own sync."""
    from brainwork.config import load_config
    from brainwork.index.sync import sync
    from brainwork.store import Store

    root = _copy_sample_vault(tmp_path_factory.mktemp("indexed"))
    config = load_config(root)
    with Store(config.store) as store:
        sync(config, store)
    return root


@pytest.fixture(scope="session")
def embedded_template(tmp_path_factory, embedder) -> Path:
    """A copy of ``sample_vault/`` with its store indexed and embedded once,
    then closed, so tests can copy the folder (vault + ``.brainwork``)."""
    from brainwork.config import load_config
    from brainwork.index.sync import sync
    from brainwork.learn.embed import embed_pages
    from brainwork.store import Store

    root = _copy_sample_vault(tmp_path_factory.mktemp("template"))
    config = load_config(root)
    store = Store(config.store)
    try:
        sync(config, store)
        embed_pages(config, store, embedder=embedder)
    finally:
        store.close()
    return root


@pytest.fixture(scope="session")
def exported_template(tmp_path_factory, embedded_template) -> Path:
    """A copy of ``embedded_template`` whose store also holds the ONNX export
    of the model, made once, as the first ``brainwork`` process on a store
    leaves it. Tests that run ``brainwork`` subprocesses on a copy of it pay
    the ONNX load (~0.2 s) per process, not torch and an export (~8 s CPU)."""
    from brainwork.config import load_config
    from brainwork.learn import embed

    root = tmp_path_factory.mktemp("exported") / "sample_vault"
    shutil.copytree(embedded_template, root)
    served = embed._load(load_config(root))
    assert not served.lexical, served.reason
    return root


@pytest.fixture
def embedded_vault_copy(tmp_path: Path, exported_template: Path) -> Path:
    """A writable copy of ``exported_template`` (vault and store) in
    ``tmp_path/sample_vault``: a sample vault as it is after its first
    session, for tests that do not test that first session."""
    dest = tmp_path / "sample_vault"
    shutil.copytree(exported_template, dest)
    return dest


@pytest.fixture
def make_vault(tmp_path: Path):
    """``make_vault({"a.md": "text", "img.png": b"..."}) -> Path`` of a new vault."""
    counter = {"n": 0}

    def make(files: dict[str, str | bytes], name: str | None = None) -> Path:
        counter["n"] += 1
        root = tmp_path / (name or f"vault{counter['n']}")
        root.mkdir(parents=True, exist_ok=True)
        for rel, content in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, str):
                path.write_bytes(content.encode("utf-8"))
            else:
                path.write_bytes(content)
        return root

    return make


@pytest.fixture
def store(tmp_path: Path):
    from brainwork.store import Store

    s = Store(tmp_path / "store")
    try:
        yield s
    finally:
        s.close()


_HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from brainwork.store import Store
    s = Store(Path(sys.argv[1]))
    print("ready", flush=True)
    if len(sys.argv) > 2:
        time.sleep(float(sys.argv[2]))
    else:
        sys.stdin.read()
    s.close()
    """
)


@pytest.fixture
def hold_store():
    procs: list[subprocess.Popen] = []

    def hold(path: Path, seconds: float | None = None) -> subprocess.Popen:
        args = [sys.executable, "-c", _HOLDER, str(path)] + ([] if seconds is None else [str(seconds)])
        proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(proc)
        line = proc.stdout.readline()
        assert line.strip() == "ready", proc.stderr.read()
        return proc

    try:
        yield hold
    finally:
        for proc in procs:
            proc.stdin.close()
            proc.wait(timeout=30)


@pytest.fixture
def serving(embedded_vault_copy):
    import signal
    import subprocess
    import sys
    import time

    from brainwork.config import load_config
    from brainwork.service import owner

    vault = embedded_vault_copy
    proc = subprocess.Popen([sys.executable, "-c", "from brainwork.cli import main; main()", "--vault", str(vault),
                             "serve"], stderr=subprocess.PIPE, text=True)
    config = load_config(vault)
    deadline = time.monotonic() + 120
    while owner.status(config) is None:
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < deadline, "serve did not come up"
        time.sleep(0.1)
    yield vault, proc
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


_BRAINWORK = [sys.executable, "-c", "from brainwork.cli import main; main()"]


def _run_brainwork(vault: Path, store: Path, *args: str) -> subprocess.CompletedProcess:
    # --vault and --store are options of each subcommand, so they follow it.
    return subprocess.run([*_BRAINWORK, *args, "--vault", str(vault), "--store", str(store)],
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="session")
def bw():
    return _run_brainwork
