"""Reading a vault file for indexing, shared by the full sync, the sliced
cold index and the incremental sync (one place for a file's page id, the
same-id error and how a Markdown file is read, hashed and parsed).

Apart from :mod:`brainwork.index.scan` because it imports the Markdown
parser: the scan is imported by hooks that must start without it.
"""

from __future__ import annotations

import hashlib
import os
import unicodedata
from typing import NamedTuple

from brainwork.config import Config
from brainwork.index.scan import VaultFile, read_bytes
from brainwork.model import ParsedPage, ParseError
from brainwork.vault.parse import oversize_page, page_id, parse_text


def file_id(rel: str, is_markdown: bool) -> str:
    """The page id of vault file ``rel``: a Markdown page's
    :func:`~brainwork.vault.parse.page_id`, an attachment's path in NFC."""
    return page_id(rel) if is_markdown else unicodedata.normalize("NFC", rel)


def same_id_error(rel: str, pid: str) -> ParseError:
    """The parse error of a second file whose id ``pid`` an earlier file (in
    path order) has: names differing only in Unicode normalisation. It is
    skipped, not stored."""
    return ParseError(rel, 1, f"same page id as another file ({pid!r}); skipped")


class ReadPage(NamedTuple):
    """A Markdown file as read for indexing: its bytes (empty when over
    ``max_file_bytes`` or unreadable), the page of a file over the limit
    (hashed, never read whole), why it could not be read, and the SHA-256
    hex its row stores (of the bytes; of the whole file when over the
    limit)."""

    data: bytes
    big: ParsedPage | None
    error: ParseError | None
    digest: str

    def parse(self, f: VaultFile, max_bytes: int) -> ParsedPage:
        """The page, parsed from the bytes unless over the limit, with the
        read error among its errors."""
        page = self.big if self.big is not None else parse_text(f.rel, self.data, f.mtime_ns, max_bytes,
                                                                digest=self.digest)
        if self.error is not None:
            page.errors.append(self.error)
        return page


def read_page(config: Config, root: str, f: VaultFile, max_bytes: int) -> ReadPage:
    """Read Markdown file ``f`` (under ``root``, the vault's path) for
    indexing; an unreadable file gives empty bytes and a ``cannot read``
    error naming it, never an exception."""
    big: ParsedPage | None = None
    error = None
    try:
        if f.size > max_bytes:
            big = oversize_page(f.rel, config.vault / f.rel, f.size, f.mtime_ns, max_bytes)
            data = b""
        else:
            data = read_bytes(os.path.join(root, f.rel), f.size)
    except OSError as exc:
        data, big = b"", None
        error = ParseError(f.rel, 1, f"cannot read: {exc.strerror or exc}")
    digest = big.hash if big is not None else hashlib.sha256(data).hexdigest()
    return ReadPage(data, big, error, digest)
