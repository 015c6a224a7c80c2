"""Fixtures for the learning-loop tests.

- ``embedder``, ``indexed_template``, ``embedded_template``, ``exported_template``: see tests/conftest.py.
- ``embedded_sample``: ``(config, store)`` of a copy of ``sample_vault/``,
  indexed and embedded once per session with the real model. Read-only by
  convention: tests that write use their own copy.
- ``sample_config``/``sample_store``: a fresh writable copy per test (no
  embedding); ``sample_store`` is that copy indexed: the ``.brainwork``
  folder of ``indexed_template`` (indexed once per session) copied in, so
  each test pays a folder copy instead of a cold index.
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
