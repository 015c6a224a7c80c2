"""Messages workers post when their work is done (past tense, by convention).

Workers run in threads and only ever talk to the UI through
``post_message`` (thread-safe). Messages that answer a request carry the
``request_id`` the requester issued, so a screen drops results that arrive
after a newer request (e.g. the user moved on before a neighbourhood loaded).
"""

from __future__ import annotations

from textual.message import Message

from brainwork.index.sync import SyncReport
from brainwork.store.graph import GraphCounts, Neighbour, PageRow, StoredPage


class StoreOpened(Message):
    """The store is open; data can be read."""


class IndexProgressed(Message):
    """Indexing advanced: ``done`` of ``total`` files, in ``phase``."""

    def __init__(self, done: int, total: int, phase: str):
        super().__init__()
        self.done = done
        self.total = total
        self.phase = phase


class IndexFinished(Message):
    """A sync of the vault into the store finished with ``report``."""

    def __init__(self, report: SyncReport):
        super().__init__()
        self.report = report


class VaultLoaded(Message):
    """Page list and counts were (re)read from the store
    (:func:`brainwork.store.graph.list_pages`, :func:`~brainwork.store.graph.counts`)."""

    def __init__(self, pages: list[PageRow], counts: GraphCounts):
        super().__init__()
        self.pages = pages
        self.counts = counts


class NeighbourhoodLoaded(Message):
    """The neighbourhood of ``page`` (None if the page no longer exists) at
    ``hops`` hops: ``rows`` as :func:`brainwork.store.graph.neighbourhood`
    returns."""

    def __init__(self, request_id: int, page_id: str, page: StoredPage | None, rows: list[Neighbour], hops: int):
        super().__init__()
        self.request_id = request_id
        self.page_id = page_id
        self.page = page
        self.rows = rows
        self.hops = hops


class PageLoaded(Message):
    """A page for the preview (None if it does not exist)."""

    def __init__(self, request_id: int, page_id: str, page: StoredPage | None):
        super().__init__()
        self.request_id = request_id
        self.page_id = page_id
        self.page = page
