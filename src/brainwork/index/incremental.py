"""Sync a *known* list of changed files into the store (after an operation
wrote them), without scanning the vault or rewriting every edge.

:func:`plan_paths` reads the files and says what changed against the stored
state (a :class:`FileChanges`, no store access); :func:`apply_changes`
writes such a plan as a partial sync, for this path and for
:func:`brainwork.index.sync.sync` when few files changed. Invariants: the
store it leaves equals a full sync's (tests/index/test_incremental.py
checks it against a full re-index), only the edges that differ are
rewritten, and files the full scan skips are skipped here too.
Which links are re-resolved: docs/architecture.md, "Sync".
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field

from brainwork.config import Config
from brainwork.index.report import SyncReport
from brainwork.index.rows import attachment_row, edge_row, links_from_json, page_row
from brainwork.index.reading import file_id
from brainwork.index.scan import is_indexed, skipped_prefixes
from brainwork.model import Link, ParseError
from brainwork.store import Store
from brainwork.store import delta, graph
from brainwork.store.delta import StoredFile
from brainwork.store.schema import ABSENT_TEXT_COLUMNS
from brainwork.vault.parse import oversize_page, parse_text
from brainwork.vault.resolve import Resolver, norm
from brainwork.vocabulary import EDGES_BY_NAME


@dataclass(frozen=True)
class FileChanges:
    """What a set of changed files does to the store, against the stored
    state read before: the plan :func:`apply_changes` writes.

    ``added`` / ``updated``: page or attachment rows
    (:func:`~brainwork.index.rows.page_row`,
    :func:`~brainwork.index.rows.attachment_row`) of ids not stored / stored
    before, in the order the files were given; ``touched``: ``(id,
    mtime_ns)`` of pages whose bytes did not change; ``removed``: stored ids
    whose file is gone; ``links_of``: the parsed links of every re-parsed
    page; the parse errors of ``clear_error_paths`` are replaced by
    ``errors`` (dicts of :class:`~brainwork.model.ParseError`).
    """

    added: tuple[dict, ...] = ()
    updated: tuple[dict, ...] = ()
    touched: tuple[tuple[str, int], ...] = ()
    removed: tuple[str, ...] = ()
    links_of: Mapping[str, list[Link]] = field(default_factory=dict)
    clear_error_paths: tuple[str, ...] = ()
    errors: tuple[dict, ...] = ()

    @property
    def writes_pages(self) -> bool:
        """Whether any page row is added, updated, touched or removed."""
        return bool(self.removed or self.updated or self.added or self.touched)


def may_mention(links_json: str | None, keys: set[str]) -> bool:
    """False only when no key occurs in the normalised stored link JSON
    (a cheap pre-filter before decoding; ``"``, ``\\`` and control
    characters are escaped in JSON, so keys holding them always pass)."""
    if not links_json or links_json == "[]":
        return False
    if "\\" in links_json:
        return True  # escapes in the JSON: decode to be sure
    # For ASCII text NFC is the identity and casefold() is lower().
    folded = links_json.lower() if links_json.isascii() else norm(links_json)
    for k in keys:
        if k in folded or '"' in k or "\\" in k or not k.isprintable():
            return True
    return False


def link_keys(link: Link) -> tuple[str, str]:
    """(normalised last path segment without ``.md``, normalised whole
    target): the only keys a :class:`Resolver` consults for this link — path,
    path-suffix and file-name lookups key on the last segment, the
    title/alias lookup on the whole target."""
    raw = norm(link.target.strip().replace("\\", "/"))
    base = raw.rsplit("/", 1)[-1]
    return (base[:-3] if base.endswith(".md") else base), raw


def sync_paths(config: Config, store: Store, paths: Iterable[str], *, counts: bool = True) -> SyncReport:
    """Bring the store in line with the vault for the files ``paths``
    (vault-relative, POSIX), assuming every other file is unchanged since
    the last sync. Returns a :class:`~brainwork.index.report.SyncReport`
    (``pages``/``edges`` counts for the whole store unless ``counts`` is
    False, which saves three queries when nobody reads them).

    Holds the store's writer lock from reading the stored state to the end
    of the write (as :func:`brainwork.index.sync.sync` does).

    Raises nothing for bad files (they become parse errors).
    """
    with store.exclusive():
        t0 = time.perf_counter()
        state = delta.light_state(store)
        changes = plan_paths(config, state, paths)
        apply_changes(store, state, changes)
        report = SyncReport(
            added=[r["id"] for r in changes.added],
            changed=[r["id"] for r in changes.updated],
            removed=list(changes.removed),
            wrote=changes.writes_pages,
        )
        if counts:
            totals = graph.edge_counts(store)
            report.edges, report.dead_links, report.ambiguous_links = totals.edges, totals.dead_links, totals.ambiguous_links
            kinds = dict(store.execute("MATCH (p:Page) RETURN p.kind, count(*)"))
            report.pages, report.attachments = kinds.get("page", 0), kinds.get("attachment", 0)
            report.parse_errors = graph.parse_errors(store)
        report.seconds = time.perf_counter() - t0
        return report


def plan_paths(config: Config, state: dict[str, StoredFile], paths: Iterable[str]) -> FileChanges:
    """What the files ``paths`` (vault-relative, POSIX; repeats ignored)
    change against ``state`` (:func:`brainwork.store.delta.light_state`):
    each is read and parsed, a missing one is removed, one whose bytes
    match the stored hash is only touched. Reads the files, not the store.
    An unreadable file becomes a page with a parse error."""
    max_bytes = config.thresholds.max_file_bytes
    links_of: dict[str, list[Link]] = {}
    updated: list[dict] = []
    added: list[dict] = []
    touched: list[tuple[str, int]] = []
    removed: list[str] = []
    error_paths: set[str] = set()
    errors: list[dict] = []
    skipped = skipped_prefixes(config)
    for rel in dict.fromkeys(paths):
        if not is_indexed(rel, skipped):
            continue
        is_md = rel.lower().endswith(".md")
        pid = file_id(rel, is_md)
        full = config.vault / rel
        old = state.get(pid)
        try:
            st = os.lstat(full)
        except FileNotFoundError:
            st = None
        if st is None or not os.path.isfile(full) or os.path.islink(full):
            if old is not None and old.path == rel:
                removed.append(pid)
                error_paths.add(rel)
            continue
        if not is_md:
            (updated if old else added).append(attachment_row(rel, st.st_size, st.st_mtime_ns))
            continue
        read_error = None
        try:
            if st.st_size > max_bytes:
                page = oversize_page(rel, full, st.st_size, st.st_mtime_ns, max_bytes)
            else:
                data = full.read_bytes()
                if old and old.path == rel and old.kind == "page" and old.hash == hashlib.sha256(data).hexdigest():
                    touched.append((pid, st.st_mtime_ns))
                    continue
                page = parse_text(rel, data, st.st_mtime_ns, max_bytes)
        except OSError as exc:
            page = parse_text(rel, b"", st.st_mtime_ns, max_bytes)
            read_error = ParseError(rel, 1, f"cannot read: {exc.strerror or exc}")
        if read_error:
            page.errors.append(read_error)
        links_of[pid] = page.links
        error_paths.add(rel)
        errors.extend(asdict(e) for e in page.errors)
        if old is not None and old.path != rel:  # same id, other spelling on disk
            error_paths.add(old.path)
        # A page kept under its id is updated in place (every column that
        # differs, path included), never deleted and re-created: edges
        # other files hold to it stay, and see delta.apply_delta on why a
        # node must not be deleted in the transaction that creates edges.
        (updated if old is not None else added).append(page_row(page))
    return FileChanges(
        added=tuple(added), updated=tuple(updated), touched=tuple(touched), removed=tuple(removed),
        links_of=links_of, clear_error_paths=tuple(sorted(error_paths)), errors=tuple(errors),
    )


def _fold(text: str) -> str:
    """:func:`~brainwork.vault.resolve.norm`, with ASCII text (NFC is the
    identity there, casefold() is lower()) folded at C speed."""
    return text.lower() if text.isascii() else norm(text)


def _base(key: str) -> str:
    return key.rsplit("/", 1)[-1]


def resolver_for(
    links: Iterable[Link], pages: list[str], attachments: list[str], names: dict[str, list[str]],
) -> Resolver:
    """A :class:`Resolver` that resolves every link in ``links`` exactly as
    ``Resolver(pages, attachments, names)`` would, built over the few files
    those links can reach.

    The resolver consults only entries whose last path segment equals the
    link's (vault path, path relative to the linking file, path suffix, file
    name) or whose name equals the whole target (title/alias), so the other
    files can be left out (at 50,000 pages a full resolver costs ~0.12 s
    CPU, the subset a few ms). A target whose last segment is ``''``,
    ``.`` or ``..`` can reach a file of another name: then every file is
    kept.
    """
    bases: set[str] = set()
    wanted: set[str] = set()
    for link in links:
        base, whole = link_keys(link)
        if base in ("", ".", ".."):
            return Resolver(pages, attachments, names)
        bases.add(base)
        wanted.add(whole)
    # Inlined folding (ASCII: lower() is norm()): this loop runs over every
    # page, so each function call saved is ~50 ms at 50,000 pages.
    sub = [
        p for p in pages
        if (p.lower() if p.isascii() else norm(p)).rpartition("/")[2] in bases
        or any(n and (n.lower() if n.isascii() else norm(n)) in wanted for n in names.get(p, ()))
    ]
    sub_att = [a for a in attachments if _base(_fold(a)) in bases]
    return Resolver(sub, sub_att, {p: names[p] for p in sub if p in names})


def apply_changes(store: Store, state: dict[str, StoredFile] | None, changes: FileChanges) -> None:
    """Write ``changes`` as a partial sync
    (:func:`brainwork.store.delta.apply_delta`, one transaction), leaving
    the store as a full sync would.

    ``state``: :func:`brainwork.store.delta.light_state` as read before the
    change (the state ``changes`` was planned against), or None to read it
    here if needed (a text edit does not need it).
    """
    added, updated, removed = list(changes.added), list(changes.updated), list(changes.removed)
    if not added and not removed and updated:
        stored = delta.stored_columns(store, [r["id"] for r in updated])
        if all(_same_edges(stored.get(r["id"]), r) for r in updated):
            # Text edits only: no name, kind or link changed, so no file's
            # edges can change and nothing needs resolving (at 50,000 pages
            # this skips reading every name and building a resolver).
            delta.apply_delta(
                store, removed=[], updated=_column_groups(updated, stored), added=[], touched=list(changes.touched),
                edge_deletes={}, edge_inserts={}, new_missing=[],
                clear_error_paths=list(changes.clear_error_paths), errors=list(changes.errors),
            )
            return
    if state is None:
        state = delta.light_state(store)
    old = _Names.stored(store, state)
    new = old.after(state, changes)
    files, stored_links = _affected_files(store, state, changes, old, new)
    edges = _edges_of(files, stored_links, changes, new)
    dead_targets = {row["to"] for (_, node), rows in edges.items() if node == "Missing" for row in rows}
    new_missing = sorted(dead_targets - delta.missing_ids(store)) if dead_targets else []
    edge_deletes, edge_inserts = _edge_diff(delta.file_edges(store, sorted(files - set(removed))), edges, set(removed))
    delta.apply_delta(
        store,
        removed=removed,
        updated=_column_groups(updated, delta.stored_columns(store, [r["id"] for r in updated])),
        added=added,
        touched=list(changes.touched),
        edge_deletes=edge_deletes,
        edge_inserts=edge_inserts,
        new_missing=new_missing,
        clear_error_paths=list(changes.clear_error_paths),
        errors=list(changes.errors),
    )


@dataclass(frozen=True)
class _Names:
    """The files a :class:`Resolver` is built over: page ids, attachment
    ids and each page's ``[title, *aliases]``."""

    pages: list[str]
    attachments: list[str]
    names: dict[str, list[str]]

    @classmethod
    def stored(cls, store: Store, state: dict[str, StoredFile]) -> "_Names":
        return cls(
            [p for p, r in state.items() if r.kind == "page"],
            [p for p, r in state.items() if r.kind != "page"],
            delta.page_names(store),
        )

    def after(self, state: dict[str, StoredFile], changes: FileChanges) -> "_Names":
        """The files as they are once ``changes`` are written."""
        removed = set(changes.removed)
        kind = {p: r.kind for p, r in state.items() if p not in removed}
        names = {p: n for p, n in self.names.items() if p not in removed}
        for row in changes.added + changes.updated:
            kind[row["id"]] = row["kind"]
            if row["kind"] == "page":
                names[row["id"]] = [row["title"], *(row["aliases"] or [])]
            else:
                names.pop(row["id"], None)
        return _Names([p for p, k in kind.items() if k == "page"], [p for p, k in kind.items() if k != "page"], names)

    def resolver(self, links: list[Link]) -> Resolver:
        return resolver_for(links, self.pages, self.attachments, self.names)


