"""Pilot tests: the workbench on a copy of sample_vault/, driven by keys."""

from __future__ import annotations

from brainwork.store import graph
from brainwork.tui.app import BrainworkApp
from brainwork.tui.modals.help import HelpScreen
from brainwork.tui.screens.graph import GraphScreen, filter_pages, start_page
from brainwork.tui.widgets.neighbour_tree import NeighbourTree
from brainwork.tui.widgets.page_list import PageList
from brainwork.tui.widgets.page_preview import PagePreview

from screen_support import toasts  # tests/tui is on sys.path (pytest prepend mode)

SIZE = (120, 40)
RENEWAL = "tasks/2026-09-02-renew-cert-billing-api"  # used certbot, openssl, billing-api; corrected
WITH_DEAD_LINK = "tasks/2026-09-09-renew-cert-edi-endpoint"  # links [[systems/legacy-ftp]] (missing)


def tree_nodes(tree: NeighbourTree):
    stack = [tree.root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.children)


def plain(widget) -> str:
    return str(widget.render())


async def cursor_to(pilot, tree: NeighbourTree, page_id: str) -> None:
    """Move the tree cursor with ``j`` until it is on ``page_id``."""
    for _ in range(200):
        info = tree.highlighted_info
        if info is not None and info.page_id == page_id and info.kind == "page":
            return
        await pilot.press("j")
    raise AssertionError(f"{page_id} not reachable in the tree")


