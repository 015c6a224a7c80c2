"""Every finding and every link figure on the two real corpora, pinned.

The speed-ups of the index (the link mask, the partial sync) and of
``check`` (the stub count's cheap bound, the secret gate) must change no
result. These figures were taken before them (the tree of 2026-12-02 01:10,
``brainwork index --json`` and ``brainwork check --format json``) and are
compared here exactly: the number of findings of each code and a digest of
their JSON rows (every field, sorted), and the index's link counts.

When a change of a check is *meant* to change its findings, recompute the
code's row with :func:`_digests` and say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict

import pytest

#: corpus -> (pages, attachments, live edges by name, dead links, ambiguous links, parse errors)
LINKS = {
    "obsidian-hub": (6571, 77, {"related": 22411}, 68, 44, 15),
    "obsidian-help-en": (173, 137, {"related": 1632}, 6, 0, 0),
}

#: corpus -> {code: (findings, first 16 hex digits of the digest)}
#: ``invalid-field`` finds nothing on either corpus (no page has a created,
#: updated or vocabulary field), so it has no row: a finding of its would
#: fail the equality.
FINDINGS = {
    "obsidian-hub": {
        "ambiguous-link": (44, "781d8cfc7c3b442f"),
        "dead-link": (68, "c5c030b777f5d43a"),
        "diary-title": (104, "e23c3357b5630e8c"),
        "duplicate": (108, "233a92a2416339d1"),
        "oversize": (5, "ead16a803a4cccaf"),
        "parse-error": (15, "c8780c287b481ab3"),
        "secret": (2, "89043e3f3b1d1b01"),
        "stub": (51, "27f4be0811b675fd"),
        "untyped": (6556, "5bab1c8e6c5f49ba"),
    },
    "obsidian-help-en": {
        "dead-link": (6, "cc76fbd2c7d6b8f6"),
        "orphan": (1, "b2c9df615bb27aee"),
        "untyped": (173, "6eaa4081b5c58524"),
    },
}


def _digests(findings) -> dict[str, tuple[int, str]]:
    rows: dict[str, list[str]] = defaultdict(list)
    for f in findings:
        rows[f.code].append(json.dumps(f.to_json(), sort_keys=True, ensure_ascii=False))
    return {
        code: (len(r), hashlib.sha256("\n".join(sorted(r)).encode()).hexdigest()[:16])
        for code, r in sorted(rows.items())
    }


@pytest.mark.parametrize("name", sorted(LINKS))
def test_corpus_links_and_findings_are_pinned(indexed_corpus, name):
    indexed = indexed_corpus(name)
    report = indexed.report
    live = {k: v for k, v in report.edges.items() if v}
    got = (report.pages, report.attachments, live, report.dead_links, report.ambiguous_links,
           len(report.parse_errors))
    assert got == LINKS[name]
    assert _digests(indexed.findings) == FINDINGS[name]