def _affected_files(
    store: Store, state: dict[str, StoredFile], changes: FileChanges, old: _Names, new: _Names,
) -> tuple[set[str], dict[str, str]]:
    """The files whose edges must be rewritten, and the stored links JSON
    of those among them that were not re-parsed: the changed and removed
    files, plus every other file with a link that resolves differently
    before and after. Only a link naming (by its last path segment) a file
    that appeared, disappeared or changed kind, or a title or alias that
    changed, can; those are resolved both ways to be sure."""
    removed = set(changes.removed)
    structural = removed | {r["id"] for r in changes.added}
    structural |= {r["id"] for r in changes.updated if state[r["id"]].kind != r["kind"]}
    watch: set[str] = {norm(p.rsplit("/", 1)[-1]) for p in structural}
    for pid in set(changes.links_of) | removed | {r["id"] for r in changes.updated}:
        if old.names.get(pid) != new.names.get(pid):
            watch |= {norm(n.strip()) for n in old.names.get(pid, []) + new.names.get(pid, []) if n}
    files: set[str] = set(changes.links_of) | removed
    stored_links: dict[str, str] = {}
    if not watch:
        return files, stored_links
    candidates: dict[str, list[Link]] = {}
    for pid, text in delta.page_links(store).items():
        if pid in files or pid not in new.names or not may_mention(text, watch):
            continue
        hits = [l for l in links_from_json(text) if not watch.isdisjoint(link_keys(l))]
        if hits:
            candidates[pid] = hits
            stored_links[pid] = text
    if candidates:
        every = [l for hits in candidates.values() for l in hits]
        before, now = old.resolver(every), new.resolver(every)
        for pid, hits in candidates.items():
            if any(before.resolve(l.target, pid) != now.resolve(l.target, pid) for l in hits):
                files.add(pid)
    return files, stored_links


