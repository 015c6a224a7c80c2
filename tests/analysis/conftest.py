"""Fixtures for the quality-bar tests.

- ``run_check(vault, codes=None, include_dismissed=False, store_dir=None)``:
  sync ``vault`` into a store in ``tmp_path`` (its own folder per vault, or
  ``store_dir``) and return the findings; the store is closed again, so a
  later call on the same folder sees what the earlier one left (dismissals).
- ``with_store(vault, store_dir=None)``: a context manager yielding
  ``(config, store)`` after a sync, for tests that dismiss findings.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import pytest


@pytest.fixture
def with_store(tmp_path: Path):
    from brainwork.config import load_config
    from brainwork.index.sync import sync
    from brainwork.store import Store

    @contextmanager
    def opened(vault: Path, store_dir: Path | None = None):
        store_dir = store_dir or tmp_path / "stores" / vault.name
        config = load_config(vault, store_dir)
        store = Store(config.store)
        try:
            sync(config, store)
            yield config, store
        finally:
            store.close()

    return opened


@pytest.fixture
def run_check(with_store):
    from brainwork.analysis.findings import check

    def run(vault: Path, codes=None, include_dismissed: bool = False, store_dir: Path | None = None):
        with with_store(vault, store_dir) as (config, store):
            return check(config, store, codes, include_dismissed=include_dismissed)

    return run
