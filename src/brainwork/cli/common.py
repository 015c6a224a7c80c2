"""Helpers shared by every command: vault options, store opening, error
handling, progress bars and JSON output."""

from __future__ import annotations

import functools
import io
import json
import os
import random
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import click

from brainwork.config import Config, load_config
from brainwork.errors import UserError


def not_utf8(text: str) -> str | None:
    """Where ``text`` is not UTF-8, or None. Python decodes the command line
    with ``surrogateescape``: a byte that is no UTF-8 arrives as a lone
    surrogate, which no page, JSON request or YAML writer can encode, so it
    is refused here with its byte and position instead of a traceback
    deep in a writer."""
    for index, char in enumerate(text):
        if "\udc80" <= char <= "\udcff":
            return f"byte 0x{ord(char) - 0xDC00:02x} at character {index + 1}"
        if "\ud800" <= char <= "\udfff":
            return f"lone surrogate U+{ord(char):04X} at character {index + 1}"
    return None


class OneLineUsageError(click.ClickException):
    """A usage mistake (bad option value, unknown command) shown as one line."""

    exit_code = 2

    def show(self, file=None) -> None:
        click.echo(f"brainwork: error: {self.format_message()}", err=True)


class BrainworkGroup(click.Group):
    """A group whose commands turn :class:`UserError` and click's usage
    errors into one line on stderr + exit 2 (a user error is no bug: no
    usage dump, no traceback)."""

    def make_context(self, *args, **kwargs) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except click.UsageError as exc:
            raise OneLineUsageError(exc.format_message()) from None

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        for position, arg in enumerate(args, 1):
            problem = not_utf8(arg)
            if problem:
                raise click.UsageError(f"argument {position} is not UTF-8 text ({problem}): "
                                       f"{arg.encode('utf-8', 'surrogateescape')!r}; nothing was run")
        # Kept whole so that a command can be sent, as typed, to the store's owner.
        ctx.meta.setdefault("brainwork.argv", list(args))
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:
            raise OneLineUsageError(exc.format_message()) from None
        except UserError as exc:
            echo(f"brainwork: error: {exc}", err=True)
            ctx.exit(2)


# -- where a command runs -------------------------------------------------------
#: Commands that never go to the store's owner: the workbench and the daemon
#: are owners themselves; capture writes one page file and needs no store.
LOCAL_COMMANDS = frozenset({"open", "serve", "capture"})
#: Seconds a served command waits at most for the owner's own work on the
#: store (a sync after a burst of changes, a consolidation the person started)
#: before it says the store is busy. ``BRAINWORK_STORE_WAIT`` is about other
#: processes and only raises this.
SERVED_STORE_WAIT = 120.0
#: Commands that only read: the owner's views need no refresh after them.
READ_ONLY_COMMANDS = frozenset({"doctrine", "recall", "check", "show", "rules", "log", "stats", "replay", "embed", "index", "search", "doctor"})
#: Options that keep a command out of the owner: ``index --rebuild`` replaces
#: the store's files, which only a process that has not opened them may do.
LOCAL_OPTIONS: dict[str, tuple[str, ...]] = {"index": ("rebuild",)}


@dataclass
class Served:
    """How a command runs inside the store's owner (see
    :mod:`brainwork.service.owner`): the owner's config and store handle,
    and the buffers that stand for the client's stdout, stderr and stdin."""

    config: Config
    handle: Any  # brainwork.service.handle.StoreHandle
    stdout: io.StringIO = field(default_factory=io.StringIO)
    stderr: io.StringIO = field(default_factory=io.StringIO)
    stdin: str | None = None
    #: The owner's :class:`~brainwork.service.freshness.Freshness`, when it
    #: follows the vault (then :func:`synced` may skip the sync).
    freshness: Any = None
    #: Set when the command's store opening or sync wrote to the store (a
    #: page captured a moment ago, indexed and logged on the way): the
    #: owner's views then refresh after a read-only command too.
    wrote: bool = False


