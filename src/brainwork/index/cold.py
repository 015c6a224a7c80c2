"""The cold index: every file of the vault into a store that holds no page
yet, written in several transactions so that no step holds the whole vault.

Kùzu keeps a transaction's uncommitted COPY rows in memory (~7 kB a page:
+330 MB for one 50,000-page transaction), so the pages are parsed and
written :data:`SLICE_PAGES` at a time (two transactions: ``Page``, then
``PageBody``) and dropped;
what link resolution needs of every page (ids, names, the links JSON) is
kept, and the edges follow in slices of :data:`SLICE_EDGES` rows. The store
ends with exactly the rows the one-transaction full sync writes.

Crash safety: the first transaction sets
:data:`brainwork.store.schema.COLD_INDEX_KEY` in ``Meta`` and the last one
deletes it, with the parse errors. A store killed in between keeps the
marker; the next sync (:func:`brainwork.index.sync.sync`) sees it, empties
the derived tables and runs the cold index again. Figures:
docs/performance.md, "cold index".
"""

from __future__ import annotations

import os
import signal
from dataclasses import asdict
from typing import Callable

from brainwork.config import Config
from brainwork.index.edges import resolve_edges
from brainwork.index.report import SyncReport
from brainwork.index.rows import attachment_row, page_row
from brainwork.index.reading import file_id, read_page, same_id_error
from brainwork.index.scan import VaultFile
from brainwork.model import ParseError
from brainwork.store import Store, delta, graph

#: Pages per write transaction. Each COMMIT after a COPY checkpoints the
#: table (its cost grows with what the table holds), so smaller slices cost
#: more CPU and store file for little less memory. At 50,000 pages
#: (docs/performance.md): 5,000 peaked at ~640 MB, 10,000 at ~690 MB;
#: 2,500 (with edge slices of 2,500) took 54 s CPU and a 670 MB file.
SLICE_PAGES = 5000
#: Edge rows per write transaction: a checkpoint of a REL table costs more
#: than a node table's, so few (137,412 edges at 50,000 pages: 4-5).
SLICE_EDGES = 50000

#: Test hooks: pages per slice instead of SLICE_PAGES (and edge rows per
#: slice, the same number: a test's small vault gets several of each), and a
#: SIGKILL right after that many transactions committed, so a test can stop
#: a real process between two of them.
SLICE_ENV = "BRAINWORK_COLD_SLICE"
CRASH_AFTER_SLICES_ENV = "BRAINWORK_CRASH_AFTER_SLICES"


