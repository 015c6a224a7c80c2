"""The workbench's learning controller: the embedding model and consolidation.

Invariants: the model (~4 s to load: the torch import) loads only in a
thread worker (group ``embedder``), when a learning pane is first shown or
consolidation asks for it, never at start-up nor on the UI thread; it
loads outside any store claim, so the other panes keep reading.
Consolidation is an ordinary vault operation (one at a time, undoable).
The walkthrough is in docs/architecture.md ("The workbench").
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable, Protocol

from textual.message import Message
from textual.screen import Screen

from brainwork.config import Config
from brainwork.store import Store
from brainwork.tui.operations import GROUP, OperationHost, OperationRunner

if TYPE_CHECKING:
    from brainwork.learn.embed import Embedder

#: Ids of the learning panes (they hear of consolidation progress).
LEARNING_PANES = ("inbox", "rules")
#: Id of the pane whose checks read the page embeddings (duplicates by meaning).
EMBEDDING_CHECKS_PANE = "findings"
#: Status-bar text while the model loads.
LOADING = "loading embedding model…"
#: Progress messages are coalesced to at most one per this many seconds.
PROGRESS_INTERVAL = 0.1


class EmbedderLoaded(Message):
    """The embedder is ready (posted to the app). ``status`` is
    :attr:`brainwork.learn.embed.Embedder.status`; ``lexical`` True when the
    lexical fallback serves; ``reason`` why (None for the real model)."""

    def __init__(self, status: str, lexical: bool, reason: str | None):
        super().__init__()
        self.status = status
        self.lexical = lexical
        self.reason = reason


class ConsolidationProgressed(Message):
    """Consolidation advanced (posted to the learning panes): ``done`` of
    ``total`` in ``phase`` (``embedding``, ``clustering``, ``drafting``,
    ``writing``; ``""`` when it ended)."""

    def __init__(self, done: int, total: int, phase: str):
        super().__init__()
        self.done = done
        self.total = total
        self.phase = phase


class LearningHost(OperationHost, Protocol):
    """What the learning controller uses of the app beyond the runner's
    needs: the status bar's ``embedder`` (None, or ``(text, lexical)``)
    and the panes."""

    embedder: tuple[str, bool] | None

    @property
    def current_mode(self) -> str: ...

    def pane_screen(self, pane_id: str) -> Screen | None: ...

    def switch_pane(self, pane_id: str) -> None: ...


def loaded_embedder(config: Config) -> "Embedder | None":
    """:func:`brainwork.learn.embed.loaded_embedder`, imported when first
    needed: the embedding module brings numpy, which the first paint does
    not need."""
    from brainwork.learn.embed import loaded_embedder as loaded

    return loaded(config)


def describe_report(report: Any) -> str:
    """One line for the notification after a consolidation pass."""
    n = len(report.clusters)
    made = report.candidates_created
    text = (
        f"Read {report.read} unresolved correction{'s' if report.read != 1 else ''} ({report.new} new): "
        f"{n} cluster{'s' if n != 1 else ''}, {made} new candidate rule{'s' if made != 1 else ''}"
    )
    if report.suppressed:
        text += f", {len(report.suppressed)} not proposed again (rejected before)"
    return text + (".  (u undoes)" if report.operation is not None else ".")


class LearningController:
    """The embedding model and consolidation of one app (``app.learning``)."""

    def __init__(self, app: LearningHost, operations: OperationRunner) -> None:
        self.app = app
        self.operations = operations
        #: Run on the UI thread once the model is ready.
        self._waiting: list[Callable[[], None]] = []
        #: The lexical fallback was announced (once per session).
        self._notified = False

    # -- the model -----------------------------------------------------------------
    def load_embedder(self) -> "Embedder":
        """Get the embedder (loading it on this worker thread if needed) and tell
        the app. Call from a thread worker only."""
        from brainwork.learn.embed import get_embedder

        app = self.app
        already = loaded_embedder(app.config)
        emb = already or get_embedder(app.config)
        if already is None or app.embedder is None or app.embedder[0] == LOADING:
            app.post_message(EmbedderLoaded(emb.status, emb.lexical, emb.reason))
        return emb

    def ensure_embedder(self, then: Callable[[], None] | None = None) -> None:
        """Make the embedder ready without blocking: if it is loaded, run ``then``
        now; else start the ``embedder`` worker (once) and run ``then`` on the UI
        thread when it is ready."""
        app = self.app
        emb = loaded_embedder(app.config)
        if emb is not None:
            if app.embedder is None or app.embedder[0] == LOADING:
                self._set_status(emb.status, emb.lexical, emb.reason)
            if then is not None:
                then()
            return
        if then is not None:
            self._waiting.append(then)
        if any(w.group == "embedder" and not w.is_finished for w in app.workers):
            return
        app.embedder = (LOADING, False)
        app.run_worker(self.load_embedder, name="load embedding model", group="embedder", thread=True,
                       exit_on_error=False)

    def embedder_loaded(self, message: EmbedderLoaded) -> None:
        """The app's answer to :class:`EmbedderLoaded`: show the model in the
        status bar and run whatever waited for it."""
        self._set_status(message.status, message.lexical, message.reason)
        waiting, self._waiting = self._waiting, []
        for fn in waiting:
            fn()

    def _set_status(self, status: str, lexical: bool, reason: str | None) -> None:
        self.app.embedder = (status, lexical)
        if lexical and not self._notified:
            self._notified = True
            self.app.notify(
                f"The embedding model is not in use: {reason or 'lexical embeddings were asked for'}. "
                "Similarities (clusters, rule effects, recall) come from word overlap instead of meaning.",
                title="Lexical embeddings",
                severity="warning",
                timeout=20,
            )

    # -- consolidation -------------------------------------------------------------
    def is_consolidating(self) -> bool:
        """True while a consolidation waits for the model or runs."""
        return any(
            w.group == GROUP and w.name == "consolidate" and not w.is_finished for w in self.app.workers
        ) or any(getattr(fn, "consolidation", False) for fn in self._waiting)

    def _tell_panes(self, done: int, total: int, phase: str) -> None:
        for pane_id in LEARNING_PANES:
            screen = self.app.pane_screen(pane_id)
            if screen is not None:
                screen.post_message(ConsolidationProgressed(done, total, phase))

    def consolidate(self) -> None:
        """Run a consolidation pass (key ``c`` on the learning panes): the model
        is made ready first, then the pass runs as a vault operation; a second
        request while one runs is refused with a notification."""
        app = self.app
        if self.is_consolidating() or self.operations.is_running():
            app.notify("A consolidation or another operation is still running.", title="Consolidate",
                       severity="warning")
            return
        if not app.store.is_open:
            app.notify("The store is not open yet.", title="Consolidate", severity="warning")
            return

        def start() -> None:
            self._run_consolidation()

        start.consolidation = True  # type: ignore[attr-defined]
        self._tell_panes(0, 0, "loading the model" if loaded_embedder(app.config) is None else "starting")
        self.ensure_embedder(then=start)

    def _run_consolidation(self) -> None:
        from brainwork.learn.consolidate import consolidate as run_pass

        app = self.app

        def fn(config: Config, store: Store):
            last = [0.0]

            def progress(done: int, total: int, phase: str) -> None:
                now = time.monotonic()
                if now - last[0] < PROGRESS_INTERVAL and done != total:
                    return
                last[0] = now
                # Synchronous, so it cannot land after the operation's end clears the bar.
                app.call_from_thread(setattr, app, "background", ("consolidate…", done, total))
                self._tell_panes(done, total, phase)

            try:
                return run_pass(config, store, progress=progress)
            finally:
                # Posted before the operation's end: the panes drop their phase line.
                self._tell_panes(0, 0, "")

        if self.operations.run("consolidate", fn, message=describe_report) is None:
            self._tell_panes(0, 0, "")

    def consolidate_command(self) -> None:
        """The palette's ``learn: consolidate``: shows the Rules pane unless a
        learning pane is showing, then consolidates."""
        if self.app.current_mode not in LEARNING_PANES:
            self.app.switch_pane("rules")
        self.consolidate()

    # -- warm-up -------------------------------------------------------------------
    def warm_up(self) -> None:
        """After the first sync: load the model and embed the pages whose text
        changed, in a worker, so that agents' recall through the workbench
        answers at once (the workbench is the store's owner while it is open).

        The pages to embed are read once (a shared hold of the store); each
        chunk of :data:`brainwork.service.embedding.CHUNK` is encoded holding nothing (ONNX Runtime,
        or torch on the bf16 path of a large pass, releases the GIL and uses
        one core, so the UI keeps the other) and then
        written under an exclusive hold. The status bar shows pages done of
        pages to embed and the time left at the rate so far."""
        app = self.app

        def work() -> None:
            from brainwork.learn import embed

            emb = self.load_embedder()
            if emb.lexical:
                return

            def shown(done: int, total: int, seconds: float) -> None:
                left = embed.format_left(embed.time_left(done, total, seconds))
                label = f"embedding · {left}" if left and done < total else "embedding"
                app.call_from_thread(setattr, app, "background", (label, done, total))

            if self.embed_without_holding(emb, on_chunk=shown):
                app.call_from_thread(setattr, app, "background", None)
                app.call_from_thread(self._embeddings_changed)

        app.run_worker(work, name="warm up", group="warm-up", thread=True, exclusive=True, exit_on_error=False)

    def _embeddings_changed(self) -> None:
        """After a pass embedded pages: the Findings pane checks again (in
        its worker), since the duplicate check weighs meaning only for pages
        with an embedding; its list from before the pass told pairs apart by
        their words alone, not what ``brainwork check`` now says."""
        screen = self.app.pane_screen(EMBEDDING_CHECKS_PANE)
        if screen is not None:
            screen.on_vault_changed()

    def embed_without_holding(
        self, emb: Any, ids: list[str] | None = None, on_chunk: Callable[[int, int, float], None] | None = None
    ) -> int:
        """Embed the pages whose text changed (only ``ids`` when given) so
        that other hands wait at most one chunk's write
        (:func:`brainwork.service.embedding.embed_without_holding`, where a
        served recall sees the pass). ``on_chunk(done, total, seconds)`` runs
        after each chunk (in the worker). Returns the pages embedded."""
        from brainwork.service import embedding

        return embedding.embed_without_holding(self.app.config, self.app.store, emb, ids, on_chunk)


class ReloadWhenShown:
    """Mixin for the learning panes, whose reads are costly (effects,
    embeddings): a pane out of sight re-reads when it is shown again, not
    after every operation done elsewhere. The pane provides ``load()``."""

    _stale = False

    def on_vault_changed(self) -> None:
        if self.is_current:
            self.load()
        else:
            self._stale = True

    def on_screen_resume(self) -> None:
        if self._stale:
            self._stale = False
            self.load()


class ConsolidationPhase:
    """Mixin for the learning panes: ``_phase`` is the line saying what a
    running consolidation is doing ('' when none runs). The pane calls
    ``self.watch(self.app, "background", self._background_changed)`` and
    provides ``_phase_changed()`` to redraw where it shows the line."""

    _phase = ""

    def on_consolidation_progressed(self, message: ConsolidationProgressed) -> None:
        if not message.phase:
            self._phase = ""
        elif message.total:
            self._phase = f"consolidating: {message.phase} {message.done}/{message.total}"
        else:
            self._phase = f"consolidating: {message.phase}…"
        self._phase_changed()

    def _background_changed(self, background: tuple[str, int, int] | None) -> None:
        # The operation ended without a last progress message (error, cancel).
        if (self._phase and not self.app.learning.is_consolidating()
                and (background is None or background[0] != "consolidate…")):
            self._phase = ""
            self._phase_changed()

    def _phase_changed(self) -> None:  # pragma: no cover - every pane overrides it
        raise NotImplementedError