async def test_start_up_indexes_and_shows_counts_list_and_newest_task(fresh_sample_config, settle) -> None:
    app = BrainworkApp(fresh_sample_config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        with app.store.use() as store:
            counts = graph.counts(store)
            pages = graph.list_pages(store)
        assert counts.pages == len(pages) > 80
        assert app.counts == counts
        screen = app.screen
        assert isinstance(screen, GraphScreen)
        status = plain(screen.query_one("#status-counts"))
        edges = sum(counts.edges.values())
        assert f"{counts.pages} pages · {edges} edges · {counts.dead_links} dead links" in status
        assert plain(screen.query_one("#status-vault")) == "vault: sample_vault"
        assert not screen.query_one("#status-progress").display  # indexing done
        assert screen.query_one(PageList).row_count == len(pages)
        assert screen.current == start_page(pages)
        assert screen.query_one(NeighbourTree).centre_id == screen.current
        assert app.focused is screen.query_one(PageList)


async def test_navigate_a_neighbourhood_with_history(sample_config, settle) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        app.open_page(RENEWAL)
        await settle(pilot)
        tree = screen.query_one(NeighbourTree)
        assert app.focused is tree
        groups = [str(n.label) for n in tree.root.children]
        assert any(g.startswith("used →") for g in groups), groups
        assert any(g.startswith("corrected_by →") for g in groups), groups
        with app.store.use() as store:
            expected = {r.id for r in graph.neighbourhood(store, RENEWAL, 1)}
        shown = {n.data.page_id for n in tree_nodes(tree) if n.data and n.data.kind == "page"}
        assert shown == expected

        await cursor_to(pilot, tree, "tools/certbot")
        await settle(pilot)
        assert "certbot" in plain(screen.query_one(PagePreview).query_one("#preview-header"))
        await pilot.press("enter")
        await settle(pilot)
        assert screen.current == "tools/certbot"
        assert any(str(n.label).startswith("← used") for n in tree.root.children)

        await pilot.press("backspace")
        await settle(pilot)
        assert screen.current == RENEWAL
        assert tree.centre_id == RENEWAL
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert screen.current == "tools/certbot"
        assert screen.check_action("forward", ()) is None  # greyed: nothing ahead


async def test_two_hops_and_dead_links(sample_config, settle) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = app.screen
        app.open_page(WITH_DEAD_LINK)
        await settle(pilot)
        tree = screen.query_one(NeighbourTree)
        dead = [n for n in tree_nodes(tree) if n.data and n.data.dead]
        assert [n.data.page_id for n in dead] == ["systems/legacy-ftp"]
        assert "✗ systems/legacy-ftp (dead link)" in str(dead[0].label)

        await cursor_to(pilot, tree, "systems/legacy-ftp")
        await settle(pilot)
        assert "No page by this name exists" in plain(screen.query_one("#preview-header"))
        await pilot.press("enter")  # a dead link cannot be opened: a warning, no move
        await settle(pilot)
        assert screen.current == WITH_DEAD_LINK
        assert any(t.title == "Dead link" and "dead link" in t.message for t in toasts(app))

        await pilot.press("h")
        await settle(pilot)
        assert screen.hops == 2
        for node in list(tree_nodes(tree)):
            if node.allow_expand and node.data and node.data.kind == "page":
                node.expand()
        await settle(pilot)
        second = {n.data.page_id for n in tree_nodes(tree) if n.data and n.data.hop == 2}
        with app.store.use() as store:
            expected = {r.id for r in graph.neighbourhood(store, WITH_DEAD_LINK, 2) if r.hop == 2}
        assert second == expected and second


async def test_palette_finds_a_page_and_opens_it(sample_config, settle, palette) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await palette(pilot, "verify full cert chain")
        screen = app.screen
        assert isinstance(screen, GraphScreen)
        assert screen.current == "rules/verify-full-cert-chain"
        assert screen.query_one(NeighbourTree).centre_id == "rules/verify-full-cert-chain"


async def test_palette_switches_pane(sample_config, settle, palette) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await palette(pilot, "pane: rules")
        assert app.screen.pane_id == "rules"


async def test_list_filters_by_type_and_text(sample_config, settle) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        plist = screen.query_one(PageList)
        await pilot.press("f")
        assert screen.type_filter == "task"  # first type of the vocabulary present
        tasks = [p for p in app.pages if p.type == "task"]
        assert plist.row_count == len(tasks)
        await pilot.press("slash", *"cert")
        assert screen.text_filter == "cert"
        assert plist.row_count == len(filter_pages(app.pages, "task", "cert")) > 0
        await pilot.press("enter")  # back to the list
        assert app.focused is plist
        await pilot.press("enter")  # open the highlighted page
        await settle(pilot)
        assert screen.current == plist.highlighted_page
        await pilot.press("F")  # back to all types
        await pilot.press("escape")  # clear the text (focus is on the tree now)
        assert screen.type_filter is None and screen.text_filter == ""
        assert plist.row_count == len(app.pages)


async def test_digits_switch_panes_and_help_lists_bindings(sample_config, settle) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")
        assert app.screen.pane_id == "findings"
        await pilot.press("1")
        assert isinstance(app.screen, GraphScreen)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = "\n".join(str(s.render()) for s in app.screen.query(".help-section"))
        assert "Everywhere" in text and "Pane 1: Graph" in text
        await pilot.press("2")  # pane keys do nothing over the help
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, GraphScreen)
        assert app.check_action("undo", ()) is None  # greyed until the undo log exists


async def test_a_pane_is_one_registry_line(sample_config, settle) -> None:
    """A registry with an extra pane: its digit, tab and palette entry appear."""
    from brainwork.tui.panes import PANES, Pane
    from brainwork.tui.screens.placeholder import PlaceholderScreen
    from brainwork.tui.widgets.pane_tabs import PaneTab

    extra = Pane("9", "demo", "Demo", lambda: PlaceholderScreen("demo", "Demo — coming", "A pane to come."))
    app = BrainworkApp(sample_config, panes=(*PANES, extra))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "9 Demo" in [str(t.render()) for t in app.screen.query(PaneTab)]
        await pilot.press("9")
        assert isinstance(app.screen, PlaceholderScreen) and app.screen.pane_id == "demo"
        assert "Demo — coming" in plain(app.screen.query_one("#placeholder-heading"))
        await pilot.press("1")
        assert isinstance(app.screen, GraphScreen)
