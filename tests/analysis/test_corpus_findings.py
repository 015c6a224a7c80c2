"""Exact finding counts on the real Obsidian help vault (read-only: the store
lives in tmp_path), each verified by hand by reading the files:

- untyped 173: the vault has 173 Markdown pages and none has a ``type:``
  key (``grep -rL "^type:" --include=*.md`` lists all 173); Obsidian's help
  uses ``aliases``/``permalink``/``cssclasses`` frontmatter only.
- dead-link 6: all in "Linking notes and files/Internal links.md", the page
  that *demonstrates* link syntax: lines 154-155 ``[[Example]]`` and
  ``[[Example#Details]]``, 162-163 ``[[Example|Custom name]]`` and
  ``[[Example#Details|Section name]]``, 168-169 ``[Custom name](Example.md)``
  and ``[Section name](Example.md#Details)``. There is no page "Example"; the
  same links written inside backticks on those lines are code, not links.
  No name in the vault is 0.7-similar to "Example", so no retarget is offered.
- orphan 1: "Editing and formatting/Multiple cursors.md" has no link of its
  own (only inline code) and nothing links to it: ``grep -rli
  "multiple.cursors"`` finds only the file itself (not its alias "How
  to/Working with multiple cursors", nor its permalink).
- stub 0: the shortest body is "Plugins/Footnotes view.md" with 173
  characters of text ("Footnotes view is a core plugin that lists all
  footnotes in the active note. Click a footnote ... in the note."), above
  120; the next are "Random note" (204) and "Outline" (228).
- oversize 0: the largest page, "Extending Obsidian/Obsidian CLI.md", has
  32,708 bytes, 60 under the 32,768-byte threshold.
- diary-title 0: the longest title has 36 characters; the only title with a
  digit is "2-factor authentication", which holds no date.
- duplicate 0: scoring every one of the 14,878 pairs exactly, the most
  similar are "Obsidian Web Clipper/Templates" / "Plugins/Templates" (same
  name 1.0, body 0.62, 0.77) and "Import CSV files" / "Import HTML files"
  (0.75), all below 0.88.
- ambiguous-link 0: the two pages named "Templates" are always linked with
  their folder (``[[Plugins/Templates]]``, ``[[Obsidian Web Clipper/Templates|...]]``);
  the indexer reports 0 ambiguous links.
- secret 0, parse-error 0: detect-secrets scanning every line of every page
  finds nothing (test_secrets.py); every file is UTF-8 with valid YAML.
"""

from __future__ import annotations

from brainwork.analysis.findings import summary


def test_obsidian_help_exact_counts(obsidian_help, indexed_corpus):
    found = list(indexed_corpus("obsidian-help-en").findings)
    assert summary(found) == {"orphan": 1, "dead-link": 6, "untyped": 173}
    dead = [(f.line, f.target) for f in found if f.code == "dead-link"]
    assert dead == [(154, "Example"), (155, "Example"), (162, "Example"), (163, "Example"),
                    (168, "Example.md"), (169, "Example.md")]
    assert {f.path for f in found if f.code == "dead-link"} == {"Linking notes and files/Internal links.md"}
    assert all(f.other is None for f in found if f.code == "dead-link")
    (orphan,) = [f for f in found if f.code == "orphan"]
    assert orphan.path == "Editing and formatting/Multiple cursors.md"
    # the corpus is read-only: nothing was written into it
    assert not (obsidian_help / ".brainwork").exists()
