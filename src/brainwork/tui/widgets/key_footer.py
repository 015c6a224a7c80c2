"""The key footer of every pane: Quit and Help first, whole keys only.

Textual's :class:`~textual.widgets.Footer` lists the focused widget's keys,
then the screen's, then the app's, and crops whatever does not fit at the
right edge: at 80 columns the app's ``q Quit`` and ``? Help`` were the keys
cropped away, and at 120 a key was cut in half ("^r Re-"). This footer puts
the keys of :data:`FIRST` first, keeps the rest in their order (the pane's
most used keys are declared first), and leaves out every key that would not
fit whole, so lower-priority keys are the ones that drop. Every key stays
on the help screen (``?``).
"""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

#: Actions whose keys the footer always shows first, in this order.
FIRST = ("quit", "help")


def key_width(key: FooterKey, compact: bool) -> int:
    """Cells one key takes in the footer, as Textual's footer CSS pads it
    (key ``padding: 0 1``, description ``padding: 0 1 0 0``; compact: no key
    padding, one space before the description and ``margin-right: 1``)."""
    label = cell_len(key.key_display)
    text = cell_len(key.description)
    if compact:
        return label + (1 + text if text else 0) + 1
    return label + 2 + (text + 1 if text else 0)


class KeyFooter(Footer):
    """A :class:`~textual.widgets.Footer` that orders and fits its keys (see
    the module doc)."""

    def compose(self):
        items = list(super().compose())
        palette = [w for w in items if isinstance(w, FooterKey) and w.has_class("-command-palette")]
        keys = [w for w in items if w not in palette]
        keys.sort(key=lambda w: FIRST.index(w.action) if isinstance(w, FooterKey) and w.action in FIRST else len(FIRST))
        width = self.size.width or self.app.size.width
        room = width - sum(key_width(w, self.compact) + 2 for w in palette)  # + border and right padding
        shown = []
        for w in keys:
            need = key_width(w, self.compact) if isinstance(w, FooterKey) else 0
            if need > room:
                break
            room -= need
            shown.append(w)
        yield from shown + palette

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != getattr(self, "_fitted_width", None):
            self._fitted_width = event.size.width
            self.call_after_refresh(self.recompose)
