"""A retitle proposal names the thing, not the ticket: ticket references
("JIRA-1234", "#123", "ABC-42:", "INC0012345", "Ticket: 5120") are dropped
from the title the review queue offers for a diary title."""

from __future__ import annotations

import re

import pytest

from brainwork.learn.dream import retitle

#: What a proposed title must not hold: a ticket-looking token.
TICKETISH = re.compile(r"#\d|\b[A-Za-z]+[-_]?\d{2,}\b|\b\d{3,}\b")


@pytest.mark.parametrize("title, expected", [
    ("JIRA-1234 Billing certificate expired because the intermediate chain was missing on the edge proxy",
     "Billing certificate expired"),
    ("ABC-42: certificate for billing expiring 14.09.2026", "Certificate for billing expiring"),
    ("[ABC-42] certificate for billing expiring 14.09.2026", "Certificate for billing expiring"),
    ("Fix #123 billing certificate expired on 2026-09-14", "Fix billing certificate expired"),
    ("Ticket: 5120 certificate for billing expiring 14.09.2026", "Certificate for billing expiring"),
    ("Tickets 5120 and 5121: certificate for billing expiring 14.09.2026", "Certificate for billing expiring"),
    ("Ticket 5120/5121 certificate for billing expiring 14.09.2026", "Certificate for billing expiring"),
    ("INC0012345 certificate for billing expiring 14.09.2026", "Certificate for billing expiring"),
    ("certificate for billing expiring (INC0012345) 14.09.2026", "Certificate for billing expiring"),
    ("gh#12 certificate for billing expiring 14.09.2026", "Certificate for billing expiring"),
    ("OPS_77 certificate for billing expiring 14.09.2026", "Certificate for billing expiring"),
    ("T-5120 certificate for billing expiring 14.09.2026", "Certificate for billing expiring"),
    ("SR 12345 certificate for billing expiring 14.09.2026", "Certificate for billing expiring"),
    ("No. 5120 certificate for billing expiring 14.09.2026", "Certificate for billing expiring"),
    ("certificate for billing expiring 14.09.2026, see ABC-42", "Certificate for billing expiring"),
    ("Billing certificate ABC-42 expiring on the edge proxy after the chain broke and nobody noticed it",
     "Billing certificate expiring on the edge proxy"),
    ("Ticket 5120 of 14.09.2026: certificate for billing expiring", "Certificate for billing expiring"),
    ("Weekly platform sync 2026-10-01", "Weekly platform sync"),
    ("ABC-42 14.09.2026", ""),
])
def test_retitle_drops_ticket_numbers(title, expected):
    assert retitle(title, 80) == expected


def test_retitle_keeps_words_that_only_look_numbered():
    assert retitle("Upgrade the k8s ingress to HTTP2 and ISO27001 audit on 2026-10-01", 80) == \
        "Upgrade the k8s ingress to HTTP2 and ISO27001 audit"


def test_dream_proposes_ticket_free_titles(make_vault, embedder):
    from brainwork.config import load_config
    from brainwork.index.sync import sync
    from brainwork.learn.dream import gather
    from brainwork.store import Store

    titles = {
        "tasks/inc-billing.md": "INC0012345 certificate for billing expiring 14.09.2026",
        "tasks/ticket-nightly.md": "Ticket: 5388 nightly CI red on 28.09.2026",
        "tasks/ops-export.md": "OPS_77 slow customer export, see ABC-42, on 2026-10-02",
    }
    files = {rel: f"---\ntitle: \"{t}\"\ntype: task\ncreated: 2026-10-02\n---\n\nBody.\n" for rel, t in titles.items()}
    config = load_config(make_vault(files))
    with Store(config.store) as store:
        sync(config, store)
        items = gather(config, store, today="2026-12-02", embedder=embedder)
    proposed = {p["page"]: p["new_title"] for kind, _key, _summary, p in items if kind == "retitle"}
    assert proposed == {"tasks/inc-billing": "Certificate for billing expiring",
                        "tasks/ticket-nightly": "Nightly CI red",
                        "tasks/ops-export": "Slow customer export"}
    assert not any(TICKETISH.search(t) for t in proposed.values())
