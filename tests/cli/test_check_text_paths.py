"""``brainwork check``'s text format is one finding a line even when a file
name holds a newline, tab, quote, backslash or other control character: such
a path is double-quoted with backslash escapes (``\\x1b`` for the controls,
as the CLI shows them elsewhere), as git quotes paths, and reads back to the
exact name; other paths print as they are. Real subprocess."""

from __future__ import annotations

import ast
import json
import re

import pytest

ODD = ["bad\nname.md", "tab\tname.md", 'say "hi".md', "back\\slash.md", "esc\x1b[31m.md"]
PLAIN = ["café plain.md", "notes/n1.md"]


@pytest.fixture
def vault(make_vault):
    return make_vault({name: "# x\n[[Ghost]]\n" for name in ODD + PLAIN})


def test_each_finding_is_one_line_and_odd_paths_are_quoted(vault, tmp_path, bw) -> None:
    store = tmp_path / "store"
    text = bw(vault, store, "check")
    as_json = json.loads(bw(vault, store, "check", "--format", "json").stdout)
    assert text.returncode == 1, text.stderr
    lines = text.stdout.splitlines()
    assert len(lines) == len(as_json) > 0
    paths = []
    for line, f in zip(lines, as_json):
        m = re.match(r'^("(?:[^"\\]|\\.)*"|[^"][^:]*):(\d+): (\S+) ', line)
        assert m, line
        shown = m.group(1)
        path = ast.literal_eval(shown) if shown.startswith('"') else shown
        assert (path, int(m.group(2)), m.group(3)) == (f["path"], f["line"], f["code"]), line
        assert shown.startswith('"') == (f["path"] in ODD), line
        paths.append(path)
    assert set(paths) == set(ODD + PLAIN)
    assert '"bad\\nname.md":1: ' in text.stdout and '"esc\\x1b[31m.md":1: ' in text.stdout
    assert "\x1b" not in text.stdout
