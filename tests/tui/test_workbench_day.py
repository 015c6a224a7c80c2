"""The workbench for a full day: a layout that uses the terminal, keys that
stay visible, acting on the page in view, help that shows the product's
keys, and real titles that draw right. Assertions are on what the screen
shows and on the messages the app posts."""

from __future__ import annotations

import re

import pytest
from rich.cells import cell_len
from textual.widgets import Collapsible

from brainwork.config import load_config
from brainwork.tui.app import BrainworkApp
from brainwork.tui.keys import help_sections
from brainwork.tui.modals.help import HelpScreen
from brainwork.tui.modals.prompts import ChoicePrompt
from brainwork.tui.widgets.cells import fit, shown
from brainwork.tui.widgets.key_footer import KeyFooter
from brainwork.tui.widgets.neighbour_tree import NeighbourTree
from brainwork.tui.widgets.page_preview import reading_view
from brainwork.vault.links import comment_spans

from screen_support import finished, screen_text  # tests/tui is on sys.path (pytest prepend mode)

SMALL, LARGE = (80, 24), (160, 50)
CERT = "tasks/renew-cert"


def _left_panel_rows(lines: list[str]) -> list[str]:
    """The page list's rows: between the first pair of │ on each body line."""
    rows = []
    for line in lines[2:]:
        if line.startswith("╰"):
            break
        if line.startswith("│"):
            rows.append(line[1 : line.index("│", 1)])
    return rows


# -- layout ------------------------------------------------------------------------
@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_page_list_shows_16_characters_of_every_title(sample_config, settle, size) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        lines = screen_text(app)
        titles = {p.title for p in app.pages}
        rows = [r for r in _left_panel_rows(lines) if r.strip()]
        assert len(rows) >= size[1] - 6
        for row in rows:
            title = row[12:].rstrip(" ▁▂▃▄▅▆▇█")
            if title.endswith("…"):
                assert len(title) - 1 >= 16, row
                assert any(t.startswith(title[:-1]) for t in titles), row
            else:
                assert title in titles, row


@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_every_pane_footer_shows_quit_and_help_and_whole_keys(sample_config, settle, size) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for pane in app.panes:
            await pilot.press(pane.key)
            await settle(pilot)
            footer = screen_text(app)[-1]
            assert footer.startswith(" q Quit  ? Help"), (pane.id, footer)
            assert footer.rstrip().endswith("^p palette"), (pane.id, footer)
            # no key cut in half before the palette key
            keys = app.screen.query_one(KeyFooter).query("FooterKey")
            for key in keys:
                if key.description:
                    assert f"{key.key_display} {key.description}" in footer, (pane.id, key.description, footer)


async def test_wider_terminal_gives_the_list_more_room(sample_config, settle) -> None:
    widths = []
    for size in (SMALL, (120, 40), LARGE):
        app = BrainworkApp(sample_config)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            widths.append(len(_left_panel_rows(screen_text(app))[0]))
    assert widths[0] < widths[1] < widths[2]


async def test_resize_keys_change_the_list_width_for_the_session(sample_config, settle) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        before = len(_left_panel_rows(screen_text(app))[0])
        await pilot.press("greater_than_sign", "greater_than_sign")
        await settle(pilot)
        wider = len(_left_panel_rows(screen_text(app))[0])
        assert wider > before
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)
        assert len(_left_panel_rows(screen_text(app))[0]) == wider  # kept across panes
        await pilot.press(*["less_than_sign"] * 4)
        await settle(pilot)
        assert len(_left_panel_rows(screen_text(app))[0]) < before


async def test_zoom_maximises_the_focused_panel_and_restores_it(sample_config, settle) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("tab")  # the neighbourhood
        await settle(pilot)
        await pilot.press("z")
        await settle(pilot)
        lines = screen_text(app)
        assert lines[1].startswith("╭─ Neighbourhood") and lines[1].endswith("╮") and len(lines[1]) == 80
        assert not any("Pages ·" in line or "Preview" in line for line in lines)
        assert lines[-1].startswith(" q Quit  ? Help")
        await pilot.press("z")
        await settle(pilot)
        lines = screen_text(app)
        assert "Pages ·" in lines[1] and "Preview" in lines[1]


async def test_neighbourhood_clips_with_an_ellipsis(sample_config, settle) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        tree = app.screen.query_one(NeighbourTree)
        width = tree.scrollable_content_region.width
        centre = next(p for p in app.pages if p.id == tree.centre_id)
        lines = screen_text(app)
        label_line = lines[2]
        assert centre.title[:8] in label_line
        if cell_len(centre.title) + 4 > width:
            assert "…" in label_line


