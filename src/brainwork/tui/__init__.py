"""The Textual workbench (``brainwork open``): the only package importing Textual.

See :mod:`brainwork.tui.app` for the frame and :mod:`brainwork.tui.panes`
for how panes are registered.
"""


def _show_control_characters() -> None:
    """Make every text the workbench draws show control characters instead
    of sending them to the terminal.

    Rich's ``Text`` and Textual's ``Content`` already pass all text through
    one ``str.translate`` table, which only drops BEL, BS, VT, FF and CR; an
    ``ESC`` in a page title (``ESC ] 0 ; ... BEL`` sets the terminal's title)
    reached the screen raw. Extending those tables in place covers every
    widget at once: each control character becomes one visible character
    (:data:`brainwork.display.CONTROL_PICTURES`), so span offsets still fit.
    """
    import rich.control
    import textual.content

    from brainwork.display import CONTROL_PICTURES
    from brainwork.tui.widgets.cells import PRESENTATION

    for table in {id(t): t for t in (rich.control._CONTROL_STRIP_TRANSLATE, textual.content._CONTROL_STRIP_TRANSLATE)}.values():
        table.update(CONTROL_PICTURES)
        # Emoji presentation selectors as text presentation: measured as
        # every terminal draws them (see brainwork.tui.widgets.cells).
        table.update(PRESENTATION)


_show_control_characters()