def served() -> Served | None:
    """The :class:`Served` of the command running on this thread, or None
    when it runs in its own process."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return None
    obj = ctx.find_root().obj
    return obj.get("served") if isinstance(obj, dict) else None


def echo(message: Any = None, *, err: bool = False, nl: bool = True, raw: bool = False) -> None:
    """``click.echo`` to the client's stdout/stderr: the process's own, or
    the owner's buffers for a served command. Every command prints through
    this. Text has its control characters shown as escapes
    (:func:`brainwork.display.printable`: vault text may hold terminal
    sequences); ``raw`` is for output already made safe (JSON)."""
    if isinstance(message, str) and not raw:
        from brainwork.display import printable

        message = printable(message)
    here = served()
    if here is None:
        click.echo(message, err=err, nl=nl)
    else:
        click.echo(message, file=here.stderr if err else here.stdout, nl=nl)


def interactive() -> bool:
    """True when a person watches stderr (progress bars, hints): never for a
    served command, whose terminal is not the owner's."""
    return served() is None and sys.stderr.isatty()


def confirm(question: str) -> bool:
    """Ask yes/no on the terminal. A served command cannot ask (the owner's
    terminal is not the user's): it is answered from the client's stdin, and
    without one it aborts (``click.Abort``)."""
    here = served()
    if here is None:
        return click.confirm(question, default=False, err=True)
    answer = (here.stdin or "").strip().lower()
    if not answer:
        raise click.Abort()
    return answer in ("y", "yes")


def _is_local(ctx: click.Context) -> bool:
    names = {c.command.name for c in _chain(ctx)}
    return bool(names & LOCAL_COMMANDS)


def _chain(ctx: click.Context | None) -> Iterator[click.Context]:
    while ctx is not None:
        yield ctx
        ctx = ctx.parent


def _forward(ctx: click.Context, config: Config) -> None:
    """Run this command in the store's owner when one is alive, print what
    it printed and exit with its code; return when there is no owner (the
    command then opens the store itself).

    A command that cannot wait for the store (another one-shot command holds
    it) tries the owner again on each retry (:func:`_open_waiting`)."""
    from brainwork.service import owner

    argv = ctx.meta.get("brainwork.argv")
    if argv is None:
        return
    stdin = None
    if not sys.stdin.isatty() and ctx.command.name == "merge":
        if owner.status(config) is None:
            return  # no live owner (a dead one leaves its socket file): merge asks here, its answer still unread
        stdin = sys.stdin.readline()  # the answer to merge's question
    reply = owner.ask(config, owner.Request(argv=list(argv), stdin=stdin))
    if reply is None:
        return
    sys.stdout.write(reply.stdout)
    sys.stdout.flush()
    sys.stderr.write(reply.stderr)
    sys.stderr.flush()
    ctx.exit(reply.exit_code)


def vault_options(func: Callable) -> Callable:
    """Add ``--vault``/``--store`` to a command (they may also come before
    the command name) and pass a loaded :class:`Config` as ``config``.

    While another process owns the store (the workbench, ``brainwork
    serve``), the command is sent to it and runs there (see
    :mod:`brainwork.service.owner`), except :data:`LOCAL_COMMANDS`."""

    @click.option("--vault", "vault_opt", type=click.Path(file_okay=False), default=None, help="Vault folder (default: $BRAINWORK_VAULT or the current directory).")
    @click.option("--store", "store_opt", type=click.Path(file_okay=False), default=None, help="Store folder (default: VAULT/.brainwork).")
    @click.pass_context
    @functools.wraps(func)
    def wrapper(ctx: click.Context, vault_opt, store_opt, **kwargs):
        here = served()
        if here is not None:
            return ctx.invoke(func, config=here.config, **kwargs)
        obj = ctx.find_root().obj or {}
        vault = vault_opt or obj.get("vault")
        store = store_opt or obj.get("store")
        config = load_config(vault, store)
        if not _is_local(ctx) and not any(kwargs.get(o) for o in LOCAL_OPTIONS.get(ctx.command.name, ())):
            _forward(ctx, config)
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


def _open_waiting(config: Config, wait: float | None = None):
    """Open the store, retrying while another one-shot brainwork process
    holds it (at most :func:`store_wait_seconds`; a short command lets go
    within a second). Each retry first asks whether an owner has come up
    meanwhile (the workbench starting): then the command runs there.

    Raises:
        StoreBusy: still held when the wait is over.
    """
    from brainwork.errors import StoreBusy
    from brainwork.store import Store

    deadline = time.monotonic() + (store_wait_seconds() if wait is None else wait)
    told = False
    ctx = click.get_current_context(silent=True)
    while True:
        try:
            return Store(config.store)
        except StoreBusy:
            if ctx is not None and not _is_local(ctx):
                _forward(ctx, config)
            left = deadline - time.monotonic()
            if left <= 0:
                raise
            if not told and interactive():
                told = True
                echo(f"brainwork: the store is in use by another brainwork process; waiting up to {left:.0f} s…", err=True)
            time.sleep(min(left, 0.05 + random.random() * 0.1))


