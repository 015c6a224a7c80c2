"""A problem of the whole file (over the size limit, unreadable, a second
file with the same id) is reported on line 1, as docs/vault-format.md's
parse-error table says (lines are 1-based wherever an error is shown)."""

from __future__ import annotations

import re
from pathlib import Path

from brainwork.vault.parse import parse_file, parse_text

DOC = Path(__file__).resolve().parents[2] / "docs" / "vault-format.md"


def _doc_lines() -> dict[str, str]:
    """Problem -> 'Line reported' cell of the parse-error table."""
    table = DOC.read_text(encoding="utf-8").split("## Parse errors", 1)[1].split("\n## ", 1)[0]
    rows = [r.split(" | ") for r in re.findall(r"^\| (.+) \|$", table, re.MULTILINE)]
    return {r[0]: r[1] for r in rows if len(r) >= 3}


def test_the_doc_and_the_parser_give_line_1_for_the_whole_file(tmp_path) -> None:
    lines = _doc_lines()
    over = next(v for k, v in lines.items() if k.startswith("larger than `max_file_bytes`"))
    assert over.startswith("1 "), over
    for problem in ("unreadable (permissions, vanished)", "same id as another file"):
        assert lines[problem].startswith("1 "), (problem, lines[problem])
    assert not any(v.startswith("0") for v in lines.values()), lines

    page = parse_text("huge.md", b"# Huge\n" + b"word " * 100, max_bytes=64)
    assert [(e.path, e.line) for e in page.errors] == [("huge.md", 1)]
    page = parse_file(tmp_path, "vanished.md")
    assert [(e.path, e.line) for e in page.errors] == [("vanished.md", 1)]
