"""Pilot test: the Findings pane's evidence panel reads as text: an
oversize page's split points as lines and headings (not record reprs),
and a check's score once, under its own name (bytes, similarity), not
again as "score"."""

from __future__ import annotations

from brainwork.config import load_config
from brainwork.tui.app import BrainworkApp

from findings_support import SIZE, move_to, open_findings, plain

PROSE = "Enough words here to stay clear of the stub check, about one thing only. " * 3


def _big_page() -> str:
    filler = "".join(f"line {i} of the long reference text, kept for the sake of size.\n" for i in range(800))
    return f"---\ntype: topic\n---\n# Big\n{PROSE}[[small]]\n## MOC\n{filler}## Contributing\n{filler}"


async def test_oversize_split_points_and_no_repeated_score(make_vault, tmp_path, settle) -> None:
    vault = make_vault({
        "topics/big.md": _big_page(),
        "topics/small.md": f"---\ntype: topic\n---\n# Small\n{PROSE}[[big]]\n",
    })
    config = load_config(vault, tmp_path / "store")
    app = BrainworkApp(config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_findings(pilot, settle)
        await move_to(pilot, screen, "oversize", "topics/big")
        text = plain(screen.query_one("#finding-evidence"))
        size = (vault / "topics/big.md").stat().st_size
        assert 'split points: line 6 "MOC", line 807 "Contributing"' in text
        assert "SplitPoint" not in text
        assert f"bytes: {size}" in text and "score:" not in text
