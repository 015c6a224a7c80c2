"""What a Pilot test asserts on: what the terminal shows and what the app posts.

Everything here goes through Textual's public API (the exported screenshot,
widget queries and ``render()``, posted messages), so the tests follow what
the user sees rather than how a screen keeps its state.
"""

from __future__ import annotations

import html
import re
import time
from dataclasses import dataclass

from rich.cells import cell_len

from brainwork.tui.operations import OperationFinished

# One run of text in the SVG that App.export_screenshot writes (rich's
# Console.export_svg): x in pixels of one cell's width, clipped to its row.
_SVG_TEXT = re.compile(r'<text class="[^"]*" x="([\d.]+)" y="[\d.]+" textLength="([\d.]+)" '
                       r'clip-path="url\(#[\w-]+-line-(\d+)\)">(.*?)</text>', re.S)


def screen_text(app) -> list[str]:
    """The current screen, one string per terminal row of ``app.size[0]``
    cells (a wide character is one string character over two cells, a
    zero-width one follows the character it marks), from
    :meth:`textual.app.App.export_screenshot`. The SVG leaves out runs of
    blanks; their cells stay spaces here."""
    width, height = app.size
    rows = [[" "] * width for _ in range(height)]
    for m in _SVG_TEXT.finditer(app.export_screenshot()):
        text = html.unescape(m.group(4)).replace("\xa0", " ").rstrip("\n")  # each row ends in a newline run
        # textLength is len(text) cells wide: that gives one cell's width.
        if not text:
            continue
        cell = float(m.group(2)) / len(text)
        col, row = round(float(m.group(1)) / cell), int(m.group(3))
        for char in text:
            cells = cell_len(char)
            if not cells:  # a combining mark or variation selector: with the character before it
                if 0 < col <= width:
                    rows[row][col - 1] += char
                continue
            if col < width:
                rows[row][col] = char
                for extra in range(1, cells):  # the right half of a wide character
                    if col + extra < width:
                        rows[row][col + extra] = ""
            col += cells
    return ["".join(row) for row in rows]


def shown_text(app) -> str:
    """:func:`screen_text` as one string, rows joined by newlines."""
    return "\n".join(screen_text(app))


@dataclass(frozen=True)
class Toasted:
    """A notification as its toast shows it."""

    title: str
    message: str
    severity: str  # "information", "warning" or "error" (the toast's class)


def toasts(app) -> list[Toasted]:
    """The toasts the current screen shows, oldest first.

    Needs ``app.run_test(notifications=True)`` (otherwise screens have no
    toast rack: this raises ``NoMatches``). A toast shows its title on the
    first line and the message below; every notice of the workbench has a
    title. Toasts go away with their timeout, as the user sees them go."""
    app.screen.query_one("ToastRack")
    shown = []
    for toast in app.screen.query("Toast"):
        title, _, message = str(toast.render()).partition("\n")
        severity = next(s for s in ("information", "warning", "error") if toast.has_class(f"-{s}"))
        shown.append(Toasted(title, message, severity))
    return shown


async def toast_titled(pilot, title: str, deadline: float = 15.0) -> Toasted:
    """Let the app run until a toast titled ``title`` shows (a notice raised
    at start-up may time out before a busy machine's start-up settles)."""
    end = time.monotonic() + deadline
    while True:
        shown = [t for t in toasts(pilot.app) if t.title == title]
        if shown:
            return shown[0]
        if time.monotonic() > end:
            raise AssertionError(f"no toast {title!r} within {deadline} s")
        await pilot.pause(0.02)


def finished(messages: list, label: str) -> list[OperationFinished]:
    """The :class:`OperationFinished` messages of operation ``label``
    (``"rename"``, ``"undo"``...), oldest first."""
    return [m for m in messages if isinstance(m, OperationFinished) and m.label == label]
