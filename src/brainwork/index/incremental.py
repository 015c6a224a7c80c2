"""Sync a *known* list of changed files into the store (after an operation
wrote them), without scanning the vault or rewriting every edge; and
:func:`apply_changes`, the partial write both this and
:func:`brainwork.index.sync.sync` (for a few changed files) use.

:func:`brainwork.index.sync.sync` is the general path: scan, detect changes,
re-resolve every link, rewrite every edge. An operation knows exactly which
files it wrote, so :func:`sync_paths` only

1. reads and parses those files (a missing one is removed);
2. works out whose links can resolve differently: the changed files
   themselves, plus any other file with a link whose last path segment or
   whole target matches a file name, title or alias that appeared or
   disappeared (the only keys :class:`~brainwork.vault.resolve.Resolver`
   consults); those links are resolved before and after to be sure;
3. writes pages, the affected files' edges and dead-link targets in one
   transaction (:func:`brainwork.store.delta.apply_delta`).

The result is the same store a full sync would produce (checked by
tests/index/test_incremental.py against a full re-index). Files outside the
index (hidden, in ``[ignore]`` folders, in the store) are skipped like the
full sync skips them.
"""

from __future__ import annotations

import hashlib
import os
import time
import unicodedata
from dataclasses import asdict
from typing import Iterable

from brainwork.config import Config
from brainwork.index.sync import SyncReport, _attachment_row, _links_from_json, _page_row, edge_row
from brainwork.model import Link, ParseError
from brainwork.store import Store
from brainwork.store import delta, graph
from brainwork.vault.parse import oversize_page, page_id, parse_text
from brainwork.vault.resolve import Resolver, norm
from brainwork.store.schema import ABSENT_TEXT_COLUMNS
from brainwork.vocabulary import EDGES_BY_NAME


def _skipped_prefixes(config: Config) -> tuple[str, ...]:
    """Vault-relative folders the full sync does not index: ``[ignore]``
    folders and the store when it lies inside the vault."""
    out = [f.strip("/") + "/" for f in config.ignore_folders]
    try:
        out.append(config.store.resolve().relative_to(config.vault.resolve()).as_posix() + "/")
    except ValueError:
        pass
    return tuple(out)


