"""Run a command sent by another process inside the store's owner.

The owner (the workbench, ``brainwork serve``) holds the store; a command
typed elsewhere reaches it as its argv (:mod:`brainwork.service.owner`) and
runs here, on the owner's request thread, through the same click commands as
in its own process. Only the edges differ (:class:`brainwork.cli.common.Served`):
output goes to buffers, the store is the owner's (held exclusively for the
command), nothing asks the terminal.
"""

from __future__ import annotations

import traceback

import click

from brainwork.cli.common import READ_ONLY_COMMANDS, Served
from brainwork.config import Config
from brainwork.service.owner import Reply, Request


def _command_name(argv: list[str]) -> str | None:
    from brainwork.cli import FAMILIES

    names = {n for family in FAMILIES.values() for n in family}
    for arg in argv:
        if arg in names:
            return arg
    return None


def run_request(config: Config, handle, request: Request, freshness=None) -> Reply:
    """Run ``request.argv`` as ``brainwork ARGV`` against ``handle``'s store
    and return what it printed and its exit code. ``freshness``: the owner's
    :class:`~brainwork.service.freshness.Freshness` when it follows the
    vault (served commands then skip needless syncs). Never raises: a bug in a
    command becomes its traceback on the reply's stderr and exit code 1, and
    the owner keeps serving."""
    from brainwork.cli import cli

    here = Served(config=config, handle=handle, stdin=request.stdin, freshness=freshness)
    name = _command_name(request.argv)
    if name in ("open", "serve"):
        return Reply(stderr=f"brainwork: error: {name} cannot run inside the store's owner\n", exit_code=2)
    code = 0
    try:
        result = cli.main(args=list(request.argv), prog_name="brainwork", standalone_mode=False, obj={"served": here})
        code = result if isinstance(result, int) else 0
    except click.exceptions.Abort:
        here.stderr.write("Aborted!\n")
        code = 1
    except click.ClickException as exc:
        here.stderr.write(f"brainwork: error: {exc.format_message()}\n")
        code = exc.exit_code
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except Exception:  # a bug: report it, keep the owner alive
        here.stderr.write(traceback.format_exc())
        code = 1
    return Reply(stdout=here.stdout.getvalue(), stderr=here.stderr.getvalue(), exit_code=code,
                 changed=name not in READ_ONLY_COMMANDS or here.wrote)


def call(config: Config, argv: list[str], stdin: str | None = None) -> Reply:
    """Run ``brainwork ARGV`` for an adapter (the MCP server, hooks) and
    return what it printed: in the store's owner when one is alive, else in
    this process against the store opened for this one call and closed
    again (an adapter never keeps the store from the workbench or other
    agents). Waits for the store like a command does
    (``BRAINWORK_STORE_WAIT``) when another one-shot process holds it.

    ``argv`` must not contain ``--vault``/``--store``: ``config`` says which
    vault. Never raises for a failing command (see :func:`run_request`).
    """
    import random
    import time

    from brainwork.cli.common import store_wait_seconds
    from brainwork.errors import StoreBusy
    from brainwork.service import owner
    from brainwork.service.handle import StoreHandle

    request = Request(argv=list(argv), stdin=stdin)
    deadline = time.monotonic() + store_wait_seconds()
    while True:
        try:
            reply = owner.ask(config, request)
        except owner.OwnerGone as exc:
            return Reply(stderr=f"brainwork: error: {exc}\n", exit_code=2)
        if reply is not None:
            return reply
        handle = StoreHandle(config)
        try:
            handle.open()
        except StoreBusy as exc:
            if time.monotonic() >= deadline:
                return Reply(stderr=f"brainwork: error: {exc}\n", exit_code=2)
            time.sleep(0.05 + random.random() * 0.1)
            continue
        except Exception as exc:  # the store cannot be opened at all
            return Reply(stderr=f"brainwork: error: {exc}\n", exit_code=2)
        try:
            return run_request(config, handle, request)
        finally:
            handle.close()
