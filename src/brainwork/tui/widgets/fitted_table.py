"""A DataTable whose flexible columns share the table's width.

Textual's DataTable columns are either fixed or as wide as their content.
Lists of corrections and rules have long titles that should take whatever
width the terminal gives (and be cut with an ellipsis, not wrapped), so
this table takes column specs — fixed widths, or weights with a minimum —
and on every resize recomputes the widths and rebuilds itself from the
rows it was last given (the row cursor stays where it was).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from textual import events
from textual.binding import Binding
from textual.widgets import DataTable

from brainwork.tui.widgets.cells import fit, shown


def _shown(cell):
    """Text cells as the terminal can draw them (see :func:`~brainwork.tui.widgets.cells.shown`)."""
    return shown(cell) if isinstance(cell, str) else cell


#: The narrowest a flexible column gets when the terminal is too narrow
#: for the minimums (two characters and "…").
NARROWEST = 3


@dataclass(frozen=True)
class ColumnSpec:
    """``width``: fixed cells; else ``weight`` shares the remaining width
    (never below ``minimum``)."""

    key: str
    label: str
    width: int | None = None
    weight: int = 1
    minimum: int = 8


def fit_widths(specs: Sequence[ColumnSpec], total: int, padding: int = 1) -> list[int]:
    """Column widths for a table ``total`` cells wide (each column also takes
    ``2 * padding`` cells of cell padding; one cell is left for the scroll bar).

    Flexible columns share what the fixed ones leave by weight, never below
    their ``minimum`` while the minimums fit; when they do not (a narrow
    terminal), they share it in proportion to their minimums (at least
    :data:`NARROWEST` cells each) so the table never runs past its right
    edge. Cells lost to rounding go to the first flexible column, so the
    columns fill the width."""
    free = total - 1 - 2 * padding * len(specs) - sum(s.width or 0 for s in specs)
    flex = [s for s in specs if s.width is None]
    if not flex:
        return [s.width or 0 for s in specs]
    minimums = sum(s.minimum for s in flex)
    if minimums > free:
        share = {s.key: max(NARROWEST, free * s.minimum // minimums) for s in flex}
    else:
        weights = sum(s.weight for s in flex) or 1
        share = {s.key: max(s.minimum, free * s.weight // weights) for s in flex}
    spare = free - sum(share.values())
    if spare > 0:
        share[flex[0].key] += spare
    return [s.width if s.width is not None else share[s.key] for s in specs]


class FittedTable(DataTable):
    """A row-cursor DataTable with :class:`ColumnSpec` columns; fill it with
    :meth:`set_rows`."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        # DataTable's own home/end scroll sideways; in a row list, as in
        # every other list of the workbench, they go to the first/last row.
        Binding("home", "scroll_top", "First", show=False),
        Binding("end", "scroll_bottom", "Last", show=False),
    ]

    def __init__(self, specs: Sequence[ColumnSpec], **kwargs) -> None:
        kwargs.setdefault("cursor_type", "row")
        kwargs.setdefault("zebra_stripes", True)
        super().__init__(**kwargs)
        self.specs = list(specs)
        self._rows: list[tuple[str, Sequence]] = []
        self._widths: list[int] = []

    def on_mount(self) -> None:
        if not self._widths:  # a resize may have come first: keep its widths
            self._build(fit_widths(self.specs, max(self.size.width, 80), self.cell_padding))
        # The size at mount can be a first guess (the first paint of the inbox
        # kept 80-column widths in a 160-column pane): fit again once laid out.
        self.call_after_refresh(self._fit)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width)

    def _fit(self, width: int | None = None) -> None:
        width = width or self.size.width
        if not width:
            return
        widths = fit_widths(self.specs, width, self.cell_padding)
        if widths != self._widths:
            self._build(widths)

    def set_rows(self, rows: Sequence[tuple[str, Sequence]], cursor_row: int = 0) -> None:
        """Replace the rows: ``(key, cells)`` each; put the cursor on ``cursor_row``."""
        self._rows = [(key, [_shown(c) for c in cells]) for key, cells in rows]
        self.clear()
        for key, cells in self._rows:
            self.add_row(*cells, key=key)
        if self._rows:
            self.move_cursor(row=min(max(cursor_row, 0), len(self._rows) - 1), animate=False)

    def _build(self, widths: list[int]) -> None:
        self._widths = widths
        row = self.cursor_row
        self.clear(columns=True)
        for spec, width in zip(self.specs, widths):
            self.add_column(fit(shown(spec.label), width), key=spec.key, width=width)
        for key, cells in self._rows:
            self.add_row(*cells, key=key)
        if self._rows:
            self.move_cursor(row=min(max(row, 0), len(self._rows) - 1), animate=False)
