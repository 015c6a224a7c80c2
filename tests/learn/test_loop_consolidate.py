"""The learning loop on a small vault with known answers (real Kùzu store,
real embedding model): what consolidation proposes after the person approved
one of two look-alike lessons and rejected the other (docs/learning-loop.md
sections 4-5).

The vault: three corrections teaching "change the config in the infra repo,
never by hand on the server" and three teaching its look-alike "validate the
config with nginx -t before a reload" (both about editing the nginx proxy),
four teaching "put every timestamp in UTC before comparing logs", and a
one-off about writing dates as ISO 8601 in a report; each on a task of its
own.
"""

from __future__ import annotations

import shutil
from datetime import date

import pytest

from brainwork.learn.capture import capture
from brainwork.learn.consolidate import consolidate
from brainwork.learn.rules import approve, list_rules, reject
from brainwork.store import learning as q

TODAY = date(2026, 12, 4)

#: (created, task title, wrong, correct, why), by lesson.
REPO = [
    ("2026-11-19", "Raise the upload size limit on the proxy",
     "Edited /etc/nginx/nginx.conf directly on web-01; the next ansible run reverted it",
     "Change the config in the infra repo and roll it out with ansible, never by hand on the server",
     "Hand edits on a managed host are overwritten and leave no review trail"),
    ("2026-11-23", "Add a security header on the proxy",
     "Added the HSTS header by editing sites-enabled on web-02 over ssh; web-01 never got it",
     "Make config changes through the infra repository and the ansible playbook",
     "Hosts drift apart when edited one by one"),
    ("2026-11-26", "Tune proxy timeouts",
     "Changed proxy_read_timeout with vim on the host; the change had no pull request and was lost at the next deploy",
     "Commit the change to the infra repo and deploy it with ansible",
     "Unreviewed hand edits are lost and nobody can audit them"),
]
NGINX_T = [
    ("2026-11-18", "Add a redirect for /docs on the web proxy",
     "Reloaded nginx after editing without checking the syntax; a missing semicolon took the proxy down for two minutes",
     "Validate the configuration with nginx -t before every reload",
     "A reload with a broken config drops all traffic, and the check takes a second"),
    ("2026-11-21", "Enable gzip on the proxy",
     "Ran systemctl reload nginx with a typo in gzip_types; the reload failed and the old workers stayed half up",
     "Test the new config (nginx -t) and only reload when it passes",
     "A failed reload leaves the proxy in a state nobody planned"),
    ("2026-11-27", "Add a cache header on the proxy",
     "Reloaded nginx with an invalid directive name and did not run nginx -t",
     "Always run nginx -t first and reload only on success",
     "One broken reload is an outage"),
]
UTC = [
    ("2026-11-16", "Correlate API and worker logs for the 500s",
     "Lined up the api log (UTC) with the worker log (Europe/Berlin local time) directly and blamed the wrong deploy",
     "Normalise every log's timestamps to UTC before lining events up",
     "Servers log in different zones, so an hour offset points at the wrong cause"),
    ("2026-11-19", "Explain the cron job that ran twice",
     "Compared the cron log in local time to the app log in UTC and concluded the job ran at 01:00 and 02:00",
     "Convert both sources to one zone, UTC, before deciding what ran when",
     "Mixed zones invent duplicate or missing runs around DST"),
    ("2026-11-22", "Find when latency started rising",
     "Took syslog's local timestamps at face value against Grafana's UTC panel and was off by one hour",
     "Put all timestamps in UTC first, then compare the timelines",
     "Grafana shows UTC and syslog shows host time, so times disagree by the offset"),
    ("2026-11-25", "Trace the payment webhook delay",
     "Read the Stripe dashboard in my browser's local time against our UTC logs and reported a 60 minute delay that did not exist",
     "Use UTC for every timeline you build, whatever the tool shows",
     "Dashboards render in the viewer's zone and fake delays appear"),
]
ISO_ONE_OFF = ("2026-11-18", "Write the weekly uptime report", "Wrote dates as 11/18/26 in the report",
               "Write dates in the report as ISO 8601 (2026-11-18)",
               "The readers are in Europe and the US and misread month and day")
