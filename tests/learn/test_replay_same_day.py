"""Replay takes days as its clock: a task dated the day its rule was
approved may have run before the approval, so it is not counted for the
rule (neither before nor after it) and a repeat on it is not put down to
the doctrine (real store, real model)."""

from __future__ import annotations

from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.learn.embed import embed_pages
from brainwork.learn.replay import replay
from brainwork.store import Store

TAGS = "tls, certificates"


def _task(day: str, host: str) -> tuple[str, str]:
    return f"tasks/{day}-renew-{host}.md", (
        f"---\ntitle: Renew the TLS certificate for {host}.example.com\ntype: task\ncreated: {day}\n"
        f"tags: [{TAGS}]\nrequest: Renew the TLS certificate for {host}.example.com before it expires.\n---\n\nDone.\n"
    )


def _correction(day: str, host: str, status: str, wrong: str, correct: str) -> tuple[str, str]:
    return f"corrections/{day}-chain-{host}.md", (
        f"---\ntitle: chain on {host}\ntype: correction\ncreated: {day}\ntags: [{TAGS}]\n"
        f'wrong: "{wrong}"\ncorrect: "{correct}"\nstatus: {status}\n'
        f'corrects: "[[tasks/{day}-renew-{host}]]"\n---\n'
    )


FILES = dict([
    _task("2026-03-01", "api"), _task("2026-03-05", "portal"), _task("2026-03-10", "shop"),
    _task("2026-03-12", "edi"), _task("2026-03-14", "mail"),
    _correction("2026-03-01", "api", "promoted", "Configured only the leaf certificate; no intermediate was sent.",
                "Serve the full certificate chain and check what the server presents with openssl s_client."),
    _correction("2026-03-05", "portal", "promoted", "Served an outdated intermediate certificate in the bundle.",
                "Check the chain the server presents: leaf, current intermediate, trusted root."),
    # the approval's own day: the agent slipped again, maybe before the approval
    _correction("2026-03-10", "shop", "open", "Deployed the leaf without its intermediate certificate again.",
                "Check the full certificate chain the server presents after every renewal."),
    ("rules/chain.md", "---\ntitle: Verify the served certificate chain\ntype: rule\ncreated: 2026-03-10\n"
     "status: active\nactivated: 2026-03-10\n"
     'rule: "After any certificate change, inspect the chain the server presents: leaf, intermediate, root."\n'
     'why: "Renewals produced valid leaves with broken chains."\npromoted_from:\n'
     '  - "[[corrections/2026-03-01-chain-api]]"\n  - "[[corrections/2026-03-05-chain-portal]]"\n---\n'),
])


def test_the_approval_day_counts_on_neither_side(make_vault):
    config = load_config(make_vault(FILES))
    store = Store(config.store)
    try:
        sync(config, store)
        embed_pages(config, store)
        rep = replay(config, store)
    finally:
        store.close()
    chain = rep.lesson("rules/chain")
    same_day = "tasks/2026-03-10-renew-shop"
    assert same_day in {t.task for t in chain.task_class}  # of the rule's kind ...
    assert same_day not in chain.before.tasks and same_day not in chain.after.tasks  # ... but on neither side
    assert chain.after.tasks == ["tasks/2026-03-12-renew-edi", "tasks/2026-03-14-renew-mail"]
    repeat = next(r for r in rep.repeats if r.correction == "corrections/2026-03-10-chain-shop")
    assert repeat.via != "doctrine"