def _edges_of(
    files: set[str], stored_links: dict[str, str], changes: FileChanges, new: _Names,
) -> dict[tuple[str, str], list[dict]]:
    """The edge rows of ``files`` as the full sync makes them, by
    ``(REL table, "Page"|"Missing")``."""
    removed = set(changes.removed)
    links_by_file: dict[str, list[Link]] = {}
    for pid in sorted(files):
        if pid in changes.links_of:
            links_by_file[pid] = changes.links_of[pid]
        elif pid in stored_links and pid not in removed:
            links_by_file[pid] = links_from_json(stored_links[pid])
    after = new.resolver([l for ls in links_by_file.values() for l in ls])
    out: dict[tuple[str, str], list[dict]] = {}
    for pid, links in links_by_file.items():
        for link in links:
            row = edge_row(pid, link, after.resolve(link.target, pid))
            if row is not None:
                out.setdefault((EDGES_BY_NAME[link.edge].table, "Missing" if row["dead"] else "Page"), []).append(row)
    return out


def _edge_key(row: dict) -> tuple:
    return (row["from"], row["to"], row["file"], row["line"], row["target"])


def _edge_full(row: dict) -> tuple:
    return _edge_key(row) + tuple(row[c] for c in ("place", "label", "heading", "embed", "ambiguous"))