def _captures_pending(config: Config) -> bool:
    """True when pages captured without the store wait to be indexed and
    logged (:func:`brainwork.ops.recovery.adopt_created`)."""
    from brainwork.ops.journal import CREATED_DIR

    try:
        with os.scandir(config.store / CREATED_DIR) as it:
            return any(e.name.endswith(".bin") and not e.name.startswith(".") for e in it)
    except FileNotFoundError:
        return False


def require_vault(config: Config) -> None:
    """Refuse to make a store in a folder that is not a vault: no store yet
    at the default place (``VAULT/.brainwork``) and not one Markdown page
    (hidden folders skipped; the walk stops at the first page). Opening the
    store would create ``.brainwork/`` there, and an agent's hook would get
    an empty doctrine instead of an error. An explicit ``--store`` is taken
    as meant.

    Raises:
        UserError: the folder is not a vault (one line; exit 2).
    """
    from brainwork.config import STORE_DIR

    if config.store != config.vault / STORE_DIR or config.store.exists():
        return
    for _folder, dirs, files in os.walk(config.vault):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        if any(f.lower().endswith(".md") and not f.startswith(".") for f in files):
            return
    raise UserError(
        f"{config.vault} is not a vault (no Markdown pages, no {STORE_DIR}/); "
        "run brainwork in the vault's folder or pass --vault"
    )


@contextmanager
def open_store(config: Config, wait: float | None = None) -> Iterator:
    """The vault's store for one command.

    In the owner's process (a served command) this is the owner's open store,
    held exclusively for the command. Otherwise the store is opened here,
    waiting a little while another one-shot process holds it (then raises
    StoreBusy, a UserError). Either way any operation a crash interrupted is
    finished first, and pages captured since are recorded in the undo log
    (:func:`brainwork.ops.recovery.recover`; says so on stderr).

    ``wait``: seconds to wait for the store at most (default
    :func:`store_wait_seconds`); a command with an answer that needs no store
    (doctrine, from the vault's rule pages) passes a short one and catches
    StoreBusy."""
    from brainwork.ops.recovery import recover

    here = served()
    if here is not None:
        with here.handle.exclusive(max(store_wait_seconds(), SERVED_STORE_WAIT) if wait is None else wait) as store:
            pending = _captures_pending(config)
            message = recover(config, store)
            if message:
                echo(f"brainwork: {message}", err=True)
            if pending or message:
                here.wrote = True  # captured pages were indexed and logged: the owner's views refresh
            yield store
        return
    require_vault(config)
    store = _open_waiting(config, wait)
    try:
        message = recover(config, store)
        if message:
            echo(f"brainwork: {message}", err=True)
        yield store
    finally:
        store.close()


def synced(config: Config, store) -> None:
    """Bring the store up to date with the vault before a command reads it.

    Inside an owner that follows the vault the sync is skipped when it would
    find nothing (:meth:`brainwork.service.freshness.Freshness.is_fresh`)."""
    from brainwork.index.sync import sync

    here = served()
    fresh = here.freshness if here is not None else None
    if fresh is None:
        report = sync(config, store, counts=False)  # nobody reads the edge counts here
    elif fresh.is_fresh(config):
        return
    else:
        generation = fresh.begin()
        report = sync(config, store, counts=False)
        fresh.synced(generation)
    if here is not None and report.wrote:
        here.wrote = True


def echo_json(data: Any) -> None:
    from brainwork.display import json_safe

    echo(json_safe(json.dumps(data, indent=2, ensure_ascii=False, default=str)), raw=True)


@contextmanager
def progress_bar(label: str, enabled: bool) -> Iterator[Callable[[int, int, str], None]]:
    """A Rich progress bar on a terminal (stderr), a no-op otherwise.

    Yields a ``progress(done, total, phase)`` callback.
    """
    if not enabled or not interactive():
        yield lambda done, total, phase: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    # Time left from the recent rate (Rich averages the last 30 s): embedding
    # a large vault takes minutes, and the user should know how many.
    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        TextColumn("·"), TimeRemainingColumn(compact=True), TextColumn("left"),
        console=Console(stderr=True), transient=True,
    ) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int, phase: str) -> None:
            bar.update(task, completed=done, total=total or None, description=f"{label}: {phase}")

        yield update