#: After the rules' approval (:data:`ACTIVATED`): repeats, rephrased.
REPO_LATER = ("2026-12-03", "Raise the worker count on the proxy",
              "Bumped worker_processes by editing the file on web-02 with nano; ansible put it back that night",
              "Put the change in the infrastructure repository and let the ansible playbook roll it out",
              "A managed host forgets anything not in the playbook")
UTC_LATER = ("2026-12-02", "Find why the search index lagged",
             "Compared the indexer's local-time log with the queue's UTC log and blamed a deploy an hour off",
             "Bring every timestamp to UTC before building the timeline",
             "Different zones shift events by the offset and point at the wrong change")
#: After the approval: two corrections saying the opposite of the UTC rule
#: for another kind of work (customer-facing reports).
CUSTOMER_LOCAL = [
    ("2026-12-02", "Send Acme the monthly SLA report",
     "Gave Acme's SLA report incident times in UTC; their ops team in Chicago had to convert every line",
     "In a customer-facing report give times in the customer's own time zone, and say which zone",
     "Customers read reports in their own local time and UTC makes them do the work"),
    ("2026-12-03", "Send Beta Ltd the incident summary",
     "Wrote Beta's incident summary in UTC only though their staff are in Sydney",
     "Use the customer's local time zone in anything written for the customer, with the zone named",
     "A customer should not have to convert our times to understand their own outage"),
]
ACTIVATED = "2026-12-01"
NGINX_T_LATER = ("2026-12-02", "Add a maintenance page on the proxy",
                 "Reloaded nginx without testing the config first; an unbalanced brace stopped it",
                 "Run nginx -t and reload only when it reports ok",
                 "A bad reload is an outage for every site behind the proxy")


def add(config, store, rows, tags="nginx,config") -> list[str]:
    """Capture each row as a task and its correction; returns the correction ids."""
    out = []
    for created, title, wrong, correct, why in rows:
        task = capture(config, store, "task", {"title": title, "request": title, "created": created, "tags": tags,
                                               "outcome": "partial"}, today=TODAY).id
        out.append(capture(config, store, "correction", {"task": task, "created": created, "tags": tags.split(",")[0],
                                                          "wrong": wrong, "correct": correct, "why": why},
                           today=TODAY).id)
    return out


@pytest.fixture(scope="module")
def drafted(tmp_path_factory, embedder):
    """A vault holding both lessons after one consolidation pass (two
    candidates), closed; each test works on a copy."""
    from brainwork.config import load_config
    from brainwork.store import Store

    root = tmp_path_factory.mktemp("loop") / "vault"
    root.mkdir()
    config = load_config(root)
    with Store(config.store) as store:
        repo, nginx_t = add(config, store, REPO), add(config, store, NGINX_T)
        utc = add(config, store, UTC, tags="logs,incident")
        add(config, store, [ISO_ONE_OFF], tags="reporting")
        report = consolidate(config, store, today=TODAY)
        by_evidence = {tuple(d.evidence): d.path[:-3] for d in report.drafts}
    assert set(by_evidence) == {tuple(sorted(repo)), tuple(sorted(nginx_t)), tuple(sorted(utc))}, \
        "the two look-alikes are drafted apart, the one-off in none"
    rules = {"repo": by_evidence[tuple(sorted(repo))], "nginx_t": by_evidence[tuple(sorted(nginx_t))],
             "utc": by_evidence[tuple(sorted(utc))]}
    return root, rules, nginx_t


@pytest.fixture
def vault(drafted, tmp_path):
    from brainwork.config import load_config
    from brainwork.store import Store

    root, rules, nginx_t = drafted
    copy = tmp_path / "vault"
    shutil.copytree(root, copy)
    config = load_config(copy)
    store = Store(config.store)
    try:
        yield config, store, rules, nginx_t
    finally:
        store.close()