def _edge_diff(
    old_edges: dict[tuple[str, str], list[dict]], new_edges: dict[tuple[str, str], list[dict]], removed: set[str],
) -> tuple[dict[tuple[str, str], list[dict]], dict[tuple[str, str], list[dict]]]:
    """``(deletes, inserts)`` for :func:`brainwork.store.delta.apply_delta`:
    only edges that differ from the stored ones (``old_edges``, without
    those of ``removed`` pages, which go with their node) are deleted and
    inserted (see delta.apply_delta on why few writes matter)."""
    deletes: dict[tuple[str, str], list[dict]] = {}
    inserts: dict[tuple[str, str], list[dict]] = {}
    for group in set(old_edges) | set(new_edges):
        old_k: dict[tuple, list[tuple]] = {}
        new_k: dict[tuple, list[dict]] = {}
        for r in old_edges.get(group, []):
            if r["from"] not in removed and r["to"] not in removed:
                old_k.setdefault(_edge_key(r), []).append(_edge_full(r))
        for r in new_edges.get(group, []):
            new_k.setdefault(_edge_key(r), []).append(r)
        for k in set(old_k) | set(new_k):
            was = sorted(old_k.get(k, []), key=repr)
            now_rows = new_k.get(k, [])
            if was == sorted((_edge_full(r) for r in now_rows), key=repr):
                continue
            if was:
                deletes.setdefault(group, []).append(dict(zip(("from", "to", "file", "line", "target"), k)))
            inserts.setdefault(group, []).extend(now_rows)
    return deletes, inserts


