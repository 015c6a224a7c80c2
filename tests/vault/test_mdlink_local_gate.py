"""The Markdown-link scan is skipped on a body whose every ``](`` leads to
a URL, an anchor or ``//``: the links found must be those of a full scan."""

from __future__ import annotations

import re

import pytest

from brainwork.vault import links

CASES = [
    "[a](https://x.org) and [b](c.md)",
    "[a](https://x.org/[b](c.md)) only a web link",
    "[see [x](y.md)](http://x.org) nested in a web link's label",
    '[a](http://x.org "[b](c.md)") in a title',
    "[a](  \n  local.md) across a line",
    "[a](<local note.md>) and [b](<https://x.org>)",
    "[a](<https://x.org) unclosed angle",
    "[a](#anchor) [b](//host/x) [c](mailto:me@x.org)",
    "[a]() [b]( ) [c]( 'title')",
    "`[a](c.md)` in code, [b](d.md) outside",
    "[a](HTTP:x) [b](a+b.c-d:x) [c](1abc:x)",
    "![img](pic.png) and ![web](https://x.org/p.png)",
    "[[Wiki]] and [a](Some%20Note.md#Part)",
]


@pytest.mark.parametrize("body", CASES)
def test_the_gate_keeps_every_link_of_a_full_scan(body: str, monkeypatch) -> None:
    gated = links.body_links(body, 0, 1)
    monkeypatch.setattr(links, "_MDLINK_LOCAL", re.compile(r"\]\("))  # every "](" may lead to a file
    assert gated == links.body_links(body, 0, 1)
