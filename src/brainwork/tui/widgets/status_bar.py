"""The status bar: vault, counts, and background work with progress.

It shows app-wide state (``app.counts``, ``app.background``, ``app.store_error``,
reactives of :class:`~brainwork.tui.app.BrainworkApp`), so every pane's copy
says the same thing.

When the line is too narrow for everything, pieces give way in this order
(:func:`fit`): the vault's path is cut (ellipsis) down to
:data:`VAULT_MIN` cells, the progress shortens (the bar gives way to a
percentage, then the label to its first part), the vault goes, then whole
counts go (edges, then pages). A count is never cut mid-word.
"""

from __future__ import annotations

import os
from pathlib import Path

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Label, ProgressBar

from brainwork.store.graph import GraphCounts
from brainwork.wording import counted

#: Cells the vault's path keeps before it goes altogether (padding included).
VAULT_MIN = 16
#: Cells of the progress bar with its percentage (its CSS width below).
BAR_CELLS = 34
#: Left and right padding of every label.
PAD = 2


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


def counts_content(counts: GraphCounts | None, indexed: bool = True, drop: int = 0) -> Content:
    """``129 pages · 335 edges · 3 dead links · 0 parse errors``; problems
    coloured. An empty store before the first index of this session says
    so instead of "0 pages" (a 10,000-page vault opened for the first time
    read "0 pages · 0 edges" for seconds, as if empty). ``drop``: leave out
    the edges (1), and the pages too (2), for a narrow line."""
    if counts is None:
        return Content("reading the store…")
    if not indexed and not counts.pages and not counts.attachments:
        return Content("not indexed yet")
    edges = sum(counts.edges.values())
    dead, errors = counts.dead_links, counts.parse_errors
    parts = [("$pages", drop < 2), ("$edges", drop < 1),
             ("[$warning]$dead[/]" if dead else "$dead", True),
             ("[$error]$errors[/]" if errors else "$errors", True)]
    return Content.from_markup(
        " · ".join(markup for markup, shown in parts if shown),
        pages=counted(counts.pages, "page"),
        edges=counted(edges, "edge"),
        dead=counted(dead, "dead link"),
        errors=counted(errors, "parse error"),
    )


#: Forms of the counts, longest first (``drop`` of :func:`counts_content`).
COUNT_FORMS = (0, 1, 2)


def work_forms(work: tuple[str, int, int]) -> list[tuple[str, bool]]:
    """``(label, with bar)`` forms of the progress, longest first: the label
    and the bar; the label and a percentage; the label's first part
    (before " · ") and the percentage."""
    text, done, total = work
    pct = f" {min(100, done * 100 // total)}%" if total else ""
    head = text.split(" · ", 1)[0]
    forms = [(text, True), (text + pct, False), (head + pct, False)]
    return [f for k, f in enumerate(forms) if f not in forms[:k]]


def fit(width: int, vault: int, counts: list[int], work: list[int], model: int = 0) -> tuple[int, int, int]:
    """Which forms fit in ``width`` cells: ``(counts form, work form, vault
    cells)`` (vault cells 0: the vault is hidden). ``vault``: cells its full
    path takes; ``counts``/``work``: cells of each form, longest first
    (``work`` empty when no work runs); ``model``: cells of the model label.
    Every width includes padding. The vault's path shrinks first, then the
    work's form, then the vault goes, then the counts shorten (module doc);
    when nothing fits the shortest forms are taken."""
    works = list(enumerate(work)) or [(0, 0)]
    for c, cw in enumerate(counts):
        for keep_vault in (True, False):
            for w, ww in works:
                room = width - cw - ww - model
                if keep_vault and room >= min(vault, VAULT_MIN):
                    return c, w, min(vault, room)
                if not keep_vault and room >= 0:
                    return c, w, 0
    return len(counts) - 1, works[-1][0], 0


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
    }
    StatusBar #status-work {
        color: $accent;
        text-wrap: nowrap;
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

    _counts: GraphCounts | None = None
    _work: tuple[str, int, int] | None = None
    _model = ""
    _vault = ""

    def compose(self) -> ComposeResult:
        app = self.app
        self._vault = f"vault: {short_path(app.config.vault)}"  # type: ignore[attr-defined]
        yield Label(self._vault, id="status-vault")
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

    def on_resize(self) -> None:
        self._fit()

    def _show_counts(self, counts: GraphCounts | None) -> None:
        self._counts = counts
        self._fit()

    def _show_error(self, error: str) -> None:
        label = self.query_one("#status-error", Label)
        label.update(error)
        label.display = bool(error)
        self.query_one("#status-counts", Label).display = not error
        self._fit()

    def _show_model(self, state: tuple[str, bool] | None) -> None:
        """The embedding model, shown only while it loads or when the lexical
        fallback serves instead (see :mod:`brainwork.tui.learning`)."""
        label = self.query_one("#status-model", Label)
        text, lexical = state or ("", False)
        label.display = bool(state) and (lexical or text.startswith("loading"))
        label.set_class(lexical, "-lexical")
        label.update(text)
        self._model = text
        self._fit()

    def _show_work(self, work: tuple[str, int, int] | None) -> None:
        """``work`` is ``(label, done, total)``; ``total`` 0 means unknown."""
        self._work = work
        bar = self.query_one("#status-progress", ProgressBar)
        if work is not None:
            bar.update(total=work[2] or None, progress=work[1])
        # An index that found the vault empty leaves ``counts`` equal, so
        # its watcher does not run: the counts are redrawn here too (for
        # "not indexed yet").
        self._counts = self.app.counts  # type: ignore[attr-defined]
        self._fit()

    def _fit(self) -> None:
        """Lay the pieces out for the bar's width (:func:`fit`)."""
        vault = self.query_one("#status-vault", Label)
        counts = self.query_one("#status-counts", Label)
        model = self.query_one("#status-model", Label)
        label = self.query_one("#status-work", Label)
        bar = self.query_one("#status-progress", ProgressBar)
        indexed = getattr(self.app, "indexed", True)
        forms = [counts_content(self._counts, indexed, drop) for drop in COUNT_FORMS]
        error = self.query_one("#status-error", Label).display
        count_cells = [0] if error else [f.cell_length + PAD for f in forms]
        works = work_forms(self._work) if self._work is not None else []
        work_cells = [Content(text).cell_length + PAD + (BAR_CELLS if with_bar else 0) for text, with_bar in works]
        model_cells = 0
        if model.display:
            model_cells = min(Content(self._model).cell_length + PAD, int(self.size.width * 0.6))
        vault_cells = Content(self._vault).cell_length + PAD
        width = self.size.width or 10_000  # not laid out yet: everything fits
        c, w, room = fit(width, vault_cells, count_cells, work_cells, model_cells)
        counts.update(forms[c])
        counts.styles.min_width = count_cells[c] if not error else None
        vault.display = room > 0
        vault.styles.max_width = room if room < vault_cells else "50%"
        if works:
            text, with_bar = works[w]
            label.update(text)
            label.display = True
            bar.display = with_bar
        else:
            label.display = False
            bar.display = False
