"""frontmatter_keys: each key of a frontmatter block with its file line, and
the keys written twice in one mapping, from PyYAML's composed node tree."""

from __future__ import annotations

from brainwork.vault.frontmatter import frontmatter_keys, parse_yaml


def repeats(yaml_text: str, first_line: int = 2):
    keys = frontmatter_keys(yaml_text, first_line)
    return [(a.key, a.line, b.line, a.value, b.value) for a, b in keys.repeated]


def test_a_repeated_top_key_names_both_lines_and_top_holds_the_last():
    text = "title: Dup\ntype: topic\ntitle: Dup2\n"
    keys = frontmatter_keys(text)
    assert repeats(text) == [("title", 2, 4, "Dup", "Dup2")]
    assert keys.top["title"].line == 4 and keys.top["title"].value == parse_yaml(text)["title"] == "Dup2"
    assert (keys.top["type"].line, keys.top["type"].kind) == (3, "text")


def test_quoted_flow_nested_and_list_item_repeats():
    assert repeats('"title": a\ntitle: b\n') == [("title", 2, 3, "a", "b")]
    assert repeats("m: {a: 1, a: 2}\n") == [("m.a", 2, 2, "1", "2")]
    assert repeats("author:\n  name: a\n  name: b\n", first_line=5) == [("author.name", 6, 7, "a", "b")]
    assert repeats("items:\n  - k: 1\n    k: 2\n  - k: 3\n") == [("items.k", 3, 4, "1", "2")]
    # a list or mapping value repeated: its value is None, its kind says what it is
    keys = frontmatter_keys("tags: [a]\ntags:\n  x: 1\n")
    (first, again), = keys.repeated
    assert (first.value, first.kind, again.value, again.kind) == (None, "list", None, "mapping")


def test_no_repeat_same_key_in_different_mappings_or_through_aliases():
    assert repeats("a:\n  name: x\nb:\n  name: y\nname: z\n") == []
    assert repeats("base: &b {k: 1}\nmore: *b\nagain: *b\n") == []


def test_an_alias_bomb_is_walked_once_per_distinct_mapping():
    levels = ["a0: &a0 {x: 1, y: 2}"] + [f"a{i}: &a{i} {{p: *a{i - 1}, q: *a{i - 1}}}" for i in range(1, 40)]
    keys = frontmatter_keys("\n".join(levels) + "\n")  # 2**40 values written out; returns at once
    assert keys.repeated == [] and len(keys.top) == 40


def test_empty_broken_or_not_a_mapping_gives_none():
    assert frontmatter_keys("") is None
    assert frontmatter_keys("title: [unclosed\n") is None
    assert frontmatter_keys("- a\n- b\n") is None
    assert frontmatter_keys("just text\n") is None
