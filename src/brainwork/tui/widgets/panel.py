"""A bordered panel of a pane (the graph pane's list, its neighbourhood).

``z`` maximises the focused widget's panel rather than the bare widget,
so the panel keeps its border title (what is listed, how many) while it
fills the pane (Textual's ``Screen.maximize`` takes the nearest ancestor
that allows it).
"""

from __future__ import annotations

from textual.containers import Vertical


class Panel(Vertical):
    """A :class:`~textual.containers.Vertical` that can be maximised."""

    ALLOW_MAXIMIZE = True
