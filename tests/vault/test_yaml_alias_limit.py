"""YAML alias expansion is bounded: an alias bomb is a parse error, not a
hang; ordinary aliases still work."""

from __future__ import annotations

import time

import pytest

from brainwork.thresholds import MAX_YAML_VALUES
from brainwork.vault.frontmatter import FrontmatterError, parse_yaml
from brainwork.vault.parse import parse_text

# "Billion laughs": 10 lines of YAML whose aliases expand to 9^9 values.
BOMB = "title: bomb\n" + 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{b}: &{b} [{', '.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi")
)


def test_alias_bomb_is_a_parse_error_not_a_hang():
    """It hung ``brainwork index`` (60 s, 3 GB) once the expanded fields
    were walked and dumped to JSON."""
    started = time.process_time()
    with pytest.raises(FrontmatterError) as err:
        parse_yaml(BOMB, first_line=2)
    assert time.process_time() - started < 2
    assert err.value.line == 2 and "aliases" in err.value.message and "not parsed" in err.value.message

    page = parse_text("bomb.md", f"---\n{BOMB}---\n# Bomb\n[[other]]\n".encode())
    assert [(e.path, e.line) for e in page.errors] == [("bomb.md", 2)]
    assert page.fields == {} and page.title == "Bomb"  # the body still counts
    assert [l.target for l in page.links] == ["other"]


def test_ordinary_aliases_still_work():
    fields = parse_yaml("tags: &t [a, b]\nalso: *t\nk: &v x\nk2: *v\n")
    assert fields == {"tags": ["a", "b"], "also": ["a", "b"], "k": "x", "k2": "x"}
    # Just over the limit fails, at the limit passes.
    items = ", ".join(["x"] * (MAX_YAML_VALUES // 2 - 3))
    assert parse_yaml(f"a: &a [{items}]\nb: *a\n")  # 1 + 2 keys + 2 * (1 + n) values = limit - 1
    with pytest.raises(FrontmatterError):
        parse_yaml(f"a: &a [{items}]\nb: *a\nc: *a\n")
