"""Fixtures for the operation tests: each module defines its own ``vault``."""

from __future__ import annotations

import pytest

from brainwork.config import load_config
from brainwork.index.sync import sync


@pytest.fixture
def env(vault, store, tmp_path):
    """``(config, store)`` for the module's ``vault``, the store indexed."""
    config = load_config(vault, tmp_path / "store")
    sync(config, store)
    return config, store
