"""The store rows the indexer writes: a page's or an attachment's ``Page``
row, one link's edge row, and the link JSON a page row carries. Shared by
the full and the partial sync (which must write identical rows); imports
nothing else of ``index/``.

Absent text is ``''`` in a row, never None (see
:data:`brainwork.store.schema.ABSENT_TEXT_COLUMNS`).
"""

from __future__ import annotations

import json
import unicodedata

from brainwork.model import Link, ParsedPage
from brainwork.vault.resolve import Resolution, norm
from brainwork.vocabulary import ATTACHMENT_TYPE

# start/end (character offsets in the file) let operations rewrite a link
# without parsing the file again (brainwork.ops.relink); JSON written before
# they were added simply lacks them (Link's defaults, -1).
LINK_KEYS = ("target", "edge", "line", "where", "reverse", "label", "heading", "embed", "style", "start", "end")


# Encoders built once: json.dumps with keywords builds a JSONEncoder per
# call (two per page row). Same output as json.dumps(..., ensure_ascii=False);
# the links hold only scalars, so the cycle check is skipped there.
_LINKS_ENCODE = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode
_FIELDS_ENCODE = json.JSONEncoder(ensure_ascii=False, default=str).encode


def links_json(links: list[Link]) -> str:
    """``links`` as the ``links`` column stores them: one list per link, in
    :data:`LINK_KEYS` order (spelled out: a getattr per key cost ~0.1 s CPU
    over obsidian-hub's 22,556 links)."""
    return _LINKS_ENCODE([
        [l.target, l.edge, l.line, l.where, l.reverse, l.label, l.heading, l.embed, l.style, l.start, l.end]
        for l in links
    ])


def links_from_json(text: str | None) -> list[Link]:
    """The links of a stored ``links`` column (None or ``''``: none)."""
    if not text:
        return []
    return [Link(**dict(zip(LINK_KEYS, item))) for item in json.loads(text)]


def page_row(p: ParsedPage) -> dict:
    """The ``Page`` row of a parsed Markdown page."""
    f = p.fields
    status = f.get("status")
    return {
        "id": p.id,
        "path": p.path,
        "kind": "page",
        "title": p.title,
        "type": p.type or "",
        "status": status if isinstance(status, str) else "",
        "created": f.get("created") if isinstance(f.get("created"), str) else "",
        "updated": f.get("updated") if isinstance(f.get("updated"), str) else "",
        "aliases": p.aliases,
        "tags": p.tags,
        "fields": _FIELDS_ENCODE(f),
        "body": p.body,
        "body_line": p.body_line,
        "hash": p.hash,
        "size": p.size,
        "mtime_ns": p.mtime_ns,
        "links": links_json(p.links),
    }


def attachment_row(rel: str, size: int, mtime_ns: int) -> dict:
    """The ``Page`` row of a non-Markdown file (never read: no hash)."""
    pid = unicodedata.normalize("NFC", rel)
    return {
        "id": pid, "path": rel, "kind": ATTACHMENT_TYPE, "title": pid.rsplit("/", 1)[-1],
        "type": "", "status": "", "created": "", "updated": "", "aliases": [], "tags": [],
        "fields": "{}", "body": "", "body_line": 1, "hash": "", "size": size, "mtime_ns": mtime_ns, "links": "[]",
    }


def edge_row(pid: str, link: Link, res: Resolution) -> dict | None:
    """The store row of one link written on page ``pid`` and resolved as
    ``res``: ``from``/``to`` page ids (reversed for an inverse key), or for a
    dead link ``to`` = the normalised target (a ``Missing`` id, without
    ``.md``). None for a link to the page itself (no edge)."""
    row = {
        "file": pid, "line": link.line, "place": link.where, "target": link.target,
        "label": link.label, "heading": link.heading, "embed": link.embed,
        "ambiguous": res.ambiguous, "dead": res.page is None, "reverse": link.reverse,
    }
    if res.page is None:
        key = norm(link.target.strip())
        if key.endswith(".md"):
            key = key[:-3]
        row["from"], row["to"] = pid, key
    elif res.page == pid:
        return None
    else:
        row["from"], row["to"] = (res.page, pid) if link.reverse else (pid, res.page)
    return row


def edge_links_from_json(text: str) -> list[Link]:
    """The links of a stored ``links`` column with only what an edge row
    needs (:func:`edge_row`: target, edge, line, place, reverse, label,
    heading, embed; offsets and style left at Link's defaults). Fields by
    keyword, no dict per link: faster than :func:`links_from_json` (0.035
    against 0.049 s CPU for the links of 10,000 generated pages)."""
    if not text:
        return []
    return [
        Link(target=i[0], edge=i[1], line=i[2], where=i[3], reverse=i[4], label=i[5], heading=i[6], embed=i[7])
        for i in json.loads(text)
    ]
