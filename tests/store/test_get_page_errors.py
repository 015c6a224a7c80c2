"""get_page reads a page's recorded parse errors unless told not to: the
callers that only want a title or path skip the second query."""

from __future__ import annotations

from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.store import Store, graph


def test_get_page_reads_parse_errors_unless_errors_false(tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "broken.md").write_text("---\ntitle: [unclosed\n---\nbody [[other]]\n", encoding="utf-8")
    cfg = load_config(vault, tmp_path / "store")
    s = Store(cfg.store)
    try:
        sync(cfg, s)
        full = graph.get_page(s, "broken")
        assert [(e.path, e.line) for e in full.parse_errors] == [("broken.md", 2)]
        light = graph.get_page(s, "broken", errors=False)
        assert light.parse_errors == ()
        assert (light.id, light.path, light.title, light.body) == (full.id, full.path, full.title, full.body)
    finally:
        s.close()
