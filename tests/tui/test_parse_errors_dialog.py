"""The parse-errors dialog reads in full at 80x24 and ``enter`` shows the
chosen file's page: the file, line and whole message of each error are on
screen (the message wraps under its file), and the border says what the
keys do."""

from __future__ import annotations

import re

from brainwork.config import load_config
from brainwork.tui.app import BrainworkApp
from brainwork.tui.modals.parse_errors import ParseErrorsScreen

from screen_support import shown_text

SMALL = (80, 24)
BROKEN = "---\ntitle: Broken tool\ntype: tool\ntags: [tool, tls\ncreated: 2026-09-30\n---\n\nThe body.\n"


def _words(text: str) -> str:
    """``text`` with the dialog's borders dropped and runs of blanks (line
    ends included) made one space, so wrapped lines read as one."""
    return re.sub(r"\s+", " ", re.sub(r"[│╭╮╰╯─]", " ", text))


async def _open_dialog(pilot, settle) -> ParseErrorsScreen:
    await settle(pilot)
    pilot.app.action_parse_errors()
    await settle(pilot)
    assert isinstance(pilot.app.screen, ParseErrorsScreen)
    return pilot.app.screen


async def test_each_error_reads_in_full_at_80x24(make_vault, settle) -> None:
    vault = make_vault({"tools/broken-yaml-tool.md": BROKEN, "ok.md": "# OK\n[[tools/broken-yaml-tool]]\n"})
    app = BrainworkApp(load_config(vault))
    async with app.run_test(size=SMALL) as pilot:
        screen = await _open_dialog(pilot, settle)
        [error] = screen.errors
        assert len(error.message) > 80  # longer than a row: it has to wrap to be read
        text = _words(shown_text(app))
        assert f"tools/broken-yaml-tool.md:{error.line}" in text, text
        assert _words(error.message) in text, text
        assert "enter opens the page" in text and "esc closes" in text, text


async def test_enter_shows_the_chosen_files_page(make_vault, settle) -> None:
    vault = make_vault({
        "a-first.md": "---\ntitle: [x, y]\n---\n# A\n",
        "tools/broken-yaml-tool.md": BROKEN,
    })
    app = BrainworkApp(load_config(vault))
    async with app.run_test(size=SMALL) as pilot:
        screen = await _open_dialog(pilot, settle)
        assert [e.path for e in screen.errors] == ["a-first.md", "tools/broken-yaml-tool.md"]
        await pilot.press("down", "enter")
        await settle(pilot)
        assert not isinstance(app.screen, ParseErrorsScreen)
        assert app.screen.pane_id == "graph"
        assert app.screen.current == "tools/broken-yaml-tool"
        assert "tools/broken-yaml-to" in shown_text(app)  # the preview names the page


async def test_escape_closes_without_moving(make_vault, settle) -> None:
    vault = make_vault({"tools/broken-yaml-tool.md": BROKEN, "ok.md": "# OK\n"})
    app = BrainworkApp(load_config(vault))
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        before = app.screen.current
        await _open_dialog(pilot, settle)
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ParseErrorsScreen)
        assert app.screen.current == before
