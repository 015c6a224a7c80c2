"""Git commit warnings as workbench notifications.

With ``[git] commit = true`` a commit that cannot be made (detached ``HEAD``,
a merge in progress, no identity...) is a warning on the
``brainwork.ops.gitcommit`` logger, never a failed operation. The command
line prints it on stderr; while the workbench is open the person watches the
screen, so the same line becomes a notification there: for the workbench's
own operations and for agents' commands it serves alike.
"""

from __future__ import annotations

import logging

LOGGER = "brainwork.ops.gitcommit"


class GitWarnings(logging.Handler):
    """Shows each warning as a notification of ``app`` (from any thread)."""

    def __init__(self, app) -> None:
        super().__init__(logging.WARNING)
        self.app = app

    def emit(self, record: logging.LogRecord) -> None:
        message = " ".join(record.getMessage().split())
        try:
            self.app.call_from_thread(self.app.notify, message, title="git", severity="warning", timeout=10)
        except RuntimeError:  # on the app's own thread (or it is closing)
            try:
                self.app.notify(message, title="git", severity="warning", timeout=10)
            except Exception:  # noqa: BLE001 - a warning must never fail the operation that raised it
                pass


def attach(app) -> GitWarnings:
    handler = GitWarnings(app)
    logging.getLogger(LOGGER).addHandler(handler)
    return handler


def detach(handler: GitWarnings | None) -> None:
    if handler is not None:
        logging.getLogger(LOGGER).removeHandler(handler)