def test_a_rejected_lesson_is_not_handed_to_its_look_alike_rule(vault):
    config, store, rules, nginx_t = vault
    repo_rule, nginx_rule = rules["repo"], rules["nginx_t"]
    approve(config, store, repo_rule, today=TODAY)
    reject(config, store, nginx_rule, "moving to Caddy", today=TODAY)

    report = consolidate(config, store, today=TODAY, dry_run=True)
    assert not [c for c in report.clusters if set(nginx_t) & set(c.corrections)], \
        "the rejected corrections are proposed as nothing: no evidence, no draft"
    assert report.suppressed == [{"corrections": sorted(nginx_t), "rejected": [nginx_rule]}]

    # written, too: the rejected corrections are not marked clustered again
    consolidate(config, store, today=TODAY)
    assert {r.id: r.status for r in list_rules(store) if r.id != rules["utc"]} == {repo_rule: "active", nginx_rule: "rejected"}
def test_a_new_correction_joining_the_rejected_lesson_drafts_it_again(vault):
    config, store, rules, nginx_t = vault
    repo_rule, nginx_rule = rules["repo"], rules["nginx_t"]
    approve(config, store, repo_rule, today=TODAY)
    reject(config, store, nginx_rule, "moving to Caddy", today=TODAY)
    (later,) = add(config, store, [NGINX_T_LATER])

    report = consolidate(config, store, today=TODAY, dry_run=True)
    joined = [c for c in report.clusters if later in c.corrections]
    assert [(c.action, c.rule, sorted(c.corrections)) for c in joined] == [("new", None, sorted(nginx_t + [later]))]
    assert not report.suppressed


def _for(report, correction):
    return [(c.action, c.rule) for c in report.clusters if correction in c.corrections]


def test_a_rephrased_repeat_is_evidence_for_its_own_look_alike_rule(vault):
    config, store, rules, _ = vault
    for name in ("repo", "nginx_t", "utc"):
        approve(config, store, rules[name], today=ACTIVATED)
    (repo_later,) = add(config, store, [REPO_LATER])
    (nginx_later,) = add(config, store, [NGINX_T_LATER])
    (utc_later,) = add(config, store, [UTC_LATER], tags="logs,incident")

    report = consolidate(config, store, today=TODAY, dry_run=True)
    assert _for(report, repo_later) == [("evidence", rules["repo"])]
    assert _for(report, nginx_later) == [("evidence", rules["nginx_t"])]
    assert _for(report, utc_later) == [("evidence", rules["utc"])]


def test_a_one_off_beside_a_repeat_is_not_the_rules_evidence(vault):
    config, store, rules, _ = vault
    approve(config, store, rules["utc"], today=ACTIVATED)
    (utc_later,) = add(config, store, [UTC_LATER], tags="logs,incident")
    iso = next(c["id"] for c in q.corrections(store) if "11-18-26" in c["id"])

    report = consolidate(config, store, today=TODAY, dry_run=True)
    assert _for(report, utc_later) == [("evidence", rules["utc"])]
    # whatever it is clustered with, it does not teach the rule's lesson
    assert [c.action for c in report.clusters if iso in c.corrections] == []


def test_a_pass_undone_is_forgotten_and_the_next_pass_repeats_it(vault):
    from brainwork.ops import changeset

    config, store, rules, _ = vault
    approve(config, store, rules["utc"], today=ACTIVATED)
    add(config, store, [UTC_LATER], tags="logs,incident")
    add(config, store, CUSTOMER_LOCAL, tags="customer")

    first = consolidate(config, store, today=TODAY)
    assert first.operation is not None and first.new == 3
    changeset.undo(config, store)
    again = consolidate(config, store, today=TODAY)
    assert (again.read, again.new) == (first.read, first.new) == (again.read, 3)
    assert [c.to_json() for c in again.clusters] == [c.to_json() for c in first.clusters]
    assert [d.text for d in again.drafts] == [d.text for d in first.drafts]

    # a redo puts the pass back: nothing is new after it
    changeset.undo(config, store)
    changeset.redo(config, store)
    assert consolidate(config, store, today=TODAY, dry_run=True).new == 0
