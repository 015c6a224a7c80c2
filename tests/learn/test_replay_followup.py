"""Replay reads the approval record and the rejections (real store, real
model): the evidence an active rule's page lists counts as what it was
approved from whatever its date, while a correction linked to the live rule
later is a repeat after it; the corrections of a rejected candidate join no
look-alike lesson; and a vault with nothing dated loads no model."""

from __future__ import annotations

import subprocess
import sys

from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.learn.embed import embed_pages
from brainwork.learn.replay import replay
from brainwork.learn.rules import link_corrections
from brainwork.store import Store
from brainwork.store import learning as q

TAGS = "tls, certificates"
WRONG = "Deployed the leaf certificate without its intermediate certificate."
CORRECT = "Serve the full certificate chain and check what the server presents with openssl s_client."


def _task(day: str, host: str) -> tuple[str, str]:
    return f"tasks/{day}-renew-{host}.md", (
        f"---\ntitle: Renew the TLS certificate for {host}.example.com\ntype: task\ncreated: {day}\n"
        f"tags: [{TAGS}]\nrequest: Renew the TLS certificate for {host}.example.com before it expires.\n---\n\nDone.\n"
    )


def _correction(day: str, host: str, status: str) -> tuple[str, str]:
    return f"corrections/{day}-chain-{host}.md", (
        f"---\ntitle: chain on {host}\ntype: correction\ncreated: {day}\ntags: [{TAGS}]\n"
        f'wrong: "{WRONG} ({host})"\ncorrect: "{CORRECT}"\nstatus: {status}\n'
        f'corrects: "[[tasks/{day}-renew-{host}]]"\n---\n'
    )


def _rule(name: str, status: str, key: str, ids: list[str], extra: str = "") -> tuple[str, str]:
    links = "".join(f'  - "[[{c}]]"\n' for c in ids)
    return f"rules/{name}.md", (
        f"---\ntitle: {name}\ntype: rule\ncreated: 2026-03-01\nstatus: {status}\n{extra}"
        'rule: "After any certificate change, inspect the chain the server presents: leaf, intermediate, root."\n'
        f'why: "Renewals produced valid leaves with broken chains."\n{key}:\n{links}---\n'
    )


C = "corrections/2026-03-{}-chain-{}".format
APPROVED = [C("01", "api"), C("05", "portal"), C("14", "late")]  # the last dated after the approval day
REJECTED = [C("03", "cdn"), C("07", "vpn")]
FORGOTTEN = [C("08", "ftp")]  # a rejected page since deleted: only the store's row remembers it
LINKED = C("20", "mail")  # linked to the live rule afterwards
FILES = dict([
    *(_task(d, h) for d, h in [("2026-03-01", "api"), ("2026-03-03", "cdn"), ("2026-03-05", "portal"),
                               ("2026-03-07", "vpn"), ("2026-03-08", "ftp"), ("2026-03-12", "shop"),
                               ("2026-03-14", "late"), ("2026-03-20", "mail")]),
    *(_correction(d, h, s) for d, h, s in [("2026-03-01", "api", "promoted"), ("2026-03-05", "portal", "promoted"),
                                           ("2026-03-14", "late", "promoted"), ("2026-03-03", "cdn", "clustered"),
                                           ("2026-03-07", "vpn", "clustered"), ("2026-03-08", "ftp", "open"),
                                           ("2026-03-20", "mail", "open")]),
    _rule("chain", "active", "promoted_from", APPROVED, "activated: 2026-03-10\n"),
    _rule("chain-again", "rejected", "evidence", REJECTED, "rejected: 2026-03-09\nrejected_reason: not a lesson\n"),
])


def test_replay_reads_the_approval_record_and_the_rejections(make_vault):
    config = load_config(make_vault(FILES))
    store = Store(config.store)
    try:
        sync(config, store)
        q.record_rejection(store, "rules/chain-gone", FORGOTTEN, "not a lesson", "2026-03-09T10:00:00+00:00")
        link_corrections(config, store, "rules/chain", [LINKED])
        sync(config, store)
        embed_pages(config, store)
        rep = replay(config, store)
    finally:
        store.close()
    chain = rep.lesson("rules/chain")
    assert chain.approved_from == sorted(APPROVED)  # the page's promoted_from, whatever the dates
    assert chain.evidence == sorted(APPROVED + [LINKED])
    by_id = {r.correction: r for r in rep.repeats}
    late = by_id[C("14", "late")]
    assert late.via != "doctrine"  # approved from it: the rule came from it
    assert "tasks/2026-03-14-renew-late" in chain.before.tasks and "tasks/2026-03-14-renew-late" not in chain.after.tasks
    assert by_id[LINKED].via == "doctrine"  # linked to the live rule later: a repeat after it
    assert chain.after.repeated == ["tasks/2026-03-20-renew-mail"]
    # the rejected candidates' corrections are no repeat of the look-alike lesson
    assert not set(REJECTED + FORGOTTEN) & set(chain.corrections)
    assert not any(r.correction in REJECTED + FORGOTTEN for r in rep.repeats)
    assert rep.lesson("rules/chain-again") is None  # a rejected rule is no lesson


NOTHING_DATED = """
import sys
from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.learn import embed
from brainwork.learn.replay import replay
from brainwork.store import Store
config = load_config(sys.argv[1])
with Store(config.store) as store:
    sync(config, store)
    rep = replay(config, store)
print(rep.tasks, len(rep.lessons), rep.embedder, embed.loaded_embedder(config) is None)
"""


def test_nothing_dated_loads_no_model(make_vault):
    root = make_vault({
        "notes/a.md": "---\ntitle: A note\n---\n\nSee [[b]].\n",
        "notes/b.md": "# B\n\nText.\n",
        "tasks/undated.md": "---\ntitle: An undated task\ntype: task\n---\n",
    })
    out = subprocess.run([sys.executable, "-c", NOTHING_DATED, str(root)], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "0", "None", "True"]
