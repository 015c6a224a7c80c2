"""Fixtures for the learning-loop tests.

- ``embedder``, ``indexed_template``, ``embedded_template``, ``exported_template``: see tests/conftest.py.
- ``embedded_sample``: ``(config, store)`` of a copy of ``sample_vault/``,
  indexed and embedded once per session with the real model. Read-only by
  convention: tests that write use their own copy.
- ``sample_config``/``sample_store``: a fresh writable copy per test (no
  embedding); ``sample_store`` is that copy indexed: the ``.brainwork``
  folder of ``indexed_template`` (indexed once per session) copied in, so
  each test pays a folder copy instead of a cold index.
- ``learn_vault``: ``(config, store)`` of a writable copy of the embedded
  sample vault, per test.
- ``rulebook``/``doctrine_cli``: a vault of active rules made to measure,
  and ``brainwork doctrine`` run on it as its own process.
"""

from __future__ import annotations

import shutil

import pytest


@pytest.fixture(scope="session")
def embedded_sample(tmp_path_factory, embedded_template):
    """Shares the one embedding pass of ``embedded_template`` (a copy of it)."""
    from brainwork.config import load_config
    from brainwork.store import Store

    root = tmp_path_factory.mktemp("learn") / "sample_vault"
    shutil.copytree(embedded_template, root)
    config = load_config(root)
    store = Store(config.store)
    try:
        yield config, store
    finally:
        store.close()


@pytest.fixture
def sample_config(sample_vault_copy):
    from brainwork.config import load_config

    return load_config(sample_vault_copy)


@pytest.fixture
def sample_store(sample_config, indexed_template):
    from brainwork.config import STORE_DIR
    from brainwork.store import Store

    shutil.copytree(indexed_template / STORE_DIR, sample_config.store)
    store = Store(sample_config.store)
    try:
        yield store
    finally:
        store.close()


# -- consolidation tests (writable copies of an embedded sample vault) ----------
@pytest.fixture
def learn_vault(embedded_template, tmp_path):
    """``(config, store)`` of a fresh writable copy of the embedded sample vault."""
    from brainwork.config import load_config
    from brainwork.store import Store

    root = tmp_path / "vault"
    shutil.copytree(embedded_template, root)
    config = load_config(root)
    store = Store(config.store)
    try:
        yield config, store
    finally:
        store.close()


# -- doctrine tests (a vault of active rules, the command as a subprocess) -------
_RULE = """---
type: rule
title: {title}
rule: {text}
why: it went wrong {n} times
status: active
activated: 2026-10-{day:02d}
{extra}---
"""


@pytest.fixture
def rulebook(make_vault):
    """``rulebook(n=11, sentences=12, scoped=None) -> Path``: a vault of
    ``n`` active rules ``rules/r01`` ...; rule k has k promoted corrections
    as evidence and a rule text of ``sentences`` repeats; ``scoped`` (k ->
    frontmatter lines) gives some a ``scope:`` block."""

    def make(n: int = 11, sentences: int = 12, scoped: dict[int, str] | None = None):
        files = {}
        for k in range(1, n + 1):
            links = "".join(f"  - '[[corrections/c{k}-{j}]]'\n" for j in range(k))
            extra = f"evidence:\n{links}" + ((scoped or {}).get(k, ""))
            files[f"rules/r{k:02d}.md"] = _RULE.format(title=f"Rule {k}", text=f"Do the careful thing number {k} " * sentences,
                                                       n=k, day=k, extra=extra)
            for j in range(k):
                files[f"corrections/c{k}-{j}.md"] = (f"---\ntype: correction\ntitle: c{k}-{j}\nwrong: w\ncorrect: c\n"
                                                     f"why: y\nstatus: promoted\npromoted_to: '[[rules/r{k:02d}]]'\n---\n")
        return make_vault(files)

    return make


@pytest.fixture
def doctrine_cli():
    """``doctrine_cli(vault, *args) -> CompletedProcess``: ``brainwork
    doctrine ARGS --vault VAULT`` as its own process, as a hook runs it."""
    import subprocess
    import sys
    from pathlib import Path

    exe = Path(sys.executable).with_name("brainwork")

    def run(vault, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(exe), "doctrine", *args, "--vault", str(vault)], capture_output=True, text=True,
                              timeout=120)

    return run