def _indexed(rel: str, skipped: tuple[str, ...]) -> bool:
    if any(p.startswith(".") for p in rel.split("/")):
        return False
    return not (rel + "/").startswith(skipped) if skipped else True


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
    the last sync. Returns a :class:`~brainwork.index.sync.SyncReport`
    (``pages``/``edges`` counts for the whole store unless ``counts`` is
    False, which saves three queries when nobody reads them).

    Holds the store's writer lock from reading the stored state to the end
    of the write (as :func:`brainwork.index.sync.sync` does).

    Raises nothing for bad files (they become parse errors).
    """
    with store.exclusive():
        return _sync_paths(config, store, paths, counts)


def _sync_paths(config: Config, store: Store, paths: Iterable[str], counts: bool) -> SyncReport:
    t0 = time.perf_counter()
    report = SyncReport()
    state = delta.light_state(store)
    max_bytes = config.thresholds.max_file_bytes
    parsed = {}
    rows_updated: list[dict] = []
    rows_added: list[dict] = []
    touched: list[tuple[str, int]] = []
    removed: list[str] = []
    error_paths: set[str] = set()
    new_errors: list[dict] = []
    skipped = _skipped_prefixes(config)
    for rel in dict.fromkeys(paths):
        if not _indexed(rel, skipped):
            continue
        is_md = rel.lower().endswith(".md")
        pid = page_id(rel) if is_md else unicodedata.normalize("NFC", rel)
        full = config.vault / rel
        old = state.get(pid)
        try:
            st = os.lstat(full)
        except FileNotFoundError:
            st = None
        if st is None or not os.path.isfile(full) or os.path.islink(full):
            if old is not None and old["path"] == rel:
                removed.append(pid)
                report.removed.append(pid)
                error_paths.add(rel)
            continue
        if not is_md:
            row = _attachment_row(rel, st.st_size, st.st_mtime_ns)
            (rows_updated if old else rows_added).append(row)
            (report.changed if old else report.added).append(pid)
            continue
        read_error = None
        try:
            if st.st_size > max_bytes:
                page = oversize_page(rel, full, st.st_size, st.st_mtime_ns, max_bytes)
            else:
                data = full.read_bytes()
                if old and old["path"] == rel and old["kind"] == "page" and old["hash"] == hashlib.sha256(data).hexdigest():
                    touched.append((pid, st.st_mtime_ns))
                    continue
                page = parse_text(rel, data, st.st_mtime_ns, max_bytes)
        except OSError as exc:
            page = parse_text(rel, b"", st.st_mtime_ns, max_bytes)
            read_error = ParseError(rel, 0, f"cannot read: {exc.strerror or exc}")
        if read_error:
            page.errors.append(read_error)
        parsed[pid] = page
        error_paths.add(rel)
        new_errors.extend(asdict(e) for e in page.errors)
        if old is not None and old["path"] != rel:  # same id, other spelling on disk
            error_paths.add(old["path"])
        # A page kept under its id is updated in place (every column that
        # differs, path included), never deleted and re-created: edges
        # other files hold to it stay, and see delta.apply_delta on why a
        # node must not be deleted in the transaction that creates edges.
        (rows_updated if old is not None else rows_added).append(_page_row(page))
        (report.changed if old is not None else report.added).append(pid)

    apply_changes(
        store, state,
        links_of={pid: p.links for pid, p in parsed.items()},
        added=rows_added, updated=rows_updated, touched=touched, removed=removed,
        clear_error_paths=sorted(error_paths), errors=new_errors,
    )
    report.wrote = bool(removed or rows_updated or rows_added or touched)
    if not counts:
        report.seconds = time.perf_counter() - t0
        return report
    totals = graph.edge_counts(store)
    report.edges, report.dead_links, report.ambiguous_links = totals.edges, totals.dead_links, totals.ambiguous_links
    kinds = dict(store.execute("MATCH (p:Page) RETURN p.kind, count(*)"))
    report.pages, report.attachments = kinds.get("page", 0), kinds.get("attachment", 0)
    report.parse_errors = graph.parse_errors(store)
    report.seconds = time.perf_counter() - t0
    return report


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


def apply_changes(
    store: Store,
    state: dict[str, dict],
    *,
    links_of: dict[str, list[Link]],
    added: list[dict],
    updated: list[dict],
    touched: list[tuple[str, int]],
    removed: list[str],
    clear_error_paths: list[str],
    errors: list[dict],
) -> None:
    """Write a known set of changes as a partial sync
    (:func:`brainwork.store.delta.apply_delta`), leaving the store as a full
    sync would.

    ``state``: :func:`brainwork.store.delta.light_state` as read before the
    change; ``links_of``: the parsed links of every re-parsed page; ``added``
    / ``updated``: page or attachment rows (``sync._page_row``) of ids not
    stored / stored before; ``removed``: stored ids whose file is gone;
    ``touched``: (id, mtime_ns) of pages whose bytes did not change; the
    parse errors of ``clear_error_paths`` are replaced by ``errors`` (dicts
    of :class:`~brainwork.model.ParseError`).
    """
    if not added and not removed and updated:
        stored = delta.stored_columns(store, [r["id"] for r in updated])
        if all(_same_edges(stored.get(r["id"]), r) for r in updated):
            # Text edits only: no name, kind or link changed, so no file's
            # edges can change and nothing needs resolving (at 50,000 pages
            # this skips reading every name and building a resolver).
            delta.apply_delta(
                store, removed=[], updated=_column_groups(updated, stored), added=[], touched=touched,
                edge_deletes={}, edge_inserts={}, new_missing=[],
                clear_error_paths=clear_error_paths, errors=errors,
            )
            return
    removed_set = set(removed)
    old_names = delta.page_names(store)
    old_pages = [p for p, r in state.items() if r["kind"] == "page"]
    old_att = [p for p, r in state.items() if r["kind"] != "page"]
    new_kind = {p: r["kind"] for p, r in state.items() if p not in removed_set}
    new_names = {p: n for p, n in old_names.items() if p not in removed_set}
    for row in added + updated:
        new_kind[row["id"]] = row["kind"]
        if row["kind"] == "page":
            new_names[row["id"]] = [row["title"], *(row["aliases"] or [])]
        else:
            new_names.pop(row["id"], None)
    new_pages = [p for p, k in new_kind.items() if k == "page"]
    new_att = [p for p, k in new_kind.items() if k != "page"]

    # Which other files' links can resolve differently? Those naming a file
    # that appeared or disappeared (by its last path segment), or a title
    # or alias that changed.
    structural = removed_set | {r["id"] for r in added}
    structural |= {r["id"] for r in updated if state[r["id"]]["kind"] != r["kind"]}
    watch: set[str] = {norm(p.rsplit("/", 1)[-1]) for p in structural}
    for pid in set(links_of) | removed_set | {r["id"] for r in updated}:
        if old_names.get(pid) != new_names.get(pid):
            watch |= {norm(n.strip()) for n in old_names.get(pid, []) + new_names.get(pid, []) if n}
    files: set[str] = set(links_of) | removed_set
    stored_links: dict[str, str] = {}
    if watch:
        candidates: dict[str, list[Link]] = {}
        for pid, text in delta.page_links(store).items():
            if pid in files or pid not in new_names or not may_mention(text, watch):
                continue
            hits = [l for l in _links_from_json(text) if not watch.isdisjoint(link_keys(l))]
            if hits:
                candidates[pid] = hits
                stored_links[pid] = text
        if candidates:
            every = [l for hits in candidates.values() for l in hits]
            before = resolver_for(every, old_pages, old_att, old_names)
            now = resolver_for(every, new_pages, new_att, new_names)
            for pid, hits in candidates.items():
                if any(before.resolve(l.target, pid) != now.resolve(l.target, pid) for l in hits):
                    files.add(pid)

    # Edges of the affected files, as the full sync makes them.
    links_by_file: dict[str, list[Link]] = {}
    for pid in sorted(files):
        if pid in links_of:
            links_by_file[pid] = links_of[pid]
        elif pid in stored_links and pid not in removed_set:
            links_by_file[pid] = _links_from_json(stored_links[pid])
    after = resolver_for([l for ls in links_by_file.values() for l in ls], new_pages, new_att, new_names)
    edges: dict[str, list[dict]] = {e.table: [] for e in EDGES_BY_NAME.values()}
    dead_targets: set[str] = set()
    for pid, links in links_by_file.items():
        for link in links:
            row = edge_row(pid, link, after.resolve(link.target, pid))
            if row is None:
                continue
            if row["dead"]:
                dead_targets.add(row["to"])
            edges[EDGES_BY_NAME[link.edge].table].append(row)
    new_missing = sorted(dead_targets - delta.missing_ids(store)) if dead_targets else []

    # Compare with what is stored: only edges that differ are deleted and
    # inserted (see delta.apply_delta on why few writes matter).
    old_edges = delta.file_edges(store, sorted(files - removed_set))
    edge_deletes: dict[tuple[str, str], list[dict]] = {}
    edge_inserts: dict[tuple[str, str], list[dict]] = {}

    def key(row: dict) -> tuple:
        return (row["from"], row["to"], row["file"], row["line"], row["target"])

    def full(row: dict) -> tuple:
        return key(row) + tuple(row[c] for c in ("place", "label", "heading", "embed", "ambiguous"))

    new_by: dict[tuple[str, str], list[dict]] = {}
    for table, rows in edges.items():
        for row in rows:
            new_by.setdefault((table, "Missing" if row["dead"] else "Page"), []).append(row)
    for group in set(old_edges) | set(new_by):
        old_rows = [r for r in old_edges.get(group, []) if r["from"] not in removed_set and r["to"] not in removed_set]
        new_rows = new_by.get(group, [])
        old_k: dict[tuple, list[tuple]] = {}
        new_k: dict[tuple, list[dict]] = {}
        for r in old_rows:
            old_k.setdefault(key(r), []).append(full(r))
        for r in new_rows:
            new_k.setdefault(key(r), []).append(r)
        for k in set(old_k) | set(new_k):
            was = sorted(old_k.get(k, []), key=repr)
            now_rows = new_k.get(k, [])
            if was == sorted((full(r) for r in now_rows), key=repr):
                continue
            if was:
                edge_deletes.setdefault(group, []).append(dict(zip(("from", "to", "file", "line", "target"), k)))
            edge_inserts.setdefault(group, []).extend(now_rows)

    delta.apply_delta(
        store,
        removed=removed,
        updated=_column_groups(updated, delta.stored_columns(store, [r["id"] for r in updated])),
        added=added,
        touched=touched,
        edge_deletes=edge_deletes,
        edge_inserts=edge_inserts,
        new_missing=new_missing,
        clear_error_paths=clear_error_paths,
        errors=errors,
    )


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


#: The fields of a stored link an edge row is made from (sync.edge_row);
#: ``style``, ``start`` and ``end`` only say where the link is written.
_EDGE_FIELDS = ("target", "edge", "line", "where", "reverse", "label", "heading", "embed")


def _edge_shape(links_json: str | None) -> list[tuple]:
    return [tuple(getattr(l, k) for k in _EDGE_FIELDS) for l in _links_from_json(links_json)]


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
