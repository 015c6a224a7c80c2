"""Exact figures for Obsidian's own help vault (``../shared/corpora/obsidian-help-en``).

The vault is READ-ONLY: it is indexed with a store in ``tmp_path`` and the
test checks that nothing was written into it.

How the figures were verified (independently of brainwork's parser)
-------------------------------------------------------------------
- Files: ``find -name '*.md' | wc -l`` = 173 Markdown pages; every other
  file (137: images, PDFs, audio, ``publish.css/js``, ``site-options.json``,
  favicons, all empty placeholders) is an attachment. No hidden files; every
  page has a frontmatter block, none has ``title``; no BOM, no CRLF.
- Links: a separate line-based script (no markdown-it, no brainwork code)
  blanked fenced code (``` and ~~~, also inside ``>`` quotes and list items),
  inline code spans, ``%%...%%`` and ``<!-- -->`` comments, then matched
  ``[[...]]`` and ``[..](local target)``. It found 1,811 wikilink/Markdown
  link occurrences: 144 are same-page links (``[[#Heading]]``, no edge) and
  1,667 name a target — exactly the (file, line, link) multiset brainwork
  extracts. The other 89 ``[[`` of the 1,896 in the files were listed and
  read: every one is inside inline code or a fenced block (examples of link
  syntax, YAML, JSON, templates), or is a fragment such as ``[[##``.
- Resolution, by a second independent resolver following Obsidian's order
  (relative to the source folder, vault path, path suffix / file name;
  non-Markdown targets need their extension): of the 1,667, 581 resolve
  relative to the source folder, 53 by vault path, 1,027 by file name or
  suffix, 6 not at all. 29 point at their own page (e.g.
  ``[[Functions#Global|Global]]`` in ``Bases/Functions.md``; no edge), which
  leaves 1,632 live ``related`` edges (253 to attachments, 281 embeds).
- Ambiguity: only "Security and privacy" exists twice (``Obsidian Sync/``
  and ``Obsidian Publish/``); all 5 links to it are written inside one of
  those folders and resolve to the note next to them, as in Obsidian, so 0
  ambiguous links. (Before this was fixed, brainwork sent the link in
  ``Obsidian Publish/Introduction to Obsidian Publish.md:34`` to the Sync
  page.)
- No frontmatter holds a wikilink, so every edge is ``related``; no file
  fails to parse.

The 6 dead links (one per place written), all in
``Linking notes and files/Internal links.md``, which uses a note called
"Example" to show link syntax; the vault has no such note (Obsidian shows
these as unresolved links). On each line the first, backticked copy is code
and not counted:

- 154: ``[[Example]]``
- 155: ``[[Example#Details]]``
- 162: ``[[Example|Custom name]]``
- 163: ``[[Example#Details|Section name]]``
- 168: ``[Custom name](Example.md)``
- 169: ``[Section name](Example.md#Details)``
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from brainwork.cli import cli
from brainwork.store import Store, graph

INTERNAL_LINKS = "Linking notes and files/Internal links"
DEAD = [
    (INTERNAL_LINKS, 154, "Example"),
    (INTERNAL_LINKS, 155, "Example"),
    (INTERNAL_LINKS, 162, "Example"),
    (INTERNAL_LINKS, 163, "Example"),
    (INTERNAL_LINKS, 168, "Example.md"),
    (INTERNAL_LINKS, 169, "Example.md"),
]


def _listing(root: Path) -> list[tuple[str, int]]:
    return sorted((str(p.relative_to(root)), p.stat().st_mtime_ns) for p in root.rglob("*"))


@pytest.fixture(scope="module")
def indexed(obsidian_help, tmp_path_factory):
    store_dir = tmp_path_factory.mktemp("obsidian-help-store")
    before = _listing(obsidian_help)
    result = CliRunner().invoke(
        cli, ["index", "--json", "--vault", str(obsidian_help), "--store", str(store_dir)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert _listing(obsidian_help) == before, "indexing wrote into the read-only corpus"
    s = Store(store_dir)
    yield json.loads(result.stdout), s
    s.close()


def test_index_json_figures(indexed):
    data, _ = indexed
    assert data["pages"] == 173
    assert data["attachments"] == 137
    assert data["edges"] == {
        "used": 0, "cited": 0, "produced": 0, "corrected_by": 0, "promoted_to": 0, "supersedes": 0, "related": 1632,
    }
    assert data["dead_links"] == 6
    assert data["ambiguous_links"] == 0
    assert data["parse_errors"] == []


def test_dead_links_by_file_and_line(indexed):
    _, s = indexed
    rows = s.rows(
        "MATCH (a:Page)-[r:RELATED]->(m:Missing) RETURN a.id AS file, r.line AS line, r.target AS target, m.id AS missing "
        "ORDER BY a.id, r.line"
    )
    assert [(r["file"], r["line"], r["target"]) for r in rows] == DEAD
    assert {r["missing"] for r in rows} == {"example"}
    assert s.scalar("MATCH (m:Missing) RETURN count(m)") == 1


def test_edge_breakdown(indexed):
    _, s = indexed
    assert s.scalar("MATCH (:Page)-[r:RELATED]->(:Page {kind: 'attachment'}) RETURN count(r)") == 253
    assert s.scalar("MATCH (:Page)-[r:RELATED]->(:Page) WHERE r.embed RETURN count(r)") == 281
    assert s.scalar("MATCH (a:Page)-[r:RELATED]->(:Page) RETURN count(DISTINCT a.id)") == 170
    assert s.scalar("MATCH (:Page)-[r:RELATED]->(b:Page) RETURN count(DISTINCT b.id)") == 278
    assert s.scalar("MATCH (a:Page)-[r:RELATED]->(b:Page) WHERE a.id = b.id RETURN count(r)") == 0
    assert s.scalar("MATCH (:Page)-[r:RELATED]->(:Page) WHERE r.ambiguous RETURN count(r)") == 0


def test_same_folder_wins_for_a_duplicated_name(indexed):
    _, s = indexed
    rows = s.rows(
        "MATCH (a:Page)-[r:RELATED]->(b:Page) WHERE r.target = 'Security and privacy' "
        "RETURN a.id AS a, r.line AS line, b.id AS b ORDER BY a.id, r.line"
    )
    assert [(r["a"], r["line"], r["b"]) for r in rows] == [
        ("Obsidian Publish/Introduction to Obsidian Publish", 34, "Obsidian Publish/Security and privacy"),
        ("Obsidian Sync/Headless Sync", 9, "Obsidian Sync/Security and privacy"),
        ("Obsidian Sync/Introduction to Obsidian Sync", 31, "Obsidian Sync/Security and privacy"),
        ("Obsidian Sync/Set up Obsidian Sync", 52, "Obsidian Sync/Security and privacy"),
        ("Obsidian Sync/Upgrade Sync encryption", 43, "Obsidian Sync/Security and privacy"),
    ]


def test_selected_links_read_from_the_files(indexed):
    _, s = indexed
    out = {(e.other, e.line) for e in graph.page_edges(s, INTERNAL_LINKS).out}
    # **[[Settings]]** → **[[Settings#Files and links|Files and links]]** → ... (three on line 17)
    assert sum(1 for e in graph.page_edges(s, INTERNAL_LINKS).out if e.line == 17) == 3
    assert ("Attachments/internal-links-header.png", 96) in out  # ![[internal-links-header.png#interface]]
    assert ("Obsidian/About Obsidian", 80) in out  # [[About Obsidian#Links are first-class citizens]]
    # links shown inside backticks and ```md blocks are examples, not links
    assert not any(o == "example" and line in (23, 24, 28, 146, 173) for o, line in out)
    # a table-escaped link in a callout: [[Basic formatting syntax#Comments\|Comments]]
    rows = s.rows(
        "MATCH (a:Page {id: 'Editing and formatting/Obsidian Flavored Markdown'})-[r:RELATED]->(b:Page) "
        "WHERE r.line = 34 RETURN b.id AS b, r.label AS label, r.heading AS heading"
    )
    assert rows == [{"b": "Editing and formatting/Basic formatting syntax", "label": "Comments", "heading": "Comments"}]
    # inline code inside a label is kept as written
    label = s.scalar(
        "MATCH (a:Page {id: 'Editing and formatting/Tags'})-[r:RELATED]->(b:Page) WHERE r.line = 38 RETURN r.label"
    )
    assert label == "`hasTag`"


def test_titles_and_types(indexed):
    _, s = indexed
    pages = graph.list_pages(s)
    assert len(pages) == 173 and all(p.type is None for p in pages)
    assert graph.get_page(s, INTERNAL_LINKS).title == "Internal links"  # no title, no H1: file name
    assert graph.get_page(s, INTERNAL_LINKS).aliases == ["How to/Internal link", "How to/Link to blocks"]


def test_second_run_writes_nothing(obsidian_help, indexed, tmp_path):
    _, s = indexed
    from brainwork.config import load_config
    from brainwork.index.sync import sync

    rep = sync(load_config(obsidian_help, s.folder), s)
    assert not rep.wrote and rep.pages == 173 and rep.dead_links == 6
