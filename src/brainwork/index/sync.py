"""Sync a vault into its store: scan it, re-parse the files whose size,
mtime and then SHA-256 differ from the store, and write the result.

Invariants: every write of one sync into a store that has pages is one
transaction (the store is never half-written) and an unchanged vault writes
nothing. The first index of a store is written in slices, several
transactions (:mod:`brainwork.index.cold`); a marker in ``Meta`` until the
last one commits makes an interrupted one start again at the next sync. A
few changed files are written as a partial sync
(:func:`brainwork.index.incremental.apply_changes`), more by re-resolving
every link and rewriting every edge in bulk; both leave the same store.
Steps: docs/architecture.md, "Sync".
"""

from __future__ import annotations

import gc
import os
import time
from contextlib import contextmanager
from dataclasses import asdict
from typing import Callable

from brainwork.config import Config
from brainwork.index.incremental import FileChanges, apply_changes
from brainwork.index.report import SyncReport
from brainwork.index.cold import cold_index
from brainwork.index.edges import resolve_edges
from brainwork.index.rows import attachment_row, page_row
from brainwork.index.reading import file_id, read_page, same_id_error
from brainwork.index.scan import printable_name, scan_vault
from brainwork.model import Link, ParsedPage, ParseError
from brainwork.store import Store
from brainwork.store import delta, graph

#: progress(done, total, phase) — called from the syncing thread.
Progress = Callable[[int, int, str], None]

#: Parsed rows are turned into Arrow in slices of this many pages.
_SLICE = 1000


def sync(
    config: Config, store: Store, progress: Progress | None = None, force: bool = False, *, counts: bool = True,
) -> SyncReport:
    """Bring ``store`` in line with ``config.vault``; see the module doc.

    ``force`` re-parses every file (used after a schema change).
    Raises nothing for bad files: they become ``report.parse_errors``.
    ``counts`` False leaves ``edges``, ``dead_links`` and
    ``ambiguous_links`` at zero unless the sync resolved every link anyway:
    it saves the queries that count every stored edge (~0.08 s CPU at
    50,000 pages) when nobody reads them.

    Holds the store's writer lock from reading the stored state to the end of
    the write, so two syncs in one process (a workbench worker and an
    operation) cannot both insert the same new page.
    """
    with store.exclusive(), store.one_thread(), _collector_paused():
        return _sync(config, store, progress, force, counts)