# -- real titles -----------------------------------------------------------------------
def test_fit_measures_cells_and_ends_in_an_ellipsis() -> None:
    assert fit("中文中文中文", 5) == "中文…"
    assert cell_len(fit("中文中文中文", 4)) <= 4
    assert fit("abc", 5, pad=True) == "abc  "
    assert fit("abcdefgh", 5) == "abcd…"
    assert shown("🗂️ 01 Templates") == "🗂\ufe0e 01 Templates"  # text presentation, same length
    assert cell_len(shown("🗂️ 01 Templates")) == len("🗂 01 Templates")


WIDE_VAULT = {
    "🗂️ 01 Templates.md": "# 🗂️ 01 Templates\n\nLinks: [[中文标题的一个很长很长的页面]] and [[Plain page]].\n",
    "中文标题的一个很长很长的页面.md": "# 中文标题的一个很长很长的页面\n\n[[🗂️ 01 Templates]]\n",
    "Plain page.md": (
        "# Plain page\n\nVisible text. %%a hidden remark%% More text.\n\n%%\nA hidden block\nover lines\n%%\n\n"
        "`%%code stays%%`\n\n[[🗂️ 01 Templates]] ❤️ done\n"
    ),
}


@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_emoji_and_wide_titles_keep_every_border_in_line(make_vault, settle, size) -> None:
    app = BrainworkApp(load_config(make_vault(WIDE_VAULT)))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for page in ("🗂️ 01 Templates", "中文标题的一个很长很长的页面", "Plain page"):
            app.open_page(page)
            await settle(pilot)
            lines = screen_text(app)
            assert not [line for line in lines if "\ufe0f" in line]
            for line in lines:
                assert cell_len(line) <= size[0], line
            # every panel's side borders sit in the columns of its corners, on every row
            top = _cells(lines[1])
            edges = [i for i, c in enumerate(top) if c in "╭╮"]
            assert len(edges) == 6, lines[1]
            for line in lines[2:-3]:
                cells = _cells(line)
                assert len(cells) == size[0], line
                assert all(cells[i] in "│╰╯" for i in edges), line


def _cells(line: str) -> list[str]:
    """One entry per terminal cell, as tmux 3.3 advances its cursor: each
    character by its own width, variation selectors by none (measured: 🗂️
    and 🗂︎ take 1 cell there, 📁 2), so a line Rich measured otherwise
    shows up here with the wrong length."""
    out = []
    for ch in line:
        if ch in "\ufe0e\ufe0f":
            continue
        out.append(ch)
        out.extend([""] * (cell_len(ch) - 1))
    return out


def test_comment_spans_follow_obsidian() -> None:
    body = "a %%x%% b\n%%\nblock\n%%\n`%%code%%`\n```\n%%fence%%\n```\n%%open"
    removed = reading_view(body)
    assert "x" not in removed.split("\n")[0]
    assert "block" not in removed
    assert "`%%code%%`" in removed and "%%fence%%" in removed
    assert "open" not in removed
    assert len(comment_spans(body)) == 3


async def test_preview_hides_comments_and_keeps_text(make_vault, settle) -> None:
    app = BrainworkApp(load_config(make_vault(WIDE_VAULT)))
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        app.open_page("Plain page")
        await settle(pilot)
        text = "\n".join(screen_text(app))
        assert "Visible text." in text and "More text." in text
        assert "hidden remark" not in text and "A hidden block" not in text
        assert "%%code stays%%" in text


# -- act where you look -----------------------------------------------------------------
def _vault_bytes(vault) -> dict[str, bytes]:
    return {
        str(p.relative_to(vault)): p.read_bytes()
        for p in sorted(vault.rglob("*.md"))
        if ".brainwork" not in p.parts
    }


@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_rename_a_neighbour_from_the_graph_pane_then_undo(snapshot_config, settle, open_rename, size) -> None:
    messages: list = []
    app = BrainworkApp(snapshot_config)
    before = _vault_bytes(snapshot_config.vault)
    async with app.run_test(size=size, message_hook=messages.append) as pilot:
        await open_rename(pilot)
        await pilot.press("ctrl+a")  # Input: to the start (then select to the end)
        app.screen.query_one("Input").value = "ACME certbot"
        await pilot.press("enter")
        await settle(pilot)
        done = finished(messages, "rename")
        assert done and not done[-1].error, [m.error for m in done]
        text = "\n".join(screen_text(app))
        assert "ACME certbot" in text
        assert _vault_bytes(snapshot_config.vault) != before
        await pilot.press("u")
        await settle(pilot)
        undone = finished(messages, "undo")
        assert undone and not undone[-1].error
        assert _vault_bytes(snapshot_config.vault) == before  # every byte, every file name
        assert "ACME certbot" not in "\n".join(screen_text(app))


