"""The preview of a page whose file could not be parsed names the error
under its title: the page is stored with what could be read (no fields
after broken YAML), and without the error it reads like any untyped page."""

from __future__ import annotations

from textual.app import App

from brainwork.model import ParseError
from brainwork.store.graph import StoredPage
from brainwork.tui.widgets.page_preview import PagePreview

from screen_support import screen_text  # tests/tui is on sys.path (pytest prepend mode)


class PreviewApp(App):
    def compose(self):
        yield PagePreview()


async def test_the_preview_names_the_parse_error() -> None:
    page = StoredPage(
        id="notes/broken", path="notes/broken.md", kind="page", title="broken", type=None, status=None,
        aliases=[], tags=[], created=None, updated=None, fields={}, body="see [[b]]\n", body_line=4,
        hash=None, size=40, mtime_ns=None,
        parse_errors=(ParseError("notes/broken.md", 2, "broken YAML frontmatter: did not find expected ','"),),
    )
    app = PreviewApp()
    async with app.run_test(size=(80, 24)) as pilot:
        app.query_one(PagePreview).show_page(page)
        await pilot.pause()
        screen = "\n".join(screen_text(app))
        assert "✗ line 2: broken YAML frontmatter" in screen, screen