def cold_index(
    config: Config,
    store: Store,
    files: list[VaultFile],
    scan_errors: list[ParseError],
    progress: Callable[[int, int, str], None] | None,
    *,
    recover: bool,
) -> SyncReport:
    """Index ``files`` (the scan, sorted by path) into ``store``, which holds
    no page, or holds part of an interrupted cold index (``recover``: it is
    emptied first). ``scan_errors`` are the files skipped before parsing.
    The report is the one the one-transaction full sync gives."""
    report = SyncReport()
    if recover:
        delta.clear_derived(store)
    old_errors = graph.parse_errors(store)
    slice_pages = int(os.environ.get(SLICE_ENV) or SLICE_PAGES)
    slice_edges = int(os.environ.get(SLICE_ENV) or SLICE_EDGES)
    writer = _SliceWriter(store, bool(old_errors), os.environ.get(CRASH_AFTER_SLICES_ENV))

    total = len(files)
    if progress:
        progress(0, total, "scanning")
    max_bytes = config.thresholds.max_file_bytes
    root = os.fspath(config.vault)
    # What link resolution needs of every file; the rest of a page (body,
    # fields) lives only in its slice's rows.
    pages: list[str] = []
    attachments: list[str] = []
    titles: dict[str, list[str]] = {}
    links_of: dict[str, str] = {}  # page id -> its row's links JSON
    errors: list[ParseError] = list(scan_errors)
    seen: set[str] = set()
    rows: list[dict] = []
    skipped_pages = skipped_attachments = 0
    for i, f in enumerate(files):
        if progress and i % 500 == 0:
            progress(i, total, "reading")
        pid = file_id(f.rel, f.is_markdown)
        if pid in seen:
            # Two files with one id (names differing only in Unicode
            # normalisation): the first in path order is kept.
            errors.append(same_id_error(f.rel, pid))
            if f.is_markdown:
                skipped_pages += 1
            else:
                skipped_attachments += 1
            continue
        seen.add(pid)
        report.added.append(pid)
        if not f.is_markdown:
            attachments.append(pid)
            rows.append(attachment_row(f.rel, f.size, f.mtime_ns))
        else:
            page = read_page(config, root, f, max_bytes).parse(f, max_bytes)
            row = page_row(page)
            pages.append(pid)
            titles[pid] = [page.title, *page.aliases]
            links_of[pid] = row["links"]
            errors.extend(page.errors)
            rows.append(row)
        if len(rows) >= slice_pages:
            writer.pages(rows)
            rows = []
    if progress:
        progress(total, total, "reading")
    if rows:
        writer.pages(rows)
        rows = []
    markdown = sum(1 for f in files if f.is_markdown)
    report.pages = markdown - skipped_pages
    report.attachments = total - markdown - skipped_attachments
    del seen

    edges, missing = resolve_edges(pages, attachments, titles, links_of, report, progress, total)
    del pages, attachments, titles, links_of
    want = [asdict(e) for e in errors]
    as_key = lambda e: (e["path"], e["line"], e["message"])  # noqa: E731
    errors_changed = sorted(map(as_key, want)) != sorted(map(as_key, map(asdict, old_errors)))
    if writer.slices or recover or errors_changed:
        if progress:
            progress(total, total, "writing")
        writer.edges(sorted(missing), edges, slice_edges)
        writer.finish(want)
        report.wrote = True
    report.parse_errors = graph.parse_errors(store) if report.wrote else old_errors
    return report


class _SliceWriter:
    """The cold index's write transactions, in order: page slices (the
    first sets the marker), dead-link targets and edge slices, then the
    last (parse errors, marker deleted)."""

    def __init__(self, store: Store, clear_errors: bool, crash_after: str | None):
        self.store = store
        self.clear_errors = clear_errors
        self.crash_after = int(crash_after) if crash_after else None
        self.slices = 0

    def _committed(self) -> None:
        self.slices += 1
        if self.crash_after is not None and self.slices >= self.crash_after:
            os.kill(os.getpid(), signal.SIGKILL)

    def _begin(self) -> None:
        if self.slices == 0:
            delta.begin_cold_index(self.store, self.clear_errors)

    def pages(self, rows: list[dict]) -> None:
        table = graph.page_table(rows)
        rows.clear()  # the Arrow table holds them now
        # Page and PageBody each in their own transaction: the checkpoint a
        # COMMIT after a COPY runs takes transient memory that grows with
        # what the table already holds (~140 MB for the last PageBody slice
        # at 50,000 pages), and the two apart peaked ~30-40 MB lower than
        # one transaction for both, for the same CPU (measured here).
        for copy in (delta.copy_page_nodes, delta.copy_page_bodies):
            with self.store.write():
                self._begin()
                copy(self.store, table)
            self._committed()
        del table

    def edges(self, missing: list[str], edges: dict[str, tuple], per: int) -> None:
        """``missing`` first (edges to them need the nodes), then every REL
        table's edges, ``per`` rows a transaction."""
        if missing:
            with self.store.write():
                self._begin()
                delta.copy_missing(self.store, missing)
            self._committed()
        for table in list(edges):
            for node, part in zip(("Page", "Missing"), edges.pop(table)):
                for start in range(0, part.num_rows, per):
                    with self.store.write():
                        self._begin()
                        delta.copy_edges(self.store, table, node, part.slice(start, per))
                    self._committed()

    def finish(self, errors: list[dict]) -> None:
        with self.store.write():
            self._begin()
            delta.finish_cold_index(self.store, errors)
