"""Text as the terminal draws it: cell widths, ellipses, variation selectors.

Widths are measured in terminal cells with Rich (:func:`rich.cells.cell_len`,
which counts a wide CJK character or an emoji as 2), never with ``len()``.

Variation selectors are where terminals disagree. ``🗂️`` is U+1F5C2 (a
text-presentation symbol, 1 cell) followed by VS16 (U+FE0F, "draw as
emoji"): Rich counts the pair as 2 cells, as kitty, WezTerm and iTerm2 draw
it, while tmux 3.3 draws 1 cell (measured: the cursor advances by one). A
title measured one way and drawn the other pushes every border after it
out of line. Shown text therefore asks for the text presentation instead
(VS16 becomes VS15, U+FE0E): Rich then measures what every terminal draws
(1 cell for ``🗂︎``; 2 for an emoji that is wide on its own, such as
``📁``), and the string keeps its length, so styled spans still fit. The
workbench applies this to every text it draws (``tui/__init__.py`` adds it
to Rich's and Textual's translate tables); :func:`shown` is the same
mapping for text measured before it becomes a Rich ``Text``. The vault's
bytes are untouched.
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size

#: VS16 (emoji presentation) -> VS15 (text presentation); see the module doc.
PRESENTATION = {0xFE0F: "\ufe0e"}

ELLIPSIS = "…"


def shown(text: str) -> str:
    """``text`` as the workbench shows it (VS16 as VS15, see the module doc),
    so its width is the same in every terminal; same length as ``text``."""
    return text.translate(PRESENTATION) if "\ufe0f" in text else text


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
