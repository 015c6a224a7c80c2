"""Text as the terminal draws it: cell widths, ellipses, variation selectors.

Widths are measured in terminal cells with Rich (:func:`rich.cells.cell_len`,
which counts a wide CJK character or an emoji as 2), never with ``len()``.

Variation selectors are where terminals disagree. ``🗂️`` is U+1F5C2 (a
text-presentation symbol, 1 cell) followed by VS16 (U+FE0F, "draw as
emoji"): Rich counts the pair as 2 cells, as kitty, WezTerm and iTerm2 draw
it, while tmux 3.3 draws 1 cell (measured: the cursor advances by one). A
title measured one way and drawn the other pushes every border after it
out of line. Shown text therefore drops the selectors (U+FE0E, U+FE0F):
the base character alone is 1 cell everywhere, so the measurement and the
drawing agree in every terminal; the vault's bytes are untouched.
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size

#: Emoji / text presentation selectors (VS16, VS15).
_SELECTORS = dict.fromkeys(map(ord, "\ufe0f\ufe0e"))

ELLIPSIS = "…"


def shown(text: str) -> str:
    """``text`` as the workbench shows it: variation selectors dropped (see
    the module doc), so its width is the same in every terminal."""
    return text.translate(_SELECTORS) if ("\ufe0f" in text or "\ufe0e" in text) else text


def fit(text: str, width: int, pad: bool = False) -> str:
    """``text`` cut to ``width`` cells, ending in "…" when cut (a wide
    character that would straddle the edge is dropped, not halved);
    ``pad`` fills up to ``width`` with spaces."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return text + " " * (width - cell_len(text)) if pad else text
    cut = set_cell_size(text, width - 1).rstrip("\x00")
    # set_cell_size pads a halved wide character with a space: keep the cut exact.
    out = cut + ELLIPSIS
    if pad:
        out += " " * (width - cell_len(out))
    return out
