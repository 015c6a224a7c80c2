"""The link mask decides most notes with a scan and parses the rest with
markdown-it; on both real corpora it masks every note exactly as parsing
every note that could hold a block would. Skipped when a corpus is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from brainwork.vault.links import _NEEDS_BLOCKS, _mask, mask_non_links
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
        assert mask_non_links(body) == _mask(body, bool(_NEEDS_BLOCKS.search(body))), path
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