async def test_set_type_from_the_palette_acts_on_the_page_in_view(snapshot_config, settle, palette) -> None:
    messages: list = []
    app = BrainworkApp(snapshot_config)
    async with app.run_test(size=SMALL, message_hook=messages.append) as pilot:
        await settle(pilot)
        app.open_page("notes/scratch")
        await settle(pilot)
        await palette(pilot, "page: set type")
        assert isinstance(app.screen, ChoicePrompt)
        assert "notes/scratch" in app.screen.title_text
        await pilot.press(*"topic")
        await pilot.press("enter")
        await settle(pilot)
        done = finished(messages, "set type")
        assert done and not done[-1].error, [m.error for m in done]
        assert "type: topic" in (snapshot_config.vault / "notes" / "scratch.md").read_text(encoding="utf-8")


async def test_merge_from_the_graph_pane_asks_first(snapshot_config, settle) -> None:
    from brainwork.tui.modals.merge_confirm import MergeConfirmScreen

    messages: list = []
    app = BrainworkApp(snapshot_config)
    async with app.run_test(size=LARGE, message_hook=messages.append) as pilot:
        await settle(pilot)
        app.open_page("notes/scratch")
        await settle(pilot)
        await pilot.press("tab")
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, ChoicePrompt)
        await pilot.press(*"certbot")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MergeConfirmScreen)
        await pilot.press("escape")  # the default is Cancel: nothing merged
        await settle(pilot)
        assert not finished(messages, "merge")
        assert (snapshot_config.vault / "notes" / "scratch.md").exists()


async def test_links_of_the_preview_can_be_followed_with_the_keyboard(snapshot_config, settle) -> None:
    app = BrainworkApp(snapshot_config)
    async with app.run_test(size=LARGE) as pilot:
        await settle(pilot)
        app.open_page(CERT)
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        assert isinstance(app.screen, ChoicePrompt)
        listed = "\n".join(screen_text(app))
        assert "legacy-ftp" in listed and "dead link" in listed
        await pilot.press(*"billing")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen.current == "systems/billing-api"
        assert re.search(r"● Billing API", "\n".join(screen_text(app)))


# -- help ---------------------------------------------------------------------------------
async def test_help_lists_the_pane_keys_first_and_folds_textual_keys(snapshot_config, settle) -> None:
    app = BrainworkApp(snapshot_config)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        sections = help_sections(app, app.screen)
        titles = [s.title for s in sections]
        assert titles[0] == "Pane 1: Graph"
        everywhere = titles.index("Everywhere")
        assert all(not s.generic for s in sections[: everywhere + 1])
        assert all(s.generic for s in sections[everywhere + 1 :])
        first = {a for row in sections[0].rows for a in [row.action]}
        assert {"rename", "set_type", "merge", "split", "edit", "links"} <= first
        generic_actions = {row.action for s in sections if s.generic for row in s.rows}
        assert "app.focus_next" in generic_actions and "rename" not in generic_actions
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert app.screen.query_one(Collapsible).collapsed
        text = "\n".join(screen_text(app))
        assert "Pane 1: Graph" in text and "Rename" in text
        assert "Focus Next" not in text  # folded


async def test_split_the_centre_page_from_the_tree_then_undo(snapshot_config, settle) -> None:
    """``S`` with the tree's centre highlighted splits that page at its
    ``## `` headings; one ``u`` restores every file."""
    messages: list = []
    before = _vault_bytes(snapshot_config.vault)
    app = BrainworkApp(snapshot_config)
    async with app.run_test(size=SMALL, message_hook=messages.append) as pilot:
        await settle(pilot)
        app.open_page(CERT)  # focuses the tree, its cursor on the centre
        await settle(pilot)
        await pilot.press("S")
        await settle(pilot)
        done = finished(messages, "split")
        assert done and not done[-1].error, [m.error for m in done]
        assert len(_vault_bytes(snapshot_config.vault)) > len(before)
        await pilot.press("u")
        await settle(pilot)
        assert _vault_bytes(snapshot_config.vault) == before
