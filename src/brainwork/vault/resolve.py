"""Resolve link targets to vault files, following Obsidian's rules.

Order (first that matches wins; docs/vault-format.md):

1. relative to the linking file's folder (``x`` next to the source,
   ``./x.md``, ``../y``), for wikilinks and Markdown links alike — only while
   the result stays inside the vault. Obsidian does the same: a bare
   ``[[Security and privacy]]`` written in ``Obsidian Sync/`` means the note in
   that folder although ``Obsidian Publish/`` has one of the same name;
2. vault-relative path (``Projects/Note``), ``.md`` optional;
3. path suffix (``Projects/Note`` matching ``Work/Projects/Note.md``);
4. file name (``Note``);
5. a page's ``aliases`` or ``title``.

Matching is case-insensitive and Unicode NFC-normalised. When several files
fit, the shortest path wins, then the alphabetically first: deterministic, and
reported as ``ambiguous``. Non-Markdown files (attachments) are valid targets
by their full name (``Figure 1.png``). Resolution is pure in-memory work: a
hostile target (``../../etc/passwd``, NUL, absolute paths) simply resolves to
nothing.
"""

from __future__ import annotations

import posixpath
import unicodedata
from typing import NamedTuple


def page_id(rel_path: str) -> str:
    """Page id for a vault-relative POSIX path: the path without ``.md``
    (NFC-normalised)."""
    rel = unicodedata.normalize("NFC", rel_path)
    return rel[:-3] if rel.lower().endswith(".md") else rel


def norm(text: str) -> str:
    """Normalisation used for every comparison: NFC, then case-folded."""
    return unicodedata.normalize("NFC", text).casefold()


class Resolution(NamedTuple):
    """Outcome of resolving one target: ``page`` is the page id (or the
    attachment's path) or ``None`` for a dead link; ``candidates`` lists every
    id that fit when there was more than one.

    A named tuple rather than a frozen dataclass (which sets each field
    through ``object.__setattr__``): a sync makes one for each distinct
    target and folder (16,303 in obsidian-hub)."""

    page: str | None
    candidates: tuple[str, ...] = ()

    @property
    def ambiguous(self) -> bool:
        return len(self.candidates) > 1


def _pick(cands: list[str]) -> Resolution:
    if len(cands) == 1:
        return Resolution(cands[0])
    ordered = sorted(set(cands), key=lambda c: (c.count("/"), len(c), c))
    if len(ordered) == 1:
        return Resolution(ordered[0])
    return Resolution(ordered[0], tuple(ordered))


class Resolver:
    """Index of link targets over one vault.

    Args:
        pages: page ids (vault-relative paths without ``.md``).
        attachments: vault-relative paths of non-Markdown files.
        names: page id -> extra names (title, aliases) for the last rule.
    """

    def __init__(self, pages, attachments=(), names: dict[str, list[str]] | None = None):
        self.by_path: dict[str, str] = {}
        self.by_base: dict[str, list[str]] = {}
        self.by_name: dict[str, list[str]] = {}
        for pid in pages:
            key = norm(pid)
            self.by_path[key] = pid
            self.by_base.setdefault(key.rsplit("/", 1)[-1], []).append(pid)
        for path in attachments:
            key = norm(path)
            self.by_path.setdefault(key, path)
            self.by_base.setdefault(key.rsplit("/", 1)[-1], []).append(path)
        for pid, extra in (names or {}).items():
            for name in extra:
                if name:
                    self.by_name.setdefault(norm(name), []).append(pid)
        # source page id -> (its folder normalised, that folder + "/" when
        # normpath leaves it as it is, else None): for the first rule,
        # worked out once a page rather than once a link.
        self._folders: dict[str, tuple[str, str | None]] = {}

    def _lookup(self, key: str) -> Resolution | None:
        hit = self.by_path.get(key)
        if hit is not None:
            return Resolution(hit)
        base = key.rsplit("/", 1)[-1]
        cands = self.by_base.get(base)
        if not cands:
            return None
        if "/" in key:
            suffix = "/" + key
            cands = [c for c in cands if norm(c).endswith(suffix)]
            if not cands:
                return None
        return _pick(cands)

    def resolve(self, target: str, source: str | None = None, relative: bool = True) -> Resolution:
        """Resolve ``target`` as written on page ``source`` (a page id).

        With a ``source`` and ``relative`` (the default), the path relative to
        ``source``'s folder is tried first; a hit there is not ambiguous.
        """
        raw = target.strip().replace("\\", "/")
        if not raw or "\x00" in raw:
            return Resolution(None)
        key = norm(raw)
        if key.endswith(".md"):
            key = key[:-3]
        if relative and source is not None:
            cached = self._folders.get(source)
            if cached is None:
                folder = norm(posixpath.dirname(source))
                clean = not folder or posixpath.normpath(folder) == folder
                cached = self._folders[source] = (folder, f"{folder}/" if folder else "") if clean else (folder, None)
            folder, prefix = cached
            if (prefix is not None and key and not key.startswith((".", "/")) and not key.endswith("/")
                    and "//" not in key and "/." not in key):
                # Plain names joined to a normal folder are normal already
                # (most links: join and normpath cost ~2 µs a link).
                joined = prefix + key
            else:
                joined = posixpath.normpath(posixpath.join(folder, key))
            if not joined.startswith("../") and joined != "..":
                hit = self.by_path.get(joined)
                if hit is not None:
                    return Resolution(hit)
        key = from_root(key)
        if not key or key.startswith("../"):
            return Resolution(None)
        found = self._lookup(key)
        if found is not None:
            return found
        cands = self.by_name.get(norm(raw))
        if cands:
            return _pick(cands)
        return Resolution(None)


def from_root(target: str) -> str:
    """A path-like link target as read from the vault root, the way links
    resolve when not relative to their page (docs/vault-format.md): a
    leading ``/`` and leading ``./`` steps dropped; case and the rest kept."""
    key = target.lstrip("/")
    while key.startswith("./"):
        key = key[2:]
    return key


#: Least rapidfuzz ``ratio`` (0-100, case-folded) for a "did you mean"
#: suggestion: a misspelling (``Postgress`` ~ ``Postgres`` 94) or a partial
#: name (``tls cert`` ~ ``Renew TLS cert`` 73) passes, an unrelated name
#: (``zzz``, ``budget`` ~ ``Renew TLS cert``) does not.
SUGGEST_MIN_RATIO = 60


def similar_names(name: str, names: dict[str, list[str]], limit: int = 3) -> list[str]:
    """Up to ``limit`` keys of ``names`` (page id -> its title, file name,
    aliases) with a name resembling ``name``, best first; [] when none does.
    For "no page named X; did you mean ...?" messages."""
    from rapidfuzz import fuzz, utils

    query = utils.default_process(name)
    scored = []
    for pid, candidates in names.items():
        best = max((fuzz.ratio(query, utils.default_process(c)) for c in candidates if c), default=0)
        if best >= SUGGEST_MIN_RATIO:
            scored.append((-best, pid))
    return [pid for _, pid in sorted(scored)[:limit]]
