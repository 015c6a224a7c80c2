"""Check boxes whose state reads without colour.

Textual draws every check box, ticked or not, as ``▐X▌`` and tells the two
states apart by colour only, which a monochrome terminal, a screen reader's
text or a colour-blind eye does not show. These subclasses draw ``✓`` when
ticked and a blank when not (``▐✓▌`` / ``▐ ▌``); every check box of the
workbench is one of them.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.content import Content
from textual.strip import Strip
from textual.widgets import Checkbox, SelectionList
from textual.widgets._toggle_button import ToggleButton

#: The inner glyph of a ticked and of an unticked box (one cell each, as
#: Textual's ``X``, so widths and click targets stay the same).
TICKED = "✓"
UNTICKED = " "


class Check(Checkbox):
    """A :class:`~textual.widgets.Checkbox` drawn ``▐✓▌`` on, ``▐ ▌`` off."""

    @property
    def _button(self) -> Content:
        self.BUTTON_INNER = TICKED if self.value else UNTICKED
        return super()._button


class CheckList(SelectionList):
    """A :class:`~textual.widgets.SelectionList` whose rows show ``▐✓▌``
    when selected and ``▐ ▌`` when not."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        if len(segments) < 3 or segments[1].text != ToggleButton.BUTTON_INNER:
            return strip
        try:
            selection = self.get_option_at_index(self.scroll_offset.y + y)
        except Exception:  # a line below the last option
            return strip
        mark = TICKED if selection.value in self._selected else UNTICKED
        segments[1] = Segment(mark, segments[1].style)
        return Strip(segments, strip.cell_length)
