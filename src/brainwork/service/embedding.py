"""The owner's embedding pass, and what a served recall does while it runs.

The store's owner (the workbench, ``brainwork serve``) embeds the pages
whose text changed in the background (:func:`embed_without_holding`): the
plan is read under a shared hold of the store, each chunk of
:data:`CHUNK` pages is encoded holding nothing and written under an
exclusive hold, so other hands wait at most one chunk's write. While a pass
over the whole vault runs it is registered here (:func:`running`), per
store, with how far it got.

A recall served by the owner must answer in the prompt hook's few seconds,
so it never embeds more than :data:`INLINE_PAGES` pages itself
(:func:`recall_gap`): with a bigger gap it answers from the vectors already
stored and ranks the tasks still without one by their words
(:class:`brainwork.learn.recall.Coverage`), and starts the owner's pass
when none runs (:func:`start_pass`). A process that exits once it has
answered (a hook running the command in itself because no owner is alive)
or that opens the store for one call only (the MCP server without an owner;
both :func:`one_shot`) starts no pass: its interpreter would be torn down while
the pass's thread is inside ONNX Runtime, which aborts the process
(``std::terminate``, exit 134) after the answer was printed. There the gap
is ranked by words and left to the owner or ``brainwork embed``. Only one
whole-vault pass runs per store: a second one asked for meanwhile follows
the running one (its progress reaches the second caller) and then plans
again, which finds nothing or only what changed since.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from brainwork.config import Config

if TYPE_CHECKING:  # the hook imports this module before it knows it needs the store
    from brainwork.learn.recall import Coverage
    from brainwork.store import Store

#: Pages encoded between two writes of a background pass (one exclusive hold
#: of the store each, ~0.1 s; the encoding itself, ~5 s CPU for 128 pages on
#: ONNX Runtime, holds nothing).
CHUNK = 128
#: Pages a served recall embeds itself before it answers (ONNX Runtime fp32
#: on one core: ~25 ms a page, so ~1 s, inside the prompt hook's 4 s); a
#: bigger gap is left to the owner's pass and ranked by words meanwhile.
INLINE_PAGES = 32

#: on_chunk(done, total, seconds): pages written of the pass's pages to
#: embed, seconds of encoding so far (model loading not counted).
OnChunk = Callable[[int, int, float], None]


@dataclass
class EmbeddingPass:
    """A whole-vault pass under way: ``pages`` looked at when it planned,
    ``todo`` the ids it embeds in order, ``done`` how many are written."""

    pages: int
    todo: list[str]
    done: int = 0
    seconds: float = 0.0
    listeners: list[OnChunk] = field(default_factory=list)
    finished: threading.Event = field(default_factory=threading.Event)

    def coverage(self) -> Coverage:
        """The pages with vectors now, and the ids still waiting (the text of
        pages changed since the pass planned is not looked at)."""
        from brainwork.learn.recall import Coverage

        return Coverage.waiting(self.pages, frozenset(self.todo[self.done :]))


_lock = threading.Lock()
_passes: dict[str, EmbeddingPass] = {}
#: True in a process that holds no store beyond a command (:func:`one_shot`).
_one_shot = False


def one_shot() -> None:
    """Mark this process as one that holds no store beyond a command: a hook
    exits once it has answered, and the MCP server opens the store for each
    call when no owner is alive and closes it after. No background pass
    starts in it (:func:`start_pass`, :func:`recall_gap`): the pass would
    lose its store at the call's end or be torn down at exit."""
    global _one_shot
    _one_shot = True


def _key(config: Config) -> str:
    return str(config.store)


def running(config: Config) -> EmbeddingPass | None:
    """The whole-vault pass running on ``config``'s store in this process, or None."""
    with _lock:
        return _passes.get(_key(config))


def _tell(p: EmbeddingPass, done: int, total: int, seconds: float) -> None:
    for fn in list(p.listeners):
        try:
            fn(done, total, seconds)
        except Exception:  # a status bar that has gone must not stop the pass
            pass


