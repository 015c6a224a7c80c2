"""The status bar: vault, counts, and background work with progress.

It shows app-wide state (``app.counts``, ``app.background``, ``app.store_error``,
reactives of :class:`~brainwork.tui.app.BrainworkApp`), so every pane's copy
says the same thing.
"""

from __future__ import annotations

import os
from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Label, ProgressBar

from brainwork.store.graph import GraphCounts


def short_path(path: Path) -> str:
    """``path`` relative to the working directory when inside it, else with
    the home folder written as ``~``."""
    try:
        rel = path.relative_to(Path.cwd())
        if str(rel) != ".":
            return str(rel)
    except ValueError:
        pass
    home = Path.home()
    try:
        return "~" + os.sep + str(path.relative_to(home))
    except ValueError:
        return str(path)


def counts_content(counts: GraphCounts | None, indexed: bool = True) -> Content:
    """``129 pages · 335 edges · 3 dead links · 0 parse errors``; problems
    coloured. An empty store before the first index of this session says
    so instead of "0 pages" (a 10,000-page vault opened for the first time
    read "0 pages · 0 edges" for seconds, as if empty)."""
    if counts is None:
        return Content("reading the store…")
    if not indexed and not counts.pages and not counts.attachments:
        return Content("not indexed yet")
    edges = sum(counts.edges.values())
    dead, errors = counts.dead_links, counts.parse_errors

    def n(count: int, word: str) -> str:
        return f"{count} {word}" if count == 1 else f"{count} {word}s"

    return Content.from_markup(
        "$pages · $edges · "
        + ("[$warning]$dead[/]" if dead else "$dead")
        + " · "
        + ("[$error]$errors[/]" if errors else "$errors"),
        pages=n(counts.pages, "page"),
        edges=n(edges, "edge"),
        dead=n(dead, "dead link"),
        errors=n(errors, "parse error"),
    )


class StatusBar(Horizontal):
    """One line above the key footer."""

    DEFAULT_CSS = """
    StatusBar {
        height: 1;
        background: $panel;
        color: $text-muted;
    }
    StatusBar Label {
        padding: 0 1;
    }
    StatusBar #status-vault {
        color: $text;
        max-width: 50%;
        text-overflow: ellipsis;
        text-wrap: nowrap;
    }
    StatusBar #status-counts {
        width: 1fr;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    StatusBar #status-work {
        color: $accent;
    }
    StatusBar #status-model {
        max-width: 60%;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        display: none;
    }
    StatusBar #status-model.-lexical {
        color: $warning;
        text-style: bold;
    }
    StatusBar #status-error {
        width: 1fr;
        color: $error;
        text-style: bold;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        display: none;
    }
    StatusBar ProgressBar {
        width: 34;
        padding-right: 1;
    }
    StatusBar ProgressBar Bar {
        width: 24;
    }
    """

    def compose(self) -> ComposeResult:
        app = self.app
        yield Label(f"vault: {short_path(app.config.vault)}", id="status-vault")  # type: ignore[attr-defined]
        yield Label("", id="status-counts")
        yield Label("", id="status-error")
        yield Label("", id="status-model")
        yield Label("", id="status-work")
        yield ProgressBar(total=None, show_eta=False, id="status-progress")

    def on_mount(self) -> None:
        self.watch(self.app, "counts", self._show_counts)
        self.watch(self.app, "background", self._show_work)
        self.watch(self.app, "store_error", self._show_error)
        self.watch(self.app, "embedder", self._show_model)

    def _show_counts(self, counts: GraphCounts | None) -> None:
        indexed = getattr(self.app, "indexed", True)
        self.query_one("#status-counts", Label).update(counts_content(counts, indexed))

    def _show_error(self, error: str) -> None:
        label = self.query_one("#status-error", Label)
        label.update(error)
        label.display = bool(error)
        self.query_one("#status-counts", Label).display = not error

    def _show_model(self, state: tuple[str, bool] | None) -> None:
        """The embedding model, shown only while it loads or when the lexical
        fallback serves instead (see :mod:`brainwork.tui.learning`)."""
        label = self.query_one("#status-model", Label)
        text, lexical = state or ("", False)
        label.display = bool(state) and (lexical or text.startswith("loading"))
        label.set_class(lexical, "-lexical")
        label.update(text)

    def _show_work(self, work: tuple[str, int, int] | None) -> None:
        """``work`` is ``(label, done, total)``; ``total`` 0 means unknown."""
        label = self.query_one("#status-work", Label)
        bar = self.query_one("#status-progress", ProgressBar)
        if work is None:
            label.display = False
            bar.display = False
            # An index that found the vault empty leaves ``counts`` equal,
            # so its watcher does not run: redraw for "not indexed yet".
            self._show_counts(self.app.counts)  # type: ignore[attr-defined]
            return
        text, done, total = work
        label.update(text)
        label.display = True
        bar.display = True
        bar.update(total=total or None, progress=done)