@contextmanager
def _collector_paused():
    """Python's cyclic garbage collector off for the sync. A sync allocates
    a few small containers per file (the scan's and the stored state's
    tuples, rows, parsed pages) and creates no reference cycles, but those
    allocations set off full collections that walk every live object: ~0.2 s
    CPU of a 50,000-page sync that writes one page. Reference counting still
    frees everything; the collector runs again as usual afterwards."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _sync(config: Config, store: Store, progress: Progress | None, force: bool, counts: bool) -> SyncReport:
    t0 = time.perf_counter()
    report = SyncReport()
    undecodable: list[str] = []
    files = scan_vault(config.vault, config.ignore_folders, config.store, undecodable)
    signatures = delta.file_signatures(store)
    # Files skipped before parsing; a whole-file problem is put on line 1.
    scan_errors: list[ParseError] = [
        ParseError(printable_name(rel), 1, "file name is not UTF-8; skipped (rename it to index it)") for rel in undecodable
    ]
    # A store without pages, or one an interrupted cold index left half
    # written, is indexed from nothing in slices (index.cold).
    incomplete = delta.cold_index_incomplete(store)
    if incomplete or not signatures:
        report = cold_index(config, store, files, scan_errors, progress, recover=incomplete)
        report.seconds = time.perf_counter() - t0
        return report
    old_errors = graph.parse_errors(store)
    total = len(files)
    if progress:
        progress(0, total, "scanning")

    new_rows: list[dict] = []  # converted to Arrow every _SLICE rows (memory)
    page_parts: list = []
    # Up to this many changed files, the changes are written as a partial
    # sync (index.incremental.apply_changes: only the links that can have
    # changed are rewritten) and their rows kept as dicts; beyond it every
    # edge is rewritten in bulk.
    partial_max = 0 if force or not signatures else max(_SLICE, total // 5)
    # An unchanged file is one whose (path, size, mtime_ns) a stored row has
    # (a VaultFile is that tuple), and its id is that row's (no NFC of 50,000
    # paths). Looked up for every file at once, so the loop below visits only
    # the others: a loop over every file cost ~0.1 s CPU at 50,000.
    pids: list[str | None] = [None] * total if force else list(map(signatures.get, files))
    todo = [i for i, pid in enumerate(pids) if pid is None]
    for i in todo:
        rel = files[i].rel
        pids[i] = file_id(rel, files[i].is_markdown)
    seen: set[str] = set(pids)
    removed = [pid for pid in signatures.values() if pid not in seen]
    # What change detection needs of the stored rows of the others.
    state = delta.stored_files(store, [pids[i] for i in todo] + removed)
    # Two files with one id (names differing only in Unicode normalisation):
    # the first in path order is kept, so visit every file in order.
    clash = len(seen) < total
    skipped_pages = skipped_attachments = 0  # such second files: not stored, not counted
    if clash:
        unchanged = set(range(total)).difference(todo)
        todo, seen = range(total), set()
    n_new = 0
    parsed: dict[str, ParsedPage] = {}
    touched: list[tuple[str, int]] = []
    delete_ids: list[str] = []
    max_bytes = config.thresholds.max_file_bytes
    root = os.fspath(config.vault)
    tick = 0  # progress is reported at every 500th file, in path order
    for i in todo:
        while progress and tick <= i:
            progress(tick, total, "reading")
            tick += 500
        f, pid = files[i], pids[i]
        if clash:
            if pid in seen:
                scan_errors.append(same_id_error(f.rel, pid))
                if f.is_markdown:
                    skipped_pages += 1
                else:
                    skipped_attachments += 1
                continue
            seen.add(pid)
            if i in unchanged:
                continue
        old = state.get(pid)
        if not f.is_markdown:
            if old:
                delete_ids.append(pid)
                same = old.path == f.rel and old.size == f.size and old.mtime_ns == f.mtime_ns
                (report.reread if same else report.changed).append(pid)
            else:
                report.added.append(pid)
            new_rows.append(attachment_row(f.rel, f.size, f.mtime_ns))
            n_new += 1
            continue
        read = read_page(config, root, f, max_bytes)
        digest = read.digest
        if not force and old and old.path == f.rel and old.kind == "page" and old.hash == digest:
            touched.append((pid, f.mtime_ns))
            continue
        page = parsed[pid] = read.parse(f, max_bytes)
        if old:
            delete_ids.append(pid)
            same = old.path == f.rel and old.kind == "page" and old.hash == digest
            (report.reread if same else report.changed).append(pid)
        else:
            report.added.append(pid)
        new_rows.append(page_row(page))
        n_new += 1
        # The row now holds the body and fields; the page is kept only for
        # its links, names, hash and errors.
        page.body, page.fields = "", {}
        if len(new_rows) >= _SLICE and n_new > partial_max:
            page_parts.append(graph.page_table(new_rows))
            new_rows = []
    while progress and tick < total:
        progress(tick, total, "reading")
        tick += 500
    # What the store holds, as stats counts it (graph.counts): a file
    # skipped for its page id is not a page.
    markdown = sum(1 for f in files if f.is_markdown)
    report.pages = markdown - skipped_pages
    report.attachments = total - markdown - skipped_attachments
    report.removed = removed
    partial = n_new + len(removed) <= partial_max and not page_parts
    if new_rows and not partial:
        page_parts.append(graph.page_table(new_rows))
        new_rows = []
    delete_ids.extend(removed)
    if removed and report.added:
        by_hash = {state[r].hash: r for r in removed if state[r].hash}
        for pid in report.added:
            p = parsed.get(pid)
            if p is not None and p.hash in by_hash:
                report.moved.append((by_hash[p.hash], pid))

    structural = bool(n_new or removed)
    edges: dict[str, tuple] = {}
    missing: set[str] = set()
    if structural and not partial:
        full_state = graph.index_state(store)
        edges, missing = _resolve_links(seen, parsed, full_state, report, progress, total)
        del full_state
    elif not structural and counts:
        # No file's content changed, so re-resolving every link would give
        # exactly the edges the last sync stored: report those (one query
        # instead of decoding and resolving every link: the re-index of an
        # unchanged 10,000-page vault stays within 0.5 s).
        stored = graph.edge_counts(store)
        report.edges = stored.edges
        report.dead_links = stored.dead_links
        report.ambiguous_links = stored.ambiguous_links

    # Parse errors: those of unchanged pages stay, re-parsed pages bring
    # theirs, skipped files are re-checked each run. Rewritten only when the
    # set differs, so an unchanged vault writes nothing.
    want = []
    if old_errors:
        unchanged = {path for (path, _, _), pid in signatures.items() if pid in seen and pid not in parsed}
        want = [asdict(e) for e in old_errors if e.path in unchanged]
    want += [asdict(e) for p in parsed.values() for e in p.errors]
    want += [asdict(e) for e in scan_errors]
    as_key = lambda e: (e["path"], e["line"], e["message"])  # noqa: E731
    errors_changed = sorted(map(as_key, want)) != sorted(map(as_key, map(asdict, old_errors)))
    if partial and (structural or touched or errors_changed):
        if progress:
            progress(total, total, "writing")
        apply_changes(store, None, FileChanges(
            added=tuple(r for r in new_rows if r["id"] not in state),
            updated=tuple(r for r in new_rows if r["id"] in state),
            touched=tuple(touched),
            removed=tuple(removed),
            links_of={pid: p.links for pid, p in parsed.items()},
            clear_error_paths=tuple(sorted({e.path for e in old_errors})) if errors_changed else (),
            errors=tuple(want) if errors_changed else (),
        ))
        report.wrote = True
        if structural and counts:
            stored = graph.edge_counts(store)
            report.edges, report.dead_links, report.ambiguous_links = stored.edges, stored.dead_links, stored.ambiguous_links
    elif structural or touched or errors_changed:
        if progress:
            progress(total, total, "writing")
        # What the write does not need is freed before Kùzu's COPY, the peak
        # of a full index (the parsed pages' links alone: ~100 MB at 50,000
        # pages).
        parsed.clear()
        state = signatures = files = pids = seen = None  # noqa: F841
        apply_sync(
            store,
            delete_ids=delete_ids,
            pages=graph.page_table(page_parts) if page_parts else [],
            touched=touched,
            edges=edges if structural else None,
            missing=sorted(missing) if structural else None,
            clear_error_paths=sorted({e.path for e in old_errors}) if errors_changed else [],
            errors=want if errors_changed else [],
        )
        report.wrote = True
    # Nothing written: the stored errors are the ones read at the start.
    report.parse_errors = graph.parse_errors(store) if report.wrote else old_errors
    report.seconds = time.perf_counter() - t0
    return report


def _resolve_links(
    seen: set[str],
    parsed: dict[str, ParsedPage],
    state: dict[str, dict],
    report: SyncReport,
    progress: Progress | None,
    total: int,
) -> tuple[dict[str, tuple], set[str]]:
    """Resolve every page's links against the vault as it is now: the
    re-parsed pages' and the stored ones' (:func:`resolve_edges`)."""
    titles: dict[str, list[str]] = {}
    links_of: dict[str, list[Link] | str] = {}
    pages: list[str] = []
    attachments: list[str] = []
    for pid in seen:
        if pid in parsed:
            p = parsed[pid]
            pages.append(pid)
            titles[pid] = [p.title, *p.aliases]
            links_of[pid] = p.links
        elif pid in state and state[pid]["kind"] == "page":
            s = state[pid]
            pages.append(pid)
            titles[pid] = [s["title"], *(s["aliases"] or [])]
            links_of[pid] = s["links"] or ""
        else:
            attachments.append(pid)
    return resolve_edges(pages, attachments, titles, links_of, report, progress, total)


apply_sync = graph.apply_sync
