"""What the terminal shows: the app's screen as text (for assertions)."""

from __future__ import annotations

import io

from rich.console import Console


def screen_text(app) -> list[str]:
    """The current screen, one string per terminal row, rendered the way
    :meth:`textual.app.App.export_screenshot` renders it (without colour)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", record=True, legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text(styles=False).splitlines()[:height]
