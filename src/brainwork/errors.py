"""Exceptions shared across layers.

``UserError`` and its subclasses are mistakes a person can fix (a bad path, a
busy store); the command line prints them as one line and exits 2. Anything
else is a bug and keeps its traceback.
"""

from __future__ import annotations


class UserError(Exception):
    """A problem the user can fix; shown as one line, exit code 2."""


class StoreBusy(UserError):
    """Another process holds the store's lock."""


class UnsafePath(UserError):
    """A path or name would lead outside the vault or is not allowed."""


class PageNotFound(UserError):
    """No page matches the given name."""


class SteppedPast(UserError):
    """An undo met an operation that cannot be undone (a merge) and stepped
    past it: no file changed, but the undo log did (the next undo reverts
    the operation before it)."""
