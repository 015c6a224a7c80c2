"""The link mask decides most notes with a scan and parses the rest with
markdown-it; on both real corpora, and on text built from the lines that
matter, it masks every note exactly as parsing every note that could hold
a block would. The corpus tests are skipped when a corpus is absent."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brainwork.vault.links import _mask, _needs_blocks, mask_non_links
from brainwork.vault.parse import parse_text

CORPORA = Path(__file__).resolve().parents[3] / "shared" / "corpora"


@pytest.mark.parametrize("name", ["obsidian-hub", "obsidian-help-en"])
def test_mask_is_identical_to_a_block_parse_of_every_candidate(name: str) -> None:
    root = CORPORA / name
    if not root.is_dir():
        pytest.skip(f"corpus {name} not present")
    checked = 0
    for path in sorted(root.rglob("*.md")):
        data = path.read_bytes()
        page = parse_text(path.relative_to(root).as_posix(), data, 0, 5 << 20)
        body = page.body
        assert mask_non_links(body) == _mask(body, _needs_blocks(body)), path
        checked += 1
    assert checked > 100


@pytest.mark.parametrize(
    "body",
    [
        "text\n    not code [[a]]\n",
        "text\n\n    code [[a]]\n",
        "# Heading\n    code [[a]]\n",
        "- item\n    - nested [[a]]\n",
        "- item\n\n    continued [[a]]\n",
        "Title\n===\n    code [[a]]\n",
        "---\n\tcode [[a]]\n",
        "<div>\n    [[a]]\n",
        "-\n    [[a]]\n",
        "    [[a]] first line\n",
        "> quote\n    lazy [[a]]\n",
        "1.\n    [[a]]\n",
        "para\r\n\r\n    code [[a]]\r\n",
    ],
)
def test_mask_equals_the_block_parse_on_indentation_cases(body: str) -> None:
    assert mask_non_links(body) == _mask(body, True)


@pytest.mark.parametrize(
    "body",
    [
        "<!-- c --> after [[a]]\n[[b]]\n",
        "text\n<!-- open\n[[a]]\n--> tail [[b]]\nrest [[c]]\n",
        "   <!-- c --> [[a]]\n",
        "inline <!-- c --> [[a]]\n",
        "- <!-- c --> [[a]]\n",
        "> <!-- c\n> --> [[a]]\n",
        "<!-- never closed\n[[a]]\n",
        "x\n\t<!-- c --> [[a]]\n",
        "inline <!-- spans\n<!-- line start --> [[a]]\n--> [[b]]\n",
    ],
)
def test_mask_equals_the_block_parse_on_comment_cases(body: str) -> None:
    assert mask_non_links(body) == _mask(body, True)


# Whole lines that matter to the block scan: fences (indented, in containers,
# with a backtick in the info), comment blocks, HTML blocks of each kind,
# indented lines after what may or may not end a paragraph.
LINES = st.sampled_from([
    "```", "```js", "````", "~~~", "~~~~", " ```", "   ```", "    ```", "\t```", "- ```", "> ```", "1. ```",
    "``` a`b", "```\t", "``` ", "<!--", "<!-- c -->", "   <!-- c", "-->", "x -->", "text <!-- c", "- <!-- c",
    "<div>", "</div>", "<pre>", "</pre>", "<span>x</span>", "<?php", "<!DOCTYPE x>", "<![CDATA[", "]]>",
    "    code [[a]]", "\tcode [[b]]", " \tx [[c]]", "-     deep [[d]]", ">     q [[e]]", "  - nested [[f]]",
    "", "", "", " ", "# H [[g]]", "---", "***", "- item [[h]]", "1. item", "> quote [[i]]", "para [[j]]",
    "`code [[k]]`", "%% c [[l]] %%", "text", "Title", "===", "-", "1.", "[[m]]", "a ``` b", "~~~~~",
])
BODIES = st.tuples(st.lists(LINES, max_size=14), st.sampled_from(["\n", "\r\n"])).map(lambda t: t[1].join(t[0]) + t[1])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(BODIES)
def test_the_scan_masks_as_the_block_parse_does(body: str) -> None:
    assert mask_non_links(body) == _mask(body, True)
