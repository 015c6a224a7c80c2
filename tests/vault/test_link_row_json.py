"""The ``links`` column's JSON: one list per link in ``LINK_KEYS`` order,
read back to equal links (the full and the partial sync both rely on it)."""

from __future__ import annotations

import json

from brainwork.index.rows import LINK_KEYS, links_from_json, links_json
from brainwork.model import Link


def test_links_json_lists_every_key_in_order_and_round_trips():
    links = [
        Link(target="Ünïcode note", edge="related", line=3, where="body", label="shown", heading="Part",
             embed=True, raw="![[Ünïcode note#Part|shown]]", start=10, end=38, style="wikilink"),
        Link(target="x", edge="used", line=2, where="frontmatter", reverse=True, start=4, end=9),
    ]
    text = links_json(links)
    assert json.loads(text) == [[getattr(l, k) for k in LINK_KEYS] for l in links]
    assert "Ünïcode" in text  # not escaped to \\u sequences
    assert links_from_json(text) == [Link(**{k: getattr(l, k) for k in LINK_KEYS}) for l in links]
    assert links_json([]) == "[]"
