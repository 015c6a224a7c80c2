"""What the graph pane and the status bar count and say: two-hop pages,
parse errors, an unindexed vault, an 80-column terminal."""

from __future__ import annotations

import dataclasses

from textual.notifications import Notify

from brainwork.store import graph
from brainwork.tui.app import BrainworkApp
from brainwork.tui.screens.graph import neighbourhood_title

from screen_support import screen_text, toast_titled  # tests/tui is on sys.path (pytest prepend mode)

CERTBOT = "tools/certbot"


def test_title_counts_second_hop_pages() -> None:
    def row(id_: str, hop: int) -> graph.Neighbour:
        return graph.Neighbour("related", "out", id_, id_, None, False, hop, None if hop == 1 else "a", 1)

    rows = [row("a", 1), row("a", 1), row("b", 1), row("c", 2), row("d", 2), row("c", 2)]
    assert neighbourhood_title(rows[:3], 1) == "Neighbourhood · 1 hop · 2 linked"
    assert neighbourhood_title(rows, 2) == "Neighbourhood · 2 hops · 4 pages"


async def test_two_hop_view_says_how_many_pages_it_shows(sample_config, settle) -> None:
    """With 2 hops the title said "16 linked", the 1-hop figure, while the
    tree showed dozens more pages."""
    app = BrainworkApp(sample_config)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.open_page(CERTBOT)
        await settle(pilot)
        centre = app.screen.query_one("#graph-centre")
        with app.store.use() as store:
            rows = graph.neighbourhood(store, CERTBOT, 2)
        near = len({r.id for r in rows if r.hop == 1})
        far = len({r.id for r in rows if r.hop == 2})
        assert far > 0
        # the words before the count go first when the panel is narrow
        assert str(centre.border_title).endswith(f"1 hop · {near} linked")
        await pilot.press("h")
        await settle(pilot)
        assert str(centre.border_title).endswith(f"2 hops · {near + far} pages")


async def test_parse_error_notice_counts_files_and_says_what_happened(make_vault, settle) -> None:
    """The notice said "2 files could not be indexed" for one file the indexer
    did index (a title that is not text) plus one binary file; it counted
    errors and claimed nothing of the file was indexed."""
    from brainwork.config import load_config
    from brainwork.tui.modals.parse_errors import ParseErrorsScreen

    vault = make_vault({
        "a.md": "---\ntitle: [x, y]\n---\n# A\n[[b]]\n",  # indexed, with a warning
        "b.md": b"\x00\x01binary",
        "c.md": "# C\n",
    })
    app = BrainworkApp(load_config(vault))
    messages: list = []
    async with app.run_test(size=(120, 40), notifications=True, message_hook=messages.append) as pilot:
        note = await toast_titled(pilot, "Parse errors")
        assert "2 files could not be read completely" in note.message, note
        await settle(pilot)
        texts = [m.notification.message for m in messages if isinstance(m, Notify)]
        assert not any("could not be indexed" in t for t in texts), texts
        app.action_parse_errors()
        await settle(pilot)
        assert isinstance(app.screen, ParseErrorsScreen)
        title = str(app.screen.query_one("#errors-title").render())
        assert title.startswith("2 files could not be read completely")


async def test_neighbourhood_keeps_room_in_an_80_column_terminal(sample_config, settle) -> None:
    """At 80x24 the page list kept its 36 columns and the preview its 36%,
    leaving the neighbourhood, the pane's point, 15 columns. Now the list
    takes the 32 cells that show 16 characters of a title and the other two
    panels share the rest; wider terminals widen all three."""
    app = BrainworkApp(sample_config)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        left = screen.query_one("#graph-left").outer_size.width
        centre = screen.query_one("#graph-centre").outer_size.width
        assert centre >= 22 and left == 32, (left, centre)
        title = screen.query_one("#graph-centre").border_title
        assert "linked" in title and len(title) + 6 <= centre, (title, centre)
        assert f"╭─ {title} ─" in screen_text(app)[1]  # drawn whole
    app = BrainworkApp(sample_config)
    async with app.run_test(size=(140, 45)) as pilot:  # wide terminals widen the list and the neighbourhood
        await settle(pilot)
        assert app.screen.query_one("#graph-left").outer_size.width > 32
        assert app.screen.query_one("#graph-centre").outer_size.width >= 40


def test_status_counts_before_the_first_index() -> None:
    from brainwork.tui.widgets.status_bar import counts_content

    empty = graph.GraphCounts(pages=0, attachments=0, edges={"related": 0}, dead_links=0, parse_errors=0, types={})
    assert str(counts_content(empty, indexed=False)) == "not indexed yet"
    assert str(counts_content(empty, indexed=True)).startswith("0 pages · 0 edges")
    full = dataclasses.replace(empty, pages=3)
    assert str(counts_content(full, indexed=False)).startswith("3 pages")  # a store from an earlier session


async def test_status_bar_says_not_indexed_then_counts(make_vault, settle) -> None:
    """A vault opened for the first time read "0 pages · 0 edges · ..." while
    the first index ran (seconds on 10,000 pages), as if it were empty; an
    empty vault must still end up saying "0 pages"."""
    from brainwork.config import load_config

    for files, expected in (({"a.md": "# A\n[[b]]\n", "b.md": "# B\n"}, "2 pages · 1 edge"), ({}, "0 pages · 0 edges")):
        app = BrainworkApp(load_config(make_vault(files)))
        async with app.run_test(size=(120, 40)) as pilot:
            label = app.screen.query_one("#status-counts")
            seen = []
            for _ in range(200):
                seen.append(str(label.render()))
                if app.indexed and app.background is None:
                    break
                await pilot.pause(0.01)
            await settle(pilot)
            assert str(label.render()).startswith(expected), seen[-3:]
            assert not any(s.startswith("0 pages") for s in seen if files), seen


def test_title_fits_a_narrow_panel() -> None:
    """At 80 columns the centre panel is narrow: the title keeps its count by
    dropping the words before it, never by cutting the count off."""
    rows = [graph.Neighbour("related", "out", i, i, None, False, 1, None, 1) for i in ("a", "b")]
    assert neighbourhood_title(rows, 1, width=60) == "Neighbourhood · 1 hop · 2 linked"
    assert neighbourhood_title(rows, 1, width=22) == "1 hop · 2 linked"
    assert neighbourhood_title(rows, 1, width=14) == "2 linked"
    assert neighbourhood_title(rows, 1, width=5) == "2 linked"
