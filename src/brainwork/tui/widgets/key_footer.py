"""The key footer of every pane: Quit and Help first, whole keys only.

Textual's :class:`~textual.widgets.Footer` lists the focused widget's keys,
then the screen's, then the app's, and crops whatever does not fit at the
right edge: at 80 columns the app's ``q Quit`` and ``? Help`` were the keys
cropped away, and at 120 a key was cut in half ("^r Re-"). This footer puts
the keys of :data:`FIRST` first, keeps the rest in their order (the pane's
most used keys are declared first), and leaves out every key that would not
fit whole, so lower-priority keys are the ones that drop: greyed keys (not
available right now) drop before any key that works. Every key stays on
the help screen (``?``).
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


def _first(key) -> bool:
    return isinstance(key, FooterKey) and key.action in FIRST


def _greyed(key) -> bool:
    """A key shown disabled (its action unavailable right now)."""
    return isinstance(key, FooterKey) and key.has_class("-disabled")


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
        # Room is given by priority: Quit and Help, then the keys that work
        # now, then the greyed ones; the kept keys keep their order. So a
        # greyed key never takes the place of one that works (an active
        # rule's Retire comes after Approve, Edit, Reject and Supersede).
        priority = sorted(range(len(keys)), key=lambda i: (not _first(keys[i]), _greyed(keys[i])))
        kept: set[int] = set()
        for i in priority:
            need = key_width(keys[i], self.compact) if isinstance(keys[i], FooterKey) else 0
            if need > room:
                break
            room -= need
            kept.add(i)
        yield from [w for i, w in enumerate(keys) if i in kept] + palette

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != getattr(self, "_fitted_width", None):
            self._fitted_width = event.size.width
            self.call_after_refresh(self.recompose)
