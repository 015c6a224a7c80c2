"""Helpers shared by every command: vault options, store opening, error
handling, progress bars and JSON output."""

from __future__ import annotations

import functools
import json
import os
import random
import sys
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import click

from brainwork.config import Config, load_config
from brainwork.errors import UserError


class OneLineUsageError(click.ClickException):
    """A usage mistake (bad option value, unknown command) shown as one line."""

    exit_code = 2

    def show(self, file=None) -> None:
        click.echo(f"brainwork: error: {self.format_message()}", err=True)


class BrainworkGroup(click.Group):
    """A group whose commands turn :class:`UserError` and click's usage
    errors into one line on stderr + exit 2 (issue 2: no usage dump, no
    traceback)."""

    def make_context(self, *args, **kwargs) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except click.UsageError as exc:
            raise OneLineUsageError(exc.format_message()) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:
            raise OneLineUsageError(exc.format_message()) from None
        except UserError as exc:
            click.echo(f"brainwork: error: {exc}", err=True)
            ctx.exit(2)


def vault_options(func: Callable) -> Callable:
    """Add ``--vault``/``--store`` to a command (they may also come before
    the command name) and pass a loaded :class:`Config` as ``config``."""

    @click.option("--vault", "vault_opt", type=click.Path(file_okay=False), default=None, help="Vault folder (default: $BRAINWORK_VAULT or the current directory).")
    @click.option("--store", "store_opt", type=click.Path(file_okay=False), default=None, help="Store folder (default: VAULT/.brainwork).")
    @click.pass_context
    @functools.wraps(func)
    def wrapper(ctx: click.Context, vault_opt, store_opt, **kwargs):
        obj = ctx.find_root().obj or {}
        vault = vault_opt or obj.get("vault")
        store = store_opt or obj.get("store")
        config = load_config(vault, store)
        return ctx.invoke(func, config=config, **kwargs)

    return wrapper


def store_wait_seconds() -> float:
    """``$BRAINWORK_STORE_WAIT`` (seconds) if set to a number, else
    :data:`brainwork.thresholds.STORE_BUSY_WAIT_SECONDS`."""
    from brainwork.thresholds import STORE_BUSY_WAIT_SECONDS

    raw = os.environ.get("BRAINWORK_STORE_WAIT", "").strip()
    try:
        return max(0.0, float(raw)) if raw else STORE_BUSY_WAIT_SECONDS
    except ValueError:
        raise UserError(f"BRAINWORK_STORE_WAIT must be a number of seconds, not {raw!r}") from None


def _open_waiting(config: Config):
    """Open the store, retrying while another brainwork process holds it
    (at most :func:`store_wait_seconds`; a short command such as a parallel
    ``capture`` lets go within a second). On a terminal, says that it waits.

    Raises:
        StoreBusy: still held when the wait is over (e.g. the workbench is
            open on the vault).
    """
    from brainwork.errors import StoreBusy
    from brainwork.store import Store

    deadline = time.monotonic() + store_wait_seconds()
    told = False
    while True:
        try:
            return Store(config.store)
        except StoreBusy:
            left = deadline - time.monotonic()
            if left <= 0:
                raise
            if not told and sys.stderr.isatty():
                told = True
                click.echo(
                    f"brainwork: the store is in use by another brainwork process; waiting up to {left:.0f} s…",
                    err=True,
                )
            time.sleep(min(left, 0.05 + random.random() * 0.1))


@contextmanager
def open_store(config: Config) -> Iterator:
    """Open the vault's store, waiting a little while another process holds
    it (then raises StoreBusy, a UserError), and finish any operation a crash
    interrupted (:func:`brainwork.ops.changeset.recover`; says so on stderr)."""
    from brainwork.ops.changeset import recover

    store = _open_waiting(config)
    try:
        message = recover(config, store)
        if message:
            click.echo(f"brainwork: {message}", err=True)
        yield store
    finally:
        store.close()


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


@contextmanager
def progress_bar(label: str, enabled: bool) -> Iterator[Callable[[int, int, str], None]]:
    """A Rich progress bar on a terminal (stderr), a no-op otherwise.

    Yields a ``progress(done, total, phase)`` callback.
    """
    if not enabled or not sys.stderr.isatty():
        yield lambda done, total, phase: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=Console(stderr=True), transient=True,
    ) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int, phase: str) -> None:
            bar.update(task, completed=done, total=total or None, description=f"{label}: {phase}")

        yield update
