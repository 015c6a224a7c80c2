"""Warnings from layers below the command line, on the command's stderr.

A layer that must not fail its caller reports a problem as a warning on its
logger (:mod:`brainwork.ops.gitcommit`: a commit that did not happen). Here
each such warning becomes one line, ``brainwork: warning: ...``, on the
stderr of the command running on that thread: the process's own, or for a
command served by the store's owner the client's (through
:func:`brainwork.cli.common.echo`). With no command on the thread (the
workbench's own operations) the line goes to ``sys.stderr``, which the
workbench keeps off its screen.
"""

from __future__ import annotations

import logging
import sys

import click

#: Loggers whose warnings a person should see beside the command's output.
LOGGERS = ("brainwork.ops.gitcommit",)


class CommandStderr(logging.Handler):
    """Writes each record as one line on the running command's stderr."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = "brainwork: warning: " + " ".join(self.format(record).split())
            if click.get_current_context(silent=True) is not None:
                from brainwork.cli.common import echo

                echo(line, err=True)
            else:
                sys.stderr.write(line + "\n")
        except Exception:  # noqa: BLE001 - a warning must never fail the command that raised it
            self.handleError(record)


def install() -> None:
    """Attach :class:`CommandStderr` to :data:`LOGGERS` (idempotent)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(h, CommandStderr) for h in logger.handlers):
            logger.addHandler(CommandStderr(logging.WARNING))
        if logger.level == logging.NOTSET:
            logger.setLevel(logging.WARNING)
