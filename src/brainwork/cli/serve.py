"""``brainwork serve``: own the store while no workbench is open.

The daemon opens the store, keeps it in sync with the vault, keeps the
embedding model loaded, and answers every other brainwork command on the
store's socket (:mod:`brainwork.service.owner`), so agents and cron never
wait for the store and recall answers warm. It stops on SIGTERM or ctrl+c;
a SIGKILL leaves nothing to clean up but a socket file nobody listens on,
which the next owner replaces.
"""

from __future__ import annotations

import signal
import threading
from functools import partial

import click

from brainwork.cli.common import echo, vault_options
from brainwork.config import Config
from brainwork.errors import StoreBusy, UserError


def _follow(config: Config, handle, stop: threading.Event, freshness):
    """Follow the vault: each burst of file changes (the watcher's batch)
    wakes one sync thread, so a burst arriving during a sync becomes one more
    sync, not one per batch. Returns the watcher."""
    from brainwork.index.sync import sync
    from brainwork.index.watch import VaultWatcher
    from brainwork.ops.recovery import recover

    dirty = threading.Event()

    def syncer() -> None:
        while not stop.is_set():
            if not dirty.wait(0.5):
                continue
            dirty.clear()
            try:
                generation = freshness.begin()
                with handle.exclusive() as store:
                    sync(config, store)
                    recover(config, store)  # captured pages join the undo log
                freshness.synced(generation)
            except UserError as exc:
                echo(f"brainwork serve: sync failed: {exc}", err=True)

    threading.Thread(target=syncer, name="brainwork-sync", daemon=True).start()
    def on_batch(paths) -> None:
        freshness.changed()
        dirty.set()

    def on_error(exc: BaseException) -> None:
        echo(f"brainwork serve: watching stopped ({exc}); every command syncs first", err=True)

    def on_warning(exc: BaseException) -> None:
        echo(f"brainwork serve: {exc}; still following the vault, by polling until it is renamed or removed", err=True)

    watcher = VaultWatcher(config, on_batch, on_error=on_error, on_warning=on_warning)
    watcher.start()
    watcher.ready.wait(5.0)
    freshness.following = lambda: watcher.is_running and watcher.ready.is_set()
    return watcher


#: Seconds ``serve`` leaves the store alone after handing it to the workbench,
#: so the workbench has time to open it (it does within a second or two).
YIELD_GRACE_SECONDS = 15.0
#: How often a yielded ``serve`` checks whether the store is free again.
RECLAIM_POLL_SECONDS = 1.0


def _own(config: Config, no_model: bool, quit_: threading.Event) -> bool:
    """Hold the store until ``quit_`` is set (returns False) or the workbench
    asks for it (returns True: the store has been let go).

    Raises:
        StoreBusy: another process holds the store.
    """
    from brainwork.cli.served import run_request
    from brainwork.index.sync import sync
    from brainwork.ops.recovery import recover
    from brainwork.service import owner
    from brainwork.service.freshness import Freshness
    from brainwork.service.handle import StoreHandle

    handle = StoreHandle(config)
    handle.open()
    done = threading.Event()  # this session's end: quit, or yielded
    yielded = threading.Event()

    def give_way() -> None:
        yielded.set()
        done.set()

    server = watcher = None
    try:
        freshness = Freshness()
        watcher = _follow(config, handle, done, freshness)  # before the first sync: nothing slips between
        generation = freshness.begin()
        with handle.exclusive() as store:
            message = recover(config, store)
            if message:
                echo(f"brainwork: {message}", err=True)
            report = sync(config, store)
        freshness.synced(generation)
        server = owner.OwnerServer(config, partial(run_request, config, handle, freshness=freshness), kind="serve",
                                   on_yield=give_way)
        server.start()
        if not no_model:
            from brainwork.learn.embed import get_embedder

            threading.Thread(target=get_embedder, args=(config,), name="load-model", daemon=True).start()
        echo(f"brainwork serve: {config.vault} ({report.pages} pages) on {server.path}; ctrl+c stops", err=True)
        while not done.wait(0.5):
            if quit_.is_set():
                done.set()
    finally:
        done.set()
        if watcher is not None:
            watcher.stop()
        if server is not None:
            server.stop()
        handle.close()
    return yielded.is_set() and not quit_.is_set()


@click.command("serve")
@click.option("--no-model", is_flag=True, help="Do not load the embedding model ahead of the first recall.")
@vault_options
def serve_cmd(config: Config, no_model: bool) -> None:
    """Hold the vault's store and answer other brainwork commands on a local socket.

    Run it (or keep the workbench open) so that agents' commands answer at
    once: doctrine, recall with the model already loaded, check, show, rules,
    log. When the workbench opens the vault, serve hands it the store and
    takes it back once the workbench closes. Stops on ctrl+c or SIGTERM.
    """
    import time

    from brainwork.service import owner

    if owner.status(config) is not None:
        raise UserError(f"{owner.describe(config)} already serves {config.vault}")
    quit_ = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: quit_.set())
    first = True
    while not quit_.is_set():
        try:
            handed_over = _own(config, no_model, quit_)
        except StoreBusy:
            if first:
                raise UserError(f"the store {config.store} is held by another brainwork process; stop it first") from None
            handed_over = True  # the workbench still has it
        first = False
        if not handed_over:
            break
        echo("brainwork serve: the workbench has the store; taking it back when it closes", err=True)
        quit_.wait(YIELD_GRACE_SECONDS)
        while not quit_.is_set() and owner.status(config) is not None:
            quit_.wait(RECLAIM_POLL_SECONDS)
        if not quit_.is_set():
            time.sleep(RECLAIM_POLL_SECONDS)
    echo("brainwork serve: stopped", err=True)


COMMANDS = [serve_cmd]
