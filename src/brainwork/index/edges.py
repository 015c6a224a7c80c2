"""Every link of the vault resolved into edge rows, for a sync that rewrites
all edges (the full sync of :mod:`brainwork.index.sync` and the sliced cold
index of :mod:`brainwork.index.cold`, which must store the same rows)."""

from __future__ import annotations

import posixpath
from typing import Callable

from brainwork.index.report import SyncReport
from brainwork.index.rows import edge_links_from_json, edge_row
from brainwork.model import Link
from brainwork.store import graph
from brainwork.vault.resolve import Resolution, Resolver
from brainwork.vocabulary import EDGES_BY_NAME

#: Edge rows are turned into Arrow in slices of this many rows.
_SLICE = 1000


def resolve_edges(
    pages: list[str],
    attachments: list[str],
    titles: dict[str, list[str]],
    links_of: dict[str, "list[Link] | str"],
    report: SyncReport,
    progress: Callable[[int, int, str], None] | None,
    total: int,
) -> tuple[dict[str, tuple], set[str]]:
    """Resolve every page's links against the vault as it is now.

    ``pages`` and ``attachments`` are every page id and attachment id;
    ``titles`` page id -> [title, *aliases]; ``links_of`` page id -> its
    links, parsed or as the ``links`` JSON of its row (decoded one page at a
    time: a cold index keeps only that text, ~3.5 against ~10.5 MB of
    :class:`Link` tuples per 10,000 generated pages).

    Fills ``report.edges``, ``dead_links`` and ``ambiguous_links``; returns
    the edges per REL table (as :func:`graph.edge_tables` pairs, converted in
    slices: a dict per edge for 30,000 edges would raise the full index's
    peak memory) and the set of missing (dead) targets.
    """
    if progress:
        progress(total, total, "resolving links")
    resolver = Resolver(pages, attachments, titles)
    edges: dict[str, list[dict]] = {e: [] for e in (x.table for x in EDGES_BY_NAME.values())}
    parts: dict[str, list[tuple]] = {e: [] for e in edges}
    missing: set[str] = set()
    # A resolution depends on the target and the linking page's folder
    # only (Resolver.resolve), and targets repeat (28% of obsidian-hub's
    # 22,556 links, most links of a generated vault): each pair is resolved once.
    resolved: dict[tuple[str, str], Resolution] = {}
    # Counted in locals and added to the report once (22,556 links in
    # obsidian-hub: attribute and dict updates per link add up).
    table_of = {name: e.table for name, e in EDGES_BY_NAME.items()}
    counted = dict.fromkeys(EDGES_BY_NAME, 0)
    dead = ambiguous = 0
    for pid in sorted(links_of):
        folder = posixpath.dirname(pid)
        links = links_of[pid]
        for link in edge_links_from_json(links) if isinstance(links, str) else links:
            key = (link.target, folder)
            res = resolved.get(key)
            if res is None:
                res = resolved[key] = resolver.resolve(link.target, pid)
            row = edge_row(pid, link, res)
            if row is None:
                continue
            table = table_of[link.edge]
            if row["dead"]:
                missing.add(row["to"])
                dead += 1
            else:
                counted[link.edge] += 1
                if res.ambiguous:
                    ambiguous += 1
            rows = edges[table]
            rows.append(row)
            if len(rows) >= _SLICE:
                parts[table].append(graph.edge_tables(rows))
                edges[table] = []
    report.dead_links += dead
    report.ambiguous_links += ambiguous
    for e, n in counted.items():
        report.edges[e] = report.edges.get(e, 0) + n
    for e in EDGES_BY_NAME:
        report.edges.setdefault(e, 0)
    report.edges = {e: report.edges[e] for e in EDGES_BY_NAME}
    return {t: graph.edge_tables([*parts[t], graph.edge_tables(edges[t])]) for t in edges}, missing