def embed_without_holding(config: Config, handle: Any, emb: Any, ids: list[str] | None = None,
                          on_chunk: OnChunk | None = None) -> int:
    """Embed the pages whose text changed (only ``ids`` when given) without
    holding ``handle``'s store while encoding (module doc). ``on_chunk(done,
    total, seconds)`` runs after each chunk, on this thread (or, while this
    call follows another pass, on that pass's thread). Returns the pages
    embedded by this call and by the pass it followed (the workbench clears
    its progress when that is not 0); the same vectors as
    :func:`brainwork.learn.embed.embed_pages`.

    ``handle`` is a :class:`~brainwork.service.handle.StoreHandle` (``use``
    and ``exclusive``). With ``ids`` None the pass is registered
    (:func:`running`) while it runs.
    """
    from brainwork.learn import embed
    from brainwork.store import vectors as vstore

    followed = 0
    if ids is None:
        while True:
            with _lock:
                other = _passes.get(_key(config))
                if other is not None and on_chunk is not None:
                    other.listeners.append(on_chunk)
            if other is None:
                break
            if on_chunk is not None:
                on_chunk(other.done, len(other.todo), other.seconds)
            other.finished.wait()
            followed += other.done
    with handle.use() as store:
        plan = embed.plan_embedding(config, store, emb, ids)
    total = len(plan.todo)
    if not total:
        if plan.gone or plan.pages:
            with handle.exclusive() as store:
                embed.finish_plan(store, plan)
        return followed
    tracked = None
    if ids is None:
        with _lock:
            if _key(config) in _passes:  # another pass started meanwhile: follow it instead
                tracked = None
            else:
                tracked = _passes[_key(config)] = EmbeddingPass(plan.pages, [t[0] for t in plan.todo])
        if tracked is None:
            return followed + embed_without_holding(config, handle, emb, None, on_chunk)
        if on_chunk is not None:
            tracked.listeners.append(on_chunk)
    report = (lambda d, t, s: _tell(tracked, d, t, s)) if tracked is not None else (on_chunk or (lambda d, t, s: None))
    try:
        report(0, total, 0.0)
        # A large pass runs on the bf16 path where the CPU has it (same
        # vectors within 1e-3, same name); loading it (~3 s) is not counted
        # in the rate the time left is estimated from.
        emb = embed.bulk_embedder(config, emb, total - len(plan.reused))
        t0 = time.monotonic()
        gone = plan.gone
        for start in range(0, total, CHUNK):
            rows = embed.encode_chunk(emb, plan, plan.todo[start : start + CHUNK])
            with handle.exclusive() as store:
                vstore.write_vectors(store, rows, gone, model=emb.name)
            gone = []
            if tracked is not None:
                tracked.done, tracked.seconds = start + len(rows), time.monotonic() - t0
            report(start + len(rows), total, time.monotonic() - t0)
        with handle.exclusive() as store:
            vstore.ensure_index(store, config.thresholds.vector_index_min_rows)
    finally:
        if tracked is not None:
            with _lock:
                _passes.pop(_key(config), None)
            tracked.finished.set()
    return followed + total


def start_pass(config: Config, handle: Any, emb: Any) -> threading.Thread | None:
    """Start a whole-vault pass on a daemon thread unless one runs or this
    process is :func:`one_shot`; returns the thread (None when none started)."""
    if _one_shot or running(config) is not None:
        return None

    def work() -> None:
        try:
            embed_without_holding(config, handle, emb)
        except Exception:  # the store closed under it (the owner stopped): the next pass redoes the rest
            pass

    thread = threading.Thread(target=work, name="brainwork-embed", daemon=True)
    thread.start()
    return thread


@dataclass(frozen=True)
class RecallGap:
    """What a served recall does about pages without current vectors:
    ``inline`` the ids it embeds itself before answering (a small gap),
    ``coverage`` what it tells the answer (None: every page has its
    vector), ``start`` True when it should start the owner's pass (never
    in a :func:`one_shot` process: the coverage then says the rest waits
    for ``brainwork embed``)."""

    inline: list[str]
    coverage: Coverage | None
    start: bool


def recall_gap(config: Config, store: Store, emb: Any) -> RecallGap:
    """Decide (module doc) from the running pass, or else from a plan of
    ``store`` (read in the caller's hold). The lexical fallback encodes a
    page in microseconds: it always embeds inline."""
    from brainwork.learn import embed
    from brainwork.learn.recall import Coverage

    p = running(config)
    if p is not None:
        return RecallGap([], p.coverage(), False)
    plan = embed.plan_embedding(config, store, emb)
    todo = [t[0] for t in plan.todo]
    if len(todo) <= INLINE_PAGES or getattr(emb, "lexical", False):
        return RecallGap(todo, None, False)
    missing = frozenset(todo)
    if _one_shot:
        return RecallGap([], Coverage(pages=plan.pages, embedded=plan.pages - len(missing), missing=missing), False)
    return RecallGap([], Coverage.waiting(plan.pages, missing), True)
