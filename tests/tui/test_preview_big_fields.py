"""The preview of a page whose frontmatter holds megabytes (a capture with
a pasted log as ``wrong``): each field is cut at PREVIEW_FIELD_CHARS with
its length, so showing it takes moments, not minutes of wrapping, and the
workbench answers keys meanwhile."""

from __future__ import annotations

import time

from textual.app import App

from brainwork.store.graph import StoredPage
from brainwork.tui.widgets.page_preview import PREVIEW_FIELD_CHARS, PagePreview

from screen_support import screen_text  # tests/tui is on sys.path (pytest prepend mode)

HUGE = "y" * 5_000_000


def _page() -> StoredPage:
    return StoredPage(
        id="corrections/huge", path="corrections/huge.md", kind="page", title="A correction with a pasted log",
        type="correction", status="open", aliases=[], tags=[], created="2026-12-02", updated=None,
        fields={"wrong": HUGE, "correct": "Read the log first", "why": "w", "status": "open"},
        body="Short body.\n", body_line=9, hash=None, size=5_000_200, mtime_ns=None,
    )


class PreviewApp(App):
    def compose(self):
        yield PagePreview()


async def test_a_field_of_megabytes_is_cut_and_shows_at_once() -> None:
    app = PreviewApp()
    async with app.run_test(size=(80, 24)) as pilot:
        preview = app.query_one(PagePreview)
        started = time.process_time()
        preview.show_page(_page())
        await pilot.pause()
        await pilot.pause()
        assert time.process_time() - started < 5  # it was minutes of CPU
        header = str(preview.query_one("#preview-header").render())
        assert "… (5,000,000 characters)" in header
        assert "y" * (PREVIEW_FIELD_CHARS + 1) not in header
        assert "correct: Read the log first" in header
        assert any("A correction with" in line for line in screen_text(app))
