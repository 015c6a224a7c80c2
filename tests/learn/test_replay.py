"""The replay on a small vault with known answers, and on sample_vault/.

The small vault (all of March 2026, real store, real model):

- ``rules/chain`` (active since 03-10) from two certificate-chain
  corrections (tasks 03-01, 03-05). One more renewal before (03-07, not
  corrected); three after (03-12, 03-14 with an unrelated kubectl slip,
  03-16), none corrected for the chain: before 1 of 3 tasks got the lesson
  again, after 0 of 3 -> fewer repeats after.
- ``rules/backup`` (active since 03-10) from two backup corrections, the
  second on a task dated the approval day (evidence: never "after"). One
  more migration before (03-04); after, migrations on 03-12 and 03-16 got
  backup corrections again (open, linked to no rule) and the one on 05-20
  none; a dismissed backup correction on 03-14 never counts: before 1/3,
  after 2/4 -> no fewer repeats after.
- ``rules/ci-log`` approved on 03-20 from corrections on tasks of 03-18
  and 03-20 ("today"): no task after -> too little data.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.learn.embed import embed_pages
from brainwork.learn.prune import suggestions
from brainwork.learn.replay import FEWER, NOT_ACTIVE, NOT_FEWER, SLIGHTLY_FEWER, TOO_LITTLE, replay
from brainwork.learn.rules import overview
from brainwork.store import Store
from brainwork.store import learning as q
from brainwork.store import recall as rstore

CHAIN, BACKUP, CI = "rules/chain", "rules/backup", "rules/ci-log"


def task(day: str, slug: str, title: str, request: str, tags: str) -> tuple[str, str]:
    return f"tasks/{day}-{slug}.md", (
        f"---\ntitle: {title}\ntype: task\ncreated: {day}\ntags: [{tags}]\nrequest: {request}\n---\n\n{request}\n"
    )


def correction(day: str, slug: str, task_id: str, wrong: str, correct: str, status: str, tags: str) -> tuple[str, str]:
    return f"corrections/{day}-{slug}.md", (
        f"---\ntitle: {slug.replace('-', ' ')}\ntype: correction\ncreated: {day}\ntags: [{tags}]\n"
        f"wrong: \"{wrong}\"\ncorrect: \"{correct}\"\nstatus: {status}\ncorrects: \"[[{task_id}]]\"\n---\n"
    )


def rule(slug: str, title: str, text: str, why: str, activated: str, evidence: list[str]) -> tuple[str, str]:
    links = "".join(f'  - "[[{e}]]"\n' for e in evidence)
    return f"rules/{slug}.md", (
        f"---\ntitle: {title}\ntype: rule\ncreated: {activated}\nstatus: active\nactivated: {activated}\n"
        f"rule: \"{text}\"\nwhy: \"{why}\"\npromoted_from:\n{links}---\n\n{text}\n"
    )


CERT_TAGS = "tls, certificates"
DB_TAGS = "migration, postgres"


def _files() -> dict[str, str]:
    pages = [
        # certificate renewals
        task("2026-03-01", "renew-cert-api", "Renew the TLS certificate for api.example.com",
             "Renew the TLS certificate for api.example.com before it expires.", CERT_TAGS),
        task("2026-03-05", "renew-cert-portal", "Renew the TLS certificate for portal.example.com",
             "Renew the TLS certificate for portal.example.com before it expires.", CERT_TAGS),
        task("2026-03-07", "renew-cert-shop", "Renew the TLS certificate for shop.example.com",
             "Renew the TLS certificate for shop.example.com, due next week.", CERT_TAGS),
        task("2026-03-12", "renew-cert-edi", "Renew the TLS certificate for edi.example.com",
             "Renew the TLS certificate for edi.example.com before it expires.", CERT_TAGS),
        task("2026-03-14", "renew-cert-ingress", "Renew the TLS certificate on the staging ingress",
             "Renew the TLS certificate on the kubernetes staging ingress.", CERT_TAGS + ", kubernetes"),
        task("2026-03-16", "renew-cert-mail", "Renew the TLS certificate for mail.example.com",
             "Renew the TLS certificate for mail.example.com before it expires.", CERT_TAGS),
        correction("2026-03-01", "serve-full-chain", "tasks/2026-03-01-renew-cert-api",
                   "Configured only the leaf certificate; the server sent no intermediate certificate.",
                   "Serve the full certificate chain and check the chain the server presents with openssl s_client.",
                   "promoted", CERT_TAGS),
        correction("2026-03-05", "stale-intermediate", "tasks/2026-03-05-renew-cert-portal",
                   "Served an outdated intermediate certificate in the chain bundle.",
                   "Check the certificate chain the server presents: leaf, then the current intermediate, up to a trusted root.",
                   "promoted", CERT_TAGS),
        correction("2026-03-14", "kube-context", "tasks/2026-03-14-renew-cert-ingress",
                   "Ran kubectl without --context and queried the production cluster.",
                   "Always pass --context for the intended cluster.", "open", "kubernetes"),
        # migrations
        task("2026-03-02", "migrate-add-index", "Add an index on orders in production",
             "Add an index on orders(customer_id) in the production database.", DB_TAGS),
        task("2026-03-04", "migrate-currency", "Add a currency column to invoices",
             "Add a currency column to the invoices table in production.", DB_TAGS),
        task("2026-03-10", "migrate-backfill", "Backfill customer regions",
             "Backfill the region column for all customers in production.", DB_TAGS),
        task("2026-03-12", "migrate-archive", "Move old orders to an archive partition",
             "Move orders older than 2023 into an archive partition in production.", DB_TAGS),
        task("2026-03-14", "migrate-sessions", "Make the sessions table unlogged",
             "Convert the sessions table to unlogged in production.", DB_TAGS),
        task("2026-03-16", "migrate-emails", "Lowercase user emails",
             "Lowercase all user emails in production and merge duplicates.", DB_TAGS),
        task("2026-05-20", "migrate-drop-columns", "Drop legacy columns from orders",
             "Drop the legacy region columns from the orders table in production.", DB_TAGS),
        correction("2026-03-02", "backup-before-index", "tasks/2026-03-02-migrate-add-index",
                   "Changed the production database without taking a backup first.",
                   "Take a backup of the affected tables and check it can be restored before a production migration.",
                   "promoted", DB_TAGS),
        correction("2026-03-10", "dry-run-backfill", "tasks/2026-03-10-migrate-backfill",
                   "Ran the backfill on production without a backup or a dry run.",
                   "Back up the table and rehearse the migration on a copy before running it on production.",
                   "promoted", DB_TAGS),
        correction("2026-03-12", "no-rollback", "tasks/2026-03-12-migrate-archive",
                   "Moved rows on production without a backup or a rollback path.",
                   "Save the data in a restorable backup and rehearse on a copy before a production migration.",
                   "open", DB_TAGS),
        correction("2026-03-14", "backup-withdrawn", "tasks/2026-03-14-migrate-sessions",
                   "Changed the production table without a backup.",
                   "Take a backup before changing a production table.", "dismissed", DB_TAGS),
        correction("2026-03-16", "empty-dump", "tasks/2026-03-16-migrate-emails",
                   "Treated an empty dump file as a backup before the production migration.",
                   "Check the backup can be restored (size, pg_restore --list) before running the migration.",
                   "open", DB_TAGS),
        # CI, approved "today"
        task("2026-03-18", "fix-ci-api", "Fix red CI on the api repository",
             "CI on the api main branch is red; get it green.", "ci, testing"),
        task("2026-03-20", "fix-ci-portal", "Fix red CI on the portal repository",
             "CI on the portal main branch is red; get it green.", "ci, testing"),
        correction("2026-03-18", "read-log-api", "tasks/2026-03-18-fix-ci-api",
                   "Re-ran the failed CI job without reading its log.",
                   "Read the failing job's log and name the cause before re-running it.", "promoted", "ci"),
        correction("2026-03-20", "read-log-portal", "tasks/2026-03-20-fix-ci-portal",
                   "Re-ran the failed CI job twice without reading the log.",
                   "Read the CI log and state the failure cause before any re-run.", "promoted", "ci"),
        rule("chain", "Verify the served certificate chain",
             "After any certificate change, inspect the chain the server actually presents: leaf, current intermediate, trusted root.",
             "Renewals produced valid leaves with broken chains.", "2026-03-10",
             ["corrections/2026-03-01-serve-full-chain", "corrections/2026-03-05-stale-intermediate"]),
        rule("backup", "Back up and rehearse before a production migration",
             "Before any change on a production database, take a backup, verify it restores and rehearse the change on a copy.",
             "Migrations ran on production without a way back.", "2026-03-10",
             ["corrections/2026-03-02-backup-before-index", "corrections/2026-03-10-dry-run-backfill"]),
        rule("ci-log", "Read the CI log before re-running",
             "When a CI job fails, read its log and state the cause before re-running anything.",
             "Re-runs hid real failures.", "2026-03-20",
             ["corrections/2026-03-18-read-log-api", "corrections/2026-03-20-read-log-portal"]),
    ]
    return dict(pages)


@pytest.fixture(scope="module")
def known(tmp_path_factory, embedder):
    root = tmp_path_factory.mktemp("replay") / "vault"
    for rel, text in _files().items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    config = load_config(root)
    store = Store(config.store)
    sync(config, store)
    embed_pages(config, store)
    try:
        yield config, store, replay(config, store)
    finally:
        store.close()


def _ids(side) -> list[str]:
    return [t.rsplit("/", 1)[-1] for t in side.tasks]


def test_counts_and_rates(known):
    _, _, rep = known
    assert rep.tasks == 15 and rep.undated_tasks == 0
    assert rep.corrections == 9  # the dismissed one never counts
    chain = rep.lesson(CHAIN)
    assert _ids(chain.before) == ["2026-03-01-renew-cert-api", "2026-03-05-renew-cert-portal", "2026-03-07-renew-cert-shop"]
    assert _ids(chain.after) == ["2026-03-12-renew-cert-edi", "2026-03-14-renew-cert-ingress", "2026-03-16-renew-cert-mail"]
    assert (len(chain.before.repeated), len(chain.after.repeated)) == (1, 0)
    assert chain.before.rate == pytest.approx(1 / 3) and chain.after.rate == 0.0
    assert chain.verdict == FEWER
    # the kubectl slip on a renewal is not a chain lesson
    assert "corrections/2026-03-14-kube-context" not in chain.corrections

    backup = rep.lesson(BACKUP)
    assert _ids(backup.before) == ["2026-03-02-migrate-add-index", "2026-03-04-migrate-currency", "2026-03-10-migrate-backfill"]
    assert _ids(backup.after) == [
        "2026-03-12-migrate-archive", "2026-03-14-migrate-sessions", "2026-03-16-migrate-emails",
        "2026-05-20-migrate-drop-columns",
    ]
    assert [t.rsplit("/", 1)[-1] for t in backup.after.repeated] == ["2026-03-12-migrate-archive", "2026-03-16-migrate-emails"]
    assert backup.before.rate == pytest.approx(1 / 3) and backup.after.rate == 0.5
    assert backup.verdict == NOT_FEWER
    # open corrections linked to no rule join the lesson by similarity; the dismissed one does not
    assert set(backup.corrections) == {
        "corrections/2026-03-02-backup-before-index", "corrections/2026-03-10-dry-run-backfill",
        "corrections/2026-03-12-no-rollback", "corrections/2026-03-16-empty-dump",
    }
    # later tasks of the kind joined the class though nobody corrected them
    why = {t.task.rsplit("/", 1)[-1]: t.why for t in backup.task_class}
    assert why["2026-05-20-migrate-drop-columns"] in ("similar", "tags")
    assert why["2026-03-04-migrate-currency"] in ("similar", "tags")


def test_repeats_and_the_lesson_in_the_room(known):
    _, _, rep = known
    by = {r.correction.rsplit("/", 1)[-1]: r for r in rep.repeats}
    # the first correction of a lesson is no repeat
    assert set(by) == {"2026-03-05-stale-intermediate", "2026-03-10-dry-run-backfill", "2026-03-12-no-rollback",
                       "2026-03-16-empty-dump", "2026-03-20-read-log-portal"}
    # after activation the rule was in the agent's context
    assert by["2026-03-12-no-rollback"].via == "doctrine" and by["2026-03-16-empty-dump"].via == "doctrine"
    # evidence the rule was approved from was not (the rule came from it), even on the approval day
    for c in ("2026-03-10-dry-run-backfill", "2026-03-20-read-log-portal", "2026-03-05-stale-intermediate"):
        assert by[c].via != "doctrine"
    # recall of a renewal request surfaces the earlier renewal and its chain correction
    assert by["2026-03-05-stale-intermediate"].via == "recall"
    assert rep.in_room == sum(1 for r in rep.repeats if r.in_room)
    assert rep.in_room_rate == pytest.approx(rep.in_room / 5)
    data = rep.to_json()
    assert data["repeat_corrections"] == 5 and data["in_room_by"]["doctrine"] == 2


def test_evidence_never_after_and_approved_today_has_no_after(known):
    _, store, rep = known
    task_of = {c["id"]: c["tasks"] for c in q.corrections(store)}
    backup = rep.lesson(BACKUP)
    # the backfill task is dated the approval day and holds evidence: it is "before"
    assert "tasks/2026-03-10-migrate-backfill" in backup.before.tasks
    for lesson in rep.lessons:
        assert sorted(lesson.approved_from) == sorted(lesson.evidence)
        held = {t for c in lesson.approved_from for t in task_of[c]}
        assert held <= set(lesson.before.tasks)
        assert not held & set(lesson.after.tasks)
    ci = rep.lesson(CI)
    assert ci.activated == "2026-03-20"
    assert ci.after.tasks == []
    assert _ids(ci.before) == ["2026-03-18-fix-ci-api", "2026-03-20-fix-ci-portal"]
    assert ci.verdict == TOO_LITTLE


def test_too_little_data_below_the_minimum_sample(known):
    config, store, _ = known
    strict = replace(config, thresholds=replace(config.thresholds, replay_min_tasks=4))
    rep = replay(strict, store)
    assert rep.lesson(CHAIN).verdict == TOO_LITTLE  # 3 tasks a side
    assert rep.lesson(BACKUP).verdict == TOO_LITTLE  # 3 before
    # a drop of less than the margin is no improvement: chain 1/3 -> 0/3 spares one task
    demanding = replace(config, thresholds=replace(config.thresholds, replay_min_fewer_tasks=1.5))
    assert replay(demanding, store).lesson(CHAIN).verdict == SLIGHTLY_FEWER


def test_stale_when_the_task_class_goes_quiet(known):
    config, store, rep = known
    # every recall serves every active rule: hits must not keep a rule alive
    rstore.record_hits(store, [(CHAIN, "rule"), (BACKUP, "rule"), (CI, "rule")], "renew a certificate", "2026-06-29T10:00:00+00:00")
    out = suggestions(config, store, today="2026-06-30", report=rep)
    retire = {s.rules[0]: s for s in out if s.kind == "retire"}
    # the chain class went quiet after 03-16; migrations went on until 05-20 (41 days)
    assert CHAIN in retire and retire[CHAIN].last_activity == "2026-03-16" and retire[CHAIN].days == 106
    assert BACKUP not in retire
    assert CI in retire and retire[CI].last_activity == "2026-03-20"
    assert not [s for s in out if s.kind == "merge"]  # three different lessons
    assert suggestions(config, store, today="2026-04-01", report=rep) == []


def test_two_rules_teaching_the_same_lesson_are_proposed_for_a_merge(make_vault, embedder):
    files = dict([
        rule("chain", "Verify the served certificate chain",
             "After any certificate change, inspect the chain the server actually presents: leaf first, "
             "correct current intermediate, path to a trusted root, and test it against old clients.",
             "Renewals produced valid leaves with broken chains; browsers hid it and strict clients failed.",
             "2026-03-10", []),
        rule("chain-check", "Check the chain clients get after a renewal",
             "After renewing or rotating a certificate, check the chain the server really serves from outside: "
             "leaf, then the current intermediate, up to a trusted root, including old clients.",
             "Several renewals kept breaking the chain while the leaf looked fine.", "2026-04-02", []),
        rule("backup", "Back up and rehearse before a production migration",
             "Before any change on a production database, take a backup, verify it restores and rehearse the change on a copy.",
             "Migrations ran on production without a way back.", "2026-03-10", []),
    ])
    config = load_config(make_vault(files))
    with Store(config.store) as store:
        sync(config, store)
        out = suggestions(config, store, today="2026-04-10")
    merges = [s for s in out if s.kind == "merge"]
    assert len(merges) == 1 and set(merges[0].rules) == {CHAIN, "rules/chain-check"}
    assert merges[0].similarity >= config.thresholds.rule_overlap_similarity
    assert not [s for s in out if s.kind == "retire"]


# -- sample_vault/: the story it tells -------------------------------------------------
SAMPLE_CERT = "rules/verify-full-cert-chain"
SAMPLE_BACKUP = "rules/backup-and-dry-run-before-migration"


def test_sample_vault_one_rule_with_fewer_repeats_after_and_one_without(embedded_sample):
    config, store = embedded_sample
    rep = replay(config, store)
    cert, backup = rep.lesson(SAMPLE_CERT), rep.lesson(SAMPLE_BACKUP)
    assert cert.verdict == FEWER and backup.verdict == NOT_FEWER
    assert (len(cert.before.repeated), len(cert.before.tasks), len(cert.after.repeated), len(cert.after.tasks)) == (4, 5, 0, 6)
    assert (len(backup.before.repeated), len(backup.before.tasks), len(backup.after.repeated), len(backup.after.tasks)) == (2, 5, 3, 5)
    # later renewals and migrations are of the class though nobody corrected them
    cert_class = {t.task for t in cert.task_class}
    assert {"tasks/2026-10-13-renew-cert-billing-api", "tasks/2026-10-28-renew-cert-edge-proxy"} <= cert_class
    assert not any("migrate" in t or "blog" in t for t in cert_class)
    backup_class = {t.task for t in backup.task_class}
    assert "tasks/2026-10-19-migrate-drop-legacy-columns" in backup_class
    assert not any("renew-cert" in t or "blog" in t for t in backup_class)
    # candidates: figures so far, no verdict
    assert rep.lesson("rules/cite-sources-in-posts").verdict == NOT_ACTIVE
    # 3 by doctrine, 11 by recall as recall ranks (situation and lesson terms included)
    assert len(rep.repeats) == 17 and rep.in_room == 14


def test_rules_json_carries_the_replay_and_no_verdict_of_help(embedded_sample):
    config, store = embedded_sample
    data = overview(config, store, today="2026-11-29")
    by_id = {r["id"]: r for r in data["rules"]}
    assert by_id[SAMPLE_CERT]["replay"]["verdict"] == FEWER
    assert by_id[SAMPLE_BACKUP]["replay"]["verdict"] == NOT_FEWER
    assert "helped" not in by_id[SAMPLE_CERT]
    assert by_id["rules/verify-leaf-cert"]["replay"] is None  # no evidence: no lesson
    assert data["replay"]["repeat_corrections"] == 17
    assert data["pruning"] == []  # both classes had tasks in October
    later = suggestions(config, store, today="2027-06-01")
    assert {s.rules[0] for s in later if s.kind == "retire"} == {SAMPLE_CERT, SAMPLE_BACKUP}


def test_recall_in_the_room_is_what_recall_serves(known, make_vault, embedder):
    """For each repeat not covered by the doctrine, the replay's "in the room
    via recall" agrees with recall's own ranking (``recall.rank_tasks``) run
    on a vault holding only the pages dated before the repeat's task."""
    from brainwork.learn.recall import rank_tasks, task_corrections
    from brainwork.learn.replay import _fields, request_text

    _, _, rep = known
    files = _files()
    checked = 0
    for r in rep.repeats:
        if r.via == "doctrine" or r.task is None:
            continue
        day = r.date
        prior = {rel: text for rel, text in files.items()
                 if rel.startswith(("tasks/", "corrections/")) and rel.split("/", 1)[1][:10] < day}
        config = load_config(make_vault(prior))
        with Store(config.store) as store:
            sync(config, store)
            embed_pages(config, store)
            t = next(x for x in q.tasks(known[1]) if x["id"] == r.task)
            fields = _fields(rstore.task_rows(known[1], [r.task])[0]["fields"])
            kept, _ = rank_tasks(config, store, request_text(t["title"], fields), embedder)
            served = {c for cs in task_corrections(store, [k.id for k in kept]).values() for c in cs}
        lesson = set(rep.lesson(r.lesson).corrections)
        assert (r.via == "recall") == bool(served & lesson), (r.correction, sorted(served))
        checked += 1
    assert checked >= 2
