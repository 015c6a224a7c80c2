"""Read one vault file into a :class:`~brainwork.model.ParsedPage`.

A file that cannot be read fully (not UTF-8, binary, too large, broken YAML)
still becomes a page, so links to it resolve; what went wrong is recorded in
``page.errors`` naming the file and line. Nothing here raises for bad input.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from brainwork.model import ParsedPage, ParseError
from brainwork.thresholds import MAX_FILE_BYTES
from brainwork.vault.frontmatter import FrontmatterError, NotAMapping, Split, is_null, parse_yaml, split_frontmatter
from brainwork.vault.links import body_links, frontmatter_links, mask_non_links
from brainwork.vault.resolve import page_id  # noqa: F401  (re-exported: the id is part of reading a page)

BOM = "\ufeff"
_H1 = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_TITLE_KEY = re.compile(r"^['\"]?title['\"]?[ \t]*:", re.MULTILINE)
#: A template placeholder: Obsidian's core Templates and the plugins that
#: follow them (QuickAdd, Periodic Notes) write ``{{title}}``,
#: ``{{date:YYYY-MM-DD}}``; Templater writes ``<% tp.file.title %>`` (also
#: ``<%*``, ``<%+``, ``<%_`` ... ``-%>``). Text holding one is a template
#: to be filled in, not a name: every page made from ``# {{title}}`` would
#: otherwise be titled ``{{title}}``.
TEMPLATE_PLACEHOLDER = re.compile(r"\{\{[^{}\n]*\}\}|<%.*?%>")
#: A git merge conflict left in a file (``<<<<<<< ours``, ``=======``,
#: ``>>>>>>> theirs``, each at a line start, in that order): both sides'
#: text is still there, so the page parses as written and says so.
_CONFLICT = re.compile(r"^<{7}(?:[ \t][^\n]*)?\r?$.*?^={7}\r?$.*?^>{7}(?:[ \t][^\n]*)?\r?$", re.MULTILINE | re.DOTALL)


def _as_list(value) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, list):
        return [str(v).strip() for v in value if isinstance(v, (str, int, float)) and str(v).strip()]
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return []


def is_template_text(text: str) -> bool:
    """Whether ``text`` (a heading, a title, an alias) holds a template
    placeholder (:data:`TEMPLATE_PLACEHOLDER`) and so names no page."""
    return ("{{" in text or "<%" in text) and TEMPLATE_PLACEHOLDER.search(text) is not None


def _line_of_offset(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _oversize_error(rel_path: str, size: int, max_bytes: int) -> ParseError:
    """On line 1: the problem is the whole file, and lines are 1-based
    wherever an error is shown (index, check, show, the workbench)."""
    return ParseError(rel_path, 1, f"file is {size:,} bytes, over the {max_bytes:,}-byte limit; not parsed")


def oversize_page(rel_path: str, full: Path, size: int, mtime_ns: int, max_bytes: int) -> ParsedPage:
    """The page for a file over ``max_bytes``, hashed in chunks without
    reading it into memory: no fields, no links, one parse error.

    Raises:
        OSError: the file cannot be read.
    """
    with open(full, "rb") as fh:
        digest = hashlib.file_digest(fh, "sha256").hexdigest()
    pid = page_id(rel_path)
    page = ParsedPage(
        id=pid, path=rel_path, title=pid.rsplit("/", 1)[-1], type=None, fields={}, aliases=[], tags=[],
        body="", body_line=1, hash=digest, size=size, mtime_ns=mtime_ns,
    )
    page.errors.append(_oversize_error(rel_path, size, max_bytes))
    return page


#: Lone surrogates that ``surrogateescape`` decoding makes of undecodable bytes.
_ESCAPED = re.compile("[\udc80-\udcff]")


def parse_text(
    rel_path: str, data: bytes, mtime_ns: int = 0, max_bytes: int = MAX_FILE_BYTES, decode: str = "strict",
    digest: str | None = None,
) -> ParsedPage:
    """Parse the bytes of the Markdown file at vault-relative ``rel_path``.

    ``decode="surrogateescape"`` reads a file that is not UTF-8 (Latin-1,
    Windows-1252...) anyway: each undecodable byte becomes one lone surrogate,
    so link offsets index that text and ``text.encode("utf-8",
    "surrogateescape")`` gives the file's bytes back exactly. Operations use
    it to rewrite such a file's (ASCII-compatible) links; the index does not.

    ``digest``: the SHA-256 hex of ``data`` when the caller has it already
    (the sync hashes every file to find the changed ones).
    """
    pid = page_id(rel_path)
    stem = pid.rsplit("/", 1)[-1]
    if digest is None:
        digest = hashlib.sha256(data).hexdigest()
    page = ParsedPage(
        id=pid, path=rel_path, title=stem, type=None, fields={}, aliases=[], tags=[],
        body="", body_line=1, hash=digest, size=len(data), mtime_ns=mtime_ns,
    )
    if len(data) > max_bytes:
        page.errors.append(_oversize_error(rel_path, len(data), max_bytes))
        return page
    if b"\x00" in data:
        page.errors.append(ParseError(rel_path, _line_of_offset(data, data.index(b"\x00")), "binary file (NUL byte); not parsed"))
        return page
    try:
        text = data.decode("utf-8", decode)
    except UnicodeDecodeError as exc:
        line = _line_of_offset(data, exc.start)
        page.errors.append(ParseError(rel_path, line, f"not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); not parsed"))
        return page
    if text.startswith(BOM):
        text = text[1:]
    conflict = _CONFLICT.search(text) if "<<<<<<<" in text else None
    if conflict:
        end = text.count("\n", 0, conflict.end()) + 1
        page.errors.append(ParseError(rel_path, text.count("\n", 0, conflict.start()) + 1,
                                      f"git merge conflict markers (<<<<<<< to >>>>>>> at line {end}): keep what "
                                      "both sides wrote and delete the three marker lines"))
    split = split_frontmatter(text)
    links = []
    if split.yaml_text is not None:
        try:
            yaml_text = split.yaml_text
            if decode != "strict":  # the YAML parser refuses lone surrogates; same length, so lines stay
                yaml_text = _ESCAPED.sub("\ufffd", yaml_text)
            page.fields = parse_yaml(yaml_text, first_line=text.count("\n", 0, split.yaml_start) + 1)
        except NotAMapping as exc:
            if exc.got == "text":
                # ``---`` / a paragraph / ``---``: Markdown shows a rule, the
                # paragraph and a rule, so the whole file is body.
                split = Split(None, 0, 0, 0, 1)
            else:
                # A list between the fences is frontmatter written wrongly
                # (``- tag`` items without their key): reported, and kept as
                # a frontmatter block with no fields like broken YAML, so the
                # body and every link (frontmatter ones too) still count.
                page.errors.append(ParseError(rel_path, exc.line, exc.message))
        except FrontmatterError as exc:
            page.errors.append(ParseError(rel_path, exc.line, exc.message))
    elif split.unclosed:
        # The file stays body text, as Obsidian reads it: every line and
        # link of it is kept and counted; only the fields are missing.
        page.errors.append(ParseError(rel_path, 1, "frontmatter opened on line 1 is never closed: add a '---' line "
                                                   "after its last field; until then the file is read as body text"))
    if split.yaml_text is not None:
        page.has_frontmatter = True
        links.extend(frontmatter_links(text, split.yaml_start, split.yaml_end))
    page.body_line = split.body_line
    page.body = text[split.body_start :]
    # One mask per body: links and the title heading both read it.
    title = page.fields.get("title")
    wants_heading = not (isinstance(title, str) and title.strip()) and "#" in page.body
    masked = mask_non_links(page.body) if "[" in page.body or wants_heading else None
    links.extend(body_links(text, split.body_start, split.body_line, masked))
    page.links = links
    fields = page.fields
    title = fields.get("title")
    if isinstance(title, str) and title.strip():
        page.title = title.strip()
    else:
        if title not in (None, ""):
            m = _TITLE_KEY.search(text, 0, split.yaml_end)
            line = text.count("\n", 0, m.start()) + 1 if m else 2
            page.errors.append(ParseError(rel_path, line, "frontmatter 'title' is not text; using the heading or file name"))
        m = _H1.search(masked) if wants_heading and masked is not None else None
        # A first heading that is a template placeholder (``# {{title}}``)
        # leaves the file name as the title: the heading is filled in only
        # when a page is made from the template.
        if m and not is_template_text(m.group(1)):
            page.title = m.group(1).strip()
    t = fields.get("type")
    page.type = t.strip() if isinstance(t, str) and not is_null(t) else None
    page.aliases = _as_list(fields.get("aliases", fields.get("alias")))
    page.tags = [t.lstrip("#") for t in _as_list(fields.get("tags", fields.get("tag")))]
    return page


def parse_file(root: Path, rel_path: str) -> ParsedPage:
    """Read and parse ``root / rel_path``; an unreadable file gives a page
    with a parse error instead of raising."""
    full = root / rel_path
    try:
        st = full.stat()
        data = full.read_bytes()
    except OSError as exc:
        page = parse_text(rel_path, b"")
        page.errors.append(ParseError(rel_path, 1, f"cannot read: {exc.strerror or exc}"))
        return page
    return parse_text(rel_path, data, st.st_mtime_ns)


def read_stat(full: Path) -> tuple[int, int]:
    """``(size in bytes, mtime in ns)`` of a file, without following links."""
    st = os.lstat(full)
    return st.st_size, st.st_mtime_ns
