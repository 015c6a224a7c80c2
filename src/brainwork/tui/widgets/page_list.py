"""The list of pages on the graph pane's left (an OptionList: fast for 10k rows)."""

from __future__ import annotations

from textual.binding import Binding
from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option, OptionDoesNotExist

#: Width of the type column in the list.
TYPE_WIDTH = 11


def page_prompt(page: dict) -> Content:
    """``type       Title`` with the type dimmed (``untyped`` in warning colour).

    Built with ``Content.assemble`` rather than ``Content.from_markup``: the
    same Content, ~15x faster (10,000 prompts: ~0.07 s instead of ~1.2 s of
    the workbench's first paint; benchmarks/bench_index.py)."""
    type_ = page.get("type")
    title = page["title"] or page["id"]
    if type_:
        return Content.assemble((f"{type_[:TYPE_WIDTH - 1]:<{TYPE_WIDTH}}", "$text-muted"), title)
    return Content.assemble((f"{'untyped':<{TYPE_WIDTH}}", "$warning"), title)


class PageList(OptionList):
    """Pages as options whose ids are page ids.

    Prompts are built once per page and cached, so re-filtering 10k pages
    only rebuilds the option list.
    """

    DEFAULT_CSS = """
    PageList {
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._prompts: dict[str, Content] = {}

    def show_pages(self, pages: list[dict], keep: str | None = None) -> None:
        """Replace the options with ``pages`` (in order); highlight ``keep``
        if it is among them, else the first page."""
        options = []
        for p in pages:
            prompt = self._prompts.get(p["id"])
            if prompt is None:
                prompt = self._prompts[p["id"]] = page_prompt(p)
            options.append(Option(prompt, id=p["id"]))
        self.set_options(options)
        if not options:
            return
        index = 0
        if keep is not None:
            try:
                index = self.get_option_index(keep)
            except OptionDoesNotExist:  # the page is filtered out
                index = 0
        self.highlighted = index

    def forget_prompts(self) -> None:
        """Drop cached prompts (after a re-index titles may have changed)."""
        self._prompts.clear()

    @property
    def highlighted_page(self) -> str | None:
        """Id of the highlighted page, or None."""
        if self.highlighted is None or self.option_count == 0:
            return None
        return self.get_option_at_index(self.highlighted).id
