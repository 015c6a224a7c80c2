"""A pass over a vault whose embeddings are all cached does not load the
model (the torch import alone costs seconds on every CLI call)."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import sys
from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.store import Store
from brainwork.learn.embed import embed_pages
config = load_config(sys.argv[1], sys.argv[2])
store = Store(config.store)
sync(config, store)
print(embed_pages(config, store), 'torch' in sys.modules)
store.close()
"""


def test_second_pass_embeds_nothing_without_loading_the_model(make_vault, tmp_path) -> None:
    vault = make_vault({"a.md": "Renew the certificate chain.", "b.md": "Read the CI log first."})
    args = [sys.executable, "-c", CODE, str(vault), str(tmp_path / "store")]
    first = subprocess.run(args, capture_output=True, text=True, timeout=300, check=True)
    assert first.stdout.split() == ["2", "True"]
    second = subprocess.run(args, capture_output=True, text=True, timeout=300, check=True)
    assert second.stdout.split() == ["0", "False"]
