"""Helpers for the operation tests: snapshots of a vault's bytes and an
independent link resolution (parse every file, resolve like the indexer)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from brainwork.vault.parse import page_id, parse_text
from brainwork.vault.resolve import Resolver


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (hidden folders skipped): path -> bytes."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and not any(part.startswith(".") for part in rel.split("/")):
            out[rel] = p.read_bytes()
    return out


def hashes(root: Path) -> dict[str, str]:
    return {k: hashlib.sha256(v).hexdigest() for k, v in snapshot(root).items()}


def resolved_links(root: Path) -> dict[str, list[tuple[str, str | None]]]:
    """path -> [(raw link, resolved page id or None)] in file order."""
    files = snapshot(root)
    parsed = {rel: parse_text(rel, data) for rel, data in files.items() if rel.lower().endswith(".md")}
    pages = [page_id(rel) for rel in parsed]
    attachments = [rel for rel in files if not rel.lower().endswith(".md")]
    names = {page_id(rel): [p.title, *p.aliases] for rel, p in parsed.items()}
    resolver = Resolver(pages, attachments, names)
    return {
        rel: [(l.raw, resolver.resolve(l.target, page_id(rel)).page) for l in p.links] for rel, p in parsed.items()
    }


def text_outside_links(data: bytes, rel: str) -> str:
    """The file's text with every link span cut out."""
    page = parse_text(rel, data)
    text = data.decode("utf-8").lstrip("\ufeff")
    out, pos = [], 0
    for l in sorted(page.links, key=lambda l: l.start):
        out.append(text[pos : l.start])
        pos = l.end
    out.append(text[pos:])
    return "\x00".join(out)
