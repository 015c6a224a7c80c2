"""Command palette providers (``ctrl+p``).

Titles are namespaced: ``page: …`` (any page, fuzzy over title, aliases
and id with :class:`brainwork.analysis.search.PageSearch`; and the page
operations ``page: rename``, ``page: set type``, ``page: merge into…``,
``page: split``, ``page: open in editor`` on the page in view, see
:meth:`~brainwork.tui.app.BrainworkApp.current_page`), ``pane: …``,
``theme: …``, ``filter: …``, ``graph: …``, ``index: …``, ``learn: …``, ``app: …``.
Typing a namespace (``theme:``) narrows the list to it.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Callable, Iterator

from rich.cells import cell_len, set_cell_size
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from brainwork.tui.widgets.cells import shown
from brainwork.tui.workbench import Workbench

#: Page hits shown per query.
PAGE_HITS = 20

#: Cells of a palette row that hold no text: Textual's CommandList pads
#: each option by 2 on either side, and its vertical scrollbar takes 2 more
#: once the list scrolls. Textual measures an option's height before the
#: scrollbar appears, so a row that fits only without it wraps into a
#: second line that is never drawn (the page id went missing): page rows
#: are fitted to the narrower width.
PALETTE_CHROME = 6
#: A page title is cut no shorter than this (cells); below it, the type and
#: id go to a second line of their own.
TITLE_MIN = 12


def fit_title(title: str, room: int) -> str:
    """``title`` cut with "…" to at most ``room`` cells."""
    if cell_len(title) <= room:
        return title
    return set_cell_size(title, max(room - 1, 0)).rstrip() + "…"

#: The palette's page operations: (graph pane action, title, help).
PAGE_OPERATIONS = (
    ("rename", "page: rename", "Rename the page in view; every link follows; undoable (r in Graph)"),
    ("set_type", "page: set type", "Set the type of the page in view; undoable (s in Graph)"),
    ("merge", "page: merge into…", "Merge the page in view into another (asks; cannot be undone) (m in Graph)"),
    ("split", "page: split", "Split the page in view at its ## headings; undoable (S in Graph)"),
    ("edit", "page: open in editor", "Open the page in view in $EDITOR, then re-index (e in Graph)"),
)

NAMESPACES = ("page", "pane", "theme", "filter", "graph", "index", "learn", "app")


def split_namespace(query: str) -> tuple[str | None, str]:
    """``"theme: dark"`` -> ``("theme", "dark")``; no known prefix -> ``(None, query)``."""
    head, sep, rest = query.partition(":")
    if sep and head.strip().lower() in NAMESPACES:
        return head.strip().lower(), rest.strip()
    return None, query


class PageCommands(Provider):
    """``page: <title>`` for every page; choosing one opens it in the graph pane."""

    async def search(self, query: str) -> Hits:
        app: Workbench = self.app  # type: ignore[assignment]
        namespace, text = split_namespace(query)
        if namespace not in (None, "page") or app.page_search is None or not text.strip():
            return
        # rapidfuzz releases the GIL; a thread keeps typing smooth on 10k titles.
        hits = await asyncio.to_thread(app.page_search.search, text, PAGE_HITS)
        width = app.size.width - PALETTE_CHROME
        for hit in hits:
            type_, id_ = hit.type or "untyped", shown(hit.id)
            # The title gives way, not the id: the id tells pages of one title apart.
            room = width - cell_len(f"page:   {type_} · {id_}")
            title = shown(hit.title or hit.id)
            if room >= TITLE_MIN:
                display = Content.from_markup(
                    "page: $title  [$text-muted]$type · $id[/]", title=fit_title(title, room), type=type_, id=id_,
                )
            else:  # a long id: a line break of our own, which Textual measures right
                display = Content.from_markup(
                    "page: $title\n      [$text-muted]$type · $id[/]",
                    title=fit_title(title, width - cell_len("page: ")), type=type_, id=id_,
                )
            yield Hit(
                hit.score / 100,
                display,
                partial(app.open_page, hit.id),
                text=f"page: {hit.title}",
            )


class AppCommands(Provider):
    """Everything that is not a page: panes, themes, filters, indexing."""

    def _commands(self) -> Iterator[tuple[str, str, Callable[[], object], bool]]:
        """(title, help, callback, shown before typing)."""
        app: Workbench = self.app  # type: ignore[assignment]
        for pane in app.panes:
            yield f"pane: {pane.title}", f"Show the {pane.title} pane (key {pane.key})", partial(
                app.switch_pane, pane.id
            ), True
        for action, title, help_ in PAGE_OPERATIONS:
            yield title, help_, partial(app.act_on_page, action), True
        yield "graph: toggle 1/2 hops", "Show one or two hops around the page (key h)", partial(
            app.run_action, "screen.toggle_hops"
        ), True
        yield "index: re-index", "Sync the vault into the store now (ctrl+r)", app.action_reindex, True
        yield "index: parse errors", "List the files that could not be read", app.action_parse_errors, True
        yield "learn: consolidate", "Cluster open corrections into candidate rules (c in Inbox/Rules)", (
            app.learning.consolidate_command
        ), True
        yield "app: help", "Every key binding of the app and this pane (?)", app.action_help, True
        yield "app: quit", "Leave the workbench (q)", app.exit, True
        for name in sorted(app.available_themes):
            yield f"theme: {name}", "Switch to this theme (t lists them)", partial(setattr, app, "theme", name), False
        types = sorted(app.counts.types if app.counts else {})
        yield "filter: all types", "Show every page in the graph pane's list", partial(app.filter_type, None), False
        for t in types:
            label = t or "untyped"
            yield f"filter: type {label}", f"Show only {label} pages in the list", partial(app.filter_type, t), False

    async def discover(self) -> Hits:
        for title, help_, callback, shown in self._commands():
            if shown:
                yield DiscoveryHit(title, callback, help=help_)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_, callback, _shown in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_)
