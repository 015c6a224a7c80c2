"""The Textual workbench (``brainwork open``): the only package importing Textual.

See :mod:`brainwork.tui.app` for the frame and :mod:`brainwork.tui.panes`
for how panes are registered.
"""