def _column_groups(updated: list[dict], stored: dict[str, dict]) -> dict[tuple[str, ...], list[dict]]:
    """Updated rows grouped by the columns that differ from ``stored``
    (:func:`brainwork.store.delta.stored_columns`): only those are set."""
    groups: dict[tuple[str, ...], list[dict]] = {}
    for row in updated:
        have = stored.get(row["id"])
        if have is None:
            cols = delta.ALL_COLUMNS
        else:
            cols = tuple(
                c for c in delta.ALL_COLUMNS
                if (c == "body" and have["hash"] != row["hash"])
                or (c != "body" and c in have and _stored_value(c, have[c]) != row[c])
            )
        groups.setdefault(cols, []).append(row)
    return groups


#: The fields of a stored link an edge row is made from (rows.edge_row);
#: ``style``, ``start`` and ``end`` only say where the link is written.
_EDGE_FIELDS = ("target", "edge", "line", "where", "reverse", "label", "heading", "embed")


def _edge_shape(links_json: str | None) -> list[tuple]:
    return [tuple(getattr(l, k) for k in _EDGE_FIELDS) for l in links_from_json(links_json)]


def _same_edges(have: dict | None, row: dict) -> bool:
    """Whether page row ``row`` makes the same edges and offers the same
    names to every resolver as its stored columns ``have``."""
    if have is None or row["kind"] != "page" or have["kind"] != "page" or have["path"] != row["path"]:
        return False
    if [have["title"], *(have["aliases"] or [])] != [row["title"], *(row["aliases"] or [])]:
        return False
    return have["links"] == row["links"] or _edge_shape(have["links"]) == _edge_shape(row["links"])


def _stored_value(column: str, value):
    """A stored column as the row dicts hold it (absent text is ``''``,
    which :class:`Store` reads back as None)."""
    if value is None and column in ABSENT_TEXT_COLUMNS:
        return ""
    return value
