"""The list of pages on the graph pane's left.

A line-API widget (``ScrollView`` + ``render_line``): only the rows on screen
are ever built, so showing or re-filtering 10,000 pages costs next to
nothing. (``OptionList`` measures the height of every option when options
are set: ~0.5 s for 10k pages on the 2-core machine, most of the first-paint
budget.)
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from brainwork.store.graph import PageRow
from brainwork.tui.widgets.cells import fit, shown

#: Width of the type column (the longest default type, "correction", + 1).
TYPE_WIDTH = 11

#: Cells of title the list keeps when it is narrow: the type column shrinks
#: first (to :data:`MIN_TYPE_WIDTH`), so pages can still be told apart
#: ("Renew ED…" at 8 cells could not).
MIN_TITLE_WIDTH = 16
MIN_TYPE_WIDTH = 5


def type_width(width: int) -> int:
    """Cells of the type column in a list ``width`` cells wide (one leading
    space, the type column, then the title)."""
    return max(MIN_TYPE_WIDTH, min(TYPE_WIDTH, width - 1 - MIN_TITLE_WIDTH))


class PageList(ScrollView, can_focus=True):
    """Pages, one a line: ``type       Title``; a cursor row; ``enter`` selects.

    Posts :class:`PageList.Highlighted` when the cursor moves to a page and
    :class:`PageList.Selected` on ``enter`` or a double click.
    """

    HELP_TITLE = "Page list"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor_up", "Up", show=False),
        Binding("down,j", "cursor_down", "Down", show=False),
        Binding("pageup", "page_up_rows", "Page up", show=False),
        Binding("pagedown", "page_down_rows", "Page down", show=False),
        Binding("home", "first", "First page", show=False),
        Binding("end", "last", "Last page", show=False),
        Binding("enter", "select", "Open the page", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "page-list--cursor",
        "page-list--type",
        "page-list--untyped",
    }

    DEFAULT_CSS = """
    PageList {
        background: transparent;
        overflow-x: hidden;
    }
    PageList > .page-list--type {
        color: $text-muted;
    }
    PageList > .page-list--untyped {
        color: $warning;
    }
    PageList > .page-list--cursor {
        background: $block-cursor-blurred-background;
    }
    PageList:focus > .page-list--cursor {
        background: $block-cursor-background;
        color: $block-cursor-foreground;
        text-style: bold;
    }
    """

    class Highlighted(Message):
        """The cursor is on ``page_id``."""

        def __init__(self, page_list: "PageList", page_id: str):
            super().__init__()
            self.page_list = page_list
            self.page_id = page_id

        @property
        def control(self) -> "PageList":
            return self.page_list

    class Selected(Message):
        """``enter`` (or a double click) on ``page_id``."""

        def __init__(self, page_list: "PageList", page_id: str):
            super().__init__()
            self.page_list = page_list
            self.page_id = page_id

        @property
        def control(self) -> "PageList":
            return self.page_list

    cursor: reactive[int] = reactive(0, init=False, always_update=True)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._pages: list[PageRow] = []

    # -- content --------------------------------------------------------------
    def show_pages(self, pages: list[PageRow], keep: str | None = None) -> None:
        """Show ``pages`` (in order); the cursor goes to ``keep`` if it is
        among them, else to the first page."""
        self._pages = pages
        self.virtual_size = Size(self.scrollable_content_region.width, len(pages))
        index = 0
        if keep is not None:
            index = next((i for i, p in enumerate(pages) if p.id == keep), 0)
        self.cursor = index
        self.refresh()

    def move_to(self, page_id: str) -> bool:
        """Put the cursor on ``page_id`` if it is listed, without posting
        :class:`Highlighted` (the caller already shows that page)."""
        index = next((i for i, p in enumerate(self._pages) if p.id == page_id), None)
        if index is None:
            return False
        with self.prevent(self.Highlighted):
            self.cursor = index
        return True

    @property
    def row_count(self) -> int:
        """Number of pages shown."""
        return len(self._pages)

    @property
    def highlighted_page(self) -> str | None:
        """Id of the page under the cursor, or None."""
        if 0 <= self.cursor < len(self._pages):
            return self._pages[self.cursor].id
        return None

    # -- cursor ---------------------------------------------------------------
    def validate_cursor(self, value: int) -> int:
        return max(0, min(value, len(self._pages) - 1))

    def watch_cursor(self, old: int, new: int) -> None:
        self.refresh_line(old)
        self.refresh_line(new)
        self.scroll_to_region(Region(0, new, 1, 1), animate=False, force=True, immediate=True)
        page = self.highlighted_page
        if page is not None:
            self.post_message(self.Highlighted(self, page))

    def refresh_line(self, index: int) -> None:
        y = index - int(self.scroll_offset.y)
        if 0 <= y < self.size.height:
            self.refresh(Region(0, y, self.size.width, 1))

    def action_cursor_up(self) -> None:
        self.cursor -= 1

    def action_cursor_down(self) -> None:
        self.cursor += 1

    def action_page_up_rows(self) -> None:
        self.cursor -= max(1, self.size.height - 1)

    def action_page_down_rows(self) -> None:
        self.cursor += max(1, self.size.height - 1)

    def action_first(self) -> None:
        self.cursor = 0

    def action_last(self) -> None:
        self.cursor = len(self._pages) - 1

    def action_select(self) -> None:
        page = self.highlighted_page
        if page is not None:
            self.post_message(self.Selected(self, page))

    def on_click(self, event: events.Click) -> None:
        index = int(self.scroll_offset.y) + event.y
        if 0 <= index < len(self._pages):
            self.cursor = index
            if event.chain >= 2:
                self.action_select()

    def on_resize(self) -> None:
        self.virtual_size = Size(self.scrollable_content_region.width, len(self._pages))

    # -- rendering ------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = int(self.scroll_offset.y) + y
        base = self.rich_style
        if not 0 <= index < len(self._pages):
            return Strip.blank(width, base)
        page = self._pages[index]
        type_w = type_width(width)
        type_ = shown(page.type or "untyped")
        type_text = fit(type_, type_w - 1, pad=True) + " "
        type_style = self.get_component_rich_style("page-list--type" if page.type else "page-list--untyped")
        text = Text.assemble(" ", (type_text, type_style), shown(page.title or page.id), style=base)
        text.truncate(width, overflow="ellipsis", pad=True)
        if index == self.cursor:
            text.stylize(self.get_component_rich_style("page-list--cursor"))
        return Strip(list(text.render(self.app.console))).crop_extend(0, width, base)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.refresh()
