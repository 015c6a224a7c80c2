"""Synthetic vault generator for the benchmarks.

``python -m benchmarks.synth OUT --pages N [--seed S] [--hub] [--force]``
or, from Python, :func:`generate`.

What it writes (deterministic for a given ``n`` and ``seed``; only file
modification times differ between runs):

- a realistic type mix (see :data:`TYPE_WEIGHTS`): tasks, corrections,
  sources, tools, decisions, artifacts, rules, the thing types of
  :mod:`brainwork.vocabulary`, and ~1% untyped notes; one folder per type;
- YAML frontmatter with the type's key fields, ``created`` dates spread over
  one year, tags, aliases on some thing pages, and typed edges written the way
  agents write them (``used``, ``cited``, ``produced`` on tasks, ``corrects``
  on corrections, ``promoted_from``/``supersedes`` on rules, ``produced_by``
  on some artifacts, ``cited`` on decisions);
- about three links per page (frontmatter edges plus body wikilinks, in the
  forms Obsidian users write: ``[[name]]``, ``[[name|label]]``,
  ``[[name#Heading]]``, ``[[folder/name]]``, relative Markdown links), about
  3% of them dead;
- bodies of 300-2000 characters of varied prose composed from word lists and
  sentence templates (no two bodies share long runs of text, except the
  deliberate near-duplicate pairs), headings, bullet lists, and occasional
  inline code and fenced code blocks (so the Markdown tokeniser runs on
  about as many pages as in a real vault);
- corrections, most of them (70-85%) in recurring *clusters*: several
  corrections of one mistake (the same check skipped before the same kind of
  work; 36 checks x 18 kinds of work), each phrased differently; the others
  one-offs whose mistake no other correction shares; rules promoted from some
  clusters;
- a few deliberate quality problems: near-duplicate pairs, stubs, diary
  titles ("Ticket 4711 of 29.07.2025: ...");
- optionally (``hub=True``) one hub page ``systems/platform-hub`` with
  exactly 500 edges (450 pages declare they ``used`` it, and it links to 50
  pages from its body) for the neighbourhood benchmark;
- ``OUT/.synth.json``, a manifest the benchmarks read: the ground truth
  (ids by type, clusters, duplicate pairs, the hub). Hidden files are not
  indexed, so it never shows up as a page.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sys
import time
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

from brainwork.vocabulary import EDGE_KEYS, PAGE_TYPES, THING_TYPES

MANIFEST = ".synth.json"

#: Share of each page type (sums to 1). Roughly what a year of an agent's
#: work memory holds: many tasks, a correction for every other task, fewer
#: rules, and the things the records are about.
TYPE_WEIGHTS: dict[str | None, float] = {
    "task": 0.30,
    "correction": 0.14,
    "source": 0.09,
    "tool": 0.04,
    "decision": 0.07,
    "artifact": 0.09,
    "rule": 0.05,
    "customer": 0.04,
    "project": 0.04,
    "system": 0.05,
    "person": 0.04,
    "problem": 0.03,
    "topic": 0.01,
    None: 0.01,  # untyped notes
}

START = date(2025, 1, 1)
HUB_ID = "systems/platform-hub"
HUB_IN, HUB_OUT = 450, 50

# --------------------------------------------------------------------------
# Word lists
# --------------------------------------------------------------------------
ADJ = (
    "stale broken flaky slow partial expired missing duplicate noisy brittle legacy fresh clean "
    "primary secondary nightly weekly internal external public private shared regional staging "
    "production encrypted compressed versioned cached throttled degraded healthy verbose silent "
    "manual automatic incremental full rolling blue green canary strict lenient default custom "
    "upstream downstream temporary permanent archived orphaned unsigned signed sparse dense"
).split()
NOUN = (
    "certificate chain bundle pipeline runner job queue worker cluster node replica shard index "
    "schema table column migration backfill snapshot backup restore dump export import report "
    "dashboard alert metric log trace span release tag branch commit build artifact image "
    "container volume disk quota limit budget invoice contract ticket request endpoint gateway "
    "proxy cache token secret key credential role policy permission bucket topic stream partition "
    "offset consumer producer scheduler cron timer webhook callback payload header cookie session "
    "template draft outline paragraph figure quote citation reference changelog runbook checklist "
    "playbook handover estimate deadline milestone dependency lockfile manifest config flag"
).split()
VERB = (
    "checked rebuilt restarted rotated renewed migrated patched reviewed drafted rewrote traced "
    "profiled benchmarked pinned upgraded downgraded archived pruned exported imported verified "
    "compared measured documented escalated reverted merged split tagged scheduled paused resumed "
    "cleaned validated replayed sampled filtered deployed promoted audited summarised"
).split()
GERUND = (
    "renewing deploying migrating publishing rotating restoring backfilling releasing merging "
    "closing reviewing scaling upgrading archiving importing exporting benchmarking rebuilding "
    "reindexing announcing invoicing onboarding offboarding patching"
).split()
ADVERB = (
    "quickly carefully again finally eventually twice manually automatically partly quietly "
    "overnight early late first later briefly"
).split()
PLACE_A = (
    "north south east west alpha beta gamma delta orion vega lyra atlas helios kestrel falcon "
    "heron osprey cedar maple birch willow granite basalt quartz cobalt copper amber"
).split()
PLACE_B = (
    "billing auth orders search ledger mail media edge data report sync notify export import "
    "payments identity catalog inventory analytics metrics events archive storage"
).split()
SYS_SUFFIX = "api gateway service db worker queue cluster store proxy bus portal cache".split()
TOOL_NAMES = (
    "certbot openssl kubectl terraform ansible helm pg-dump psql redis-cli jq yq curl rsync "
    "restic borg git gh pytest tox ruff mypy black poetry pip-tools docker podman buildah "
    "grafana prometheus loki tempo sentry pagerduty vault sops age gpg ssh tmux make cmake "
    "ripgrep fd sqlite3 duckdb pandoc hugo mkdocs sphinx vale languagetool"
).split()
FIRST = (
    "Sam Marco Ana Lena Priya Tomasz Ingrid Kofi Mei Yusuf Clara Diego Hanna Omar Sofia Nils "
    "Aiko Bruno Elif Jonas Leila Mateo Nora Pavel Rosa Stefan Tara Viktor Wen Zara"
).split()
LAST = (
    "Rossi Novak Okafor Lindqvist Tanaka Haddad Moreau Schmidt Kowalski Silva Patel Nakamura "
    "Jensen Costa Weber Ivanova Brennan Fischer Larsen Duarte Sato Horvat Keller Mensah"
).split()
COMPANY = (
    "Northwind Acme Globex Initech Umbrella Stark Wayne Tyrell Cyberdyne Hooli Vandelay Soylent "
    "Wonka Oscorp Gringotts Monarch Aperture Massive Dynamic Pied Piper"
).split()
COMPANY_KIND = "Freight Logistics Health Bank Retail Energy Media Labs Insurance Foods Travel Systems".split()
TOPICS = (
    "observability", "incident response", "release engineering", "data quality", "cost control",
    "access control", "documentation style", "technical writing", "capacity planning", "on-call hygiene",
    "dependency updates", "backup strategy", "schema design", "API versioning", "test flakiness",
    "performance budgets",
)
TAGS = (
    "tls certificates ci postgres migration writing blog billing auth kubernetes terraform backup "
    "oncall latency security docs release data search cost review infra python rust frontend"
).split()
DATASETS = "orders invoices customers events sessions payments shipments accounts logs metrics".split()

# Task classes: recurring kinds of work (title template, request template).
TASK_CLASSES = (
    ("Renew TLS certificate for {sys}", "Renew the certificate on {sys} before it expires on {date}."),
    ("Fix failing CI pipeline on {proj}", "The {proj} pipeline is red since {date}; get it green again."),
    ("Migrate {data} from {sys} to {sys2}", "Move the {data} tables off {sys} onto {sys2} without downtime."),
    ("Write blog post about {topic}", "Draft a post on {topic} for the engineering blog, about 1,200 words."),
    ("Investigate latency spike in {sys}", "p99 latency on {sys} doubled on {date}; find out why."),
    ("Upgrade {tool} on {sys}", "Bring {tool} on {sys} to the current release and check nothing regressed."),
    ("Rotate API keys for {cust}", "Rotate every API key {cust} uses and hand over the new ones securely."),
    ("Backfill {data} for {cust}", "Backfill the missing {data} rows for {cust} from the archive."),
    ("Review pull request for {proj}", "Review the open pull request on {proj} and leave actionable comments."),
    ("Draft quarterly report for {cust}", "Summarise the quarter's incidents and changes for {cust}."),
    ("Restore {data} backup on {sys}", "Restore last night's {data} backup on {sys} and verify row counts."),
    ("Set up alerting for {sys}", "Add alerts for error rate and saturation on {sys}."),
)

SENTENCES = (
    "The {adj} {noun} on {thing} had to be {verb} before anything else.",
    "We {verb} the {noun} {adverb} and the {adj} {noun2} stopped showing up in the logs.",
    "While {gerund} the {noun}, the {noun2} turned out to be {adj}.",
    "{person} asked whether the {adj} {noun} could wait until after {gerund} the {noun2}.",
    "Nobody had {verb} the {noun2} since the last {noun}, so it was {adj}.",
    "The {noun} count went from {n1} to {n2} after we {verb} the {adj} {noun2}.",
    "A {adj} {noun} is cheaper to fix now than after {gerund} the {noun2}.",
    "I {verb} the {noun} on {thing} and compared it with the {adj} {noun2}.",
    "The {adj} {noun2} explained about {n1} of the {n2} failures we saw.",
    "It took {n1} minutes to {verb_base} the {noun}, mostly waiting on the {adj} {noun2}.",
    "Before {gerund} anything, check that the {noun} and the {noun2} agree.",
    "{person} {verb} the {adj} {noun} and left a note in the {noun2}.",
    "The {noun2} on {thing} still points at the {adj} {noun}, which is wrong.",
    "After {gerund} the {noun}, we {verb} the {noun2} {adverb}.",
    "There were {n1} {adj} {noun}s left in the {noun2}; we {verb} them.",
    "The {noun} is {adj} by design; the {noun2} is not, and that is the real problem.",
    "Keep the {adj} {noun} until the {noun2} has been {verb}.",
    "We could not reproduce the {adj} {noun2} locally, so we {verb} the {noun} on {thing}.",
    "The {adj} {noun} came from {gerund} the {noun2} in the wrong order.",
    "Next time, {verb_base} the {noun2} first and only then touch the {adj} {noun}.",
)
VERB_BASE = (
    "check rebuild restart rotate renew migrate patch review draft rewrite trace profile pin "
    "upgrade archive prune export import verify compare measure document revert merge tag"
).split()
HEADINGS = ("Context", "Steps", "Notes", "What happened", "Follow-up", "Details", "Open questions", "Result")
LINK_SENTENCES = (
    "See {link} for the background.",
    "This follows up on {link}.",
    "The same thing happened in {link}.",
    "{link} has the numbers.",
    "Compare with {link}, which went better.",
    "Details are in {link}.",
    "{person} pointed at {link} as the reference.",
    "We reused the approach from {link}.",
)

# Recurring mistakes: (thing that should have been checked, kinds of work).
CHECKS = (
    ("the full certificate chain", "the intermediate bundle", "what the server actually sends"),
    ("the staging config", "the staging settings", "the config on staging"),
    ("a fresh backup", "a restorable dump", "the latest snapshot"),
    ("a dry run of the migration", "a rehearsal on a copy", "a rolled-back test run"),
    ("the changelog", "the release notes", "the list of breaking changes"),
    ("the timezone of the timestamps", "whether times are in UTC", "the clock offset"),
    ("the disk quota", "the free space on the volume", "the storage limit"),
    ("the feature flag state", "which flags are on", "the flag rollout percentage"),
    ("the schema version", "the applied migrations", "the database revision"),
    ("the DNS TTL", "how long records are cached", "the resolver cache"),
    ("the rate limits", "the API quota", "the request budget"),
    ("the source of each figure", "where the numbers come from", "the citation for the claim"),
    ("the failing test's log", "the first error in the output", "the CI log"),
    ("the owner of the system", "who is on call", "the service owner"),
    ("the lockfile", "the pinned versions", "the dependency tree"),
    ("the customer's contract terms", "the agreed SLA", "the support tier"),
    ("the file encoding", "whether the file is UTF-8", "the byte-order mark"),
    ("the retry policy", "how often the client retries", "the backoff settings"),
    ("the firewall rules", "which ports are open", "the security group"),
    ("the cron schedule", "when the job really runs", "the timer configuration"),
    ("the memory limit", "the container's memory cap", "the OOM threshold"),
    ("the index on the column", "the query plan", "whether the lookup uses an index"),
    ("the secrets in the diff", "credentials in the commit", "tokens in the patch"),
    ("the spelling of the product name", "the style guide", "the house terms"),
    ("the replica lag", "how far behind the replica is", "the replication delay"),
    ("the cache invalidation", "stale entries in the cache", "the cache keys"),
    ("the permissions on the bucket", "who can read the bucket", "the bucket policy"),
    ("the row counts before and after", "the number of rows moved", "the totals on both sides"),
    ("the rollback plan", "how to undo the change", "the way back"),
    ("the monitoring dashboard", "the error rate graph", "the alert panel"),
    ("the licence of the library", "the dependency's licence terms", "whether the licence allows it"),
    ("the character limit", "the length of the field", "the maximum size of the text"),
    ("the recipient list", "who the mail goes to", "the distribution list"),
    ("the date format", "day and month order", "the locale of the dates"),
    ("the health check", "the readiness probe", "the liveness endpoint"),
    ("the open pull requests", "what else is about to merge", "conflicting branches"),
)
WORKS = (
    ("renewing certificates", "a certificate renewal", "reloading the web server"),
    ("deploying to production", "a production deploy", "shipping the release"),
    ("running the migration", "migrating the tables", "a schema change"),
    ("publishing the post", "sending the draft out", "posting the article"),
    ("closing the ticket", "reporting success", "marking the task done"),
    ("re-running the pipeline", "retrying the job", "restarting the build"),
    ("backfilling data", "a bulk import", "loading the archive"),
    ("upgrading the tool", "bumping the version", "an upgrade"),
    ("rotating the keys", "a credential rotation", "replacing the secrets"),
    ("scaling the cluster", "adding nodes", "resizing the pool"),
    ("sending the invoice", "billing the customer", "the monthly invoice run"),
    ("answering the customer", "replying to support", "the customer reply"),
    ("changing the DNS records", "a DNS cut-over", "pointing the domain elsewhere"),
    ("merging the branch", "the merge to main", "landing the pull request"),
    ("deleting old data", "a cleanup of old rows", "pruning the archive"),
    ("restoring the backup", "a restore", "bringing the database back"),
    ("writing the report", "the quarterly summary", "drafting the status update"),
    ("onboarding the new user", "granting access", "creating the account"),
)
WRONG_T = (
    "Skipped {check} before {work}.",
    "Went ahead with {work} without looking at {check}.",
    "Did not verify {check}; started {work} straight away.",
    "Forgot about {check} when {work}.",
    "Assumed {check} was fine and went on with {work}.",
    "{work_cap} happened before anyone had looked at {check}.",
)
CORRECT_T = (
    "Always verify {check} before {work}.",
    "Check {check} first, then proceed with {work}.",
    "Look at {check} as the first step of {work}.",
    "Make {check} part of the checklist for {work}.",
    "No {work} until {check} has been confirmed.",
)
WHY_T = (
    "{work_cap} failed because {check} was wrong.",
    "The problem only showed after {work}, when {check} turned out to be off.",
    "Without {check}, {work} can look successful and still break for users.",
    "{person} had to roll back after {work}; {check} would have caught it.",
    "It cost {n1} hours of clean-up that checking {check} would have saved.",
)


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _slug(text: str) -> str:
    out = []
    dash = False
    for ch in text.lower():
        if ch.isalnum():
            out.append(ch)
            dash = False
        elif not dash:
            out.append("-")
            dash = True
    return "".join(out).strip("-")[:60].rstrip("-")


_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9 .-]*")


def _q(text: str) -> str:
    """A YAML scalar for ``text``: plain when that is unambiguous, else
    double-quoted (safe for any text we generate)."""
    if _PLAIN.fullmatch(text) and not text.endswith((" ", ".")) and text.lower() not in ("yes", "no", "true", "false", "null", "on", "off"):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# --------------------------------------------------------------------------
# Page plans
# --------------------------------------------------------------------------
@dataclass
class Plan:
    id: str
    type: str | None
    title: str
    created: date
    fields: dict[str, str] = field(default_factory=dict)
    aliases: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    edges: dict[str, list[str]] = field(default_factory=dict)  # frontmatter key -> target ids
    body_links: list[str] = field(default_factory=list)  # target ids (or dead names)
    body_len: int = 800
    cluster: int | None = None
    duplicate_of: str | None = None

    @property
    def base(self) -> str:
        return self.id.rsplit("/", 1)[-1]


class _Gen:
    def __init__(self, n: int, seed: int, hub: bool):
        self.n = n
        self.rng = random.Random(seed)
        self.hub = hub and n > 1
        self.plans: list[Plan] = []
        self.by_type: dict[str | None, list[Plan]] = {t: [] for t in TYPE_WEIGHTS}
        self.bases: set[str] = set()
        self.clusters: list[dict] = []
        self.dead = 0
        self.links = 0

    # -- names ---------------------------------------------------------------
    def _unique(self, folder: str, stem: str) -> str:
        stem = _slug(stem) or "page"
        base, k = stem, 2
        while base in self.bases:
            base = f"{stem}-{k}"
            k += 1
        self.bases.add(base)
        return f"{folder}/{base}"

    def _day(self) -> date:
        return START + timedelta(days=self.rng.randrange(365))

    def _system_name(self) -> str:
        r = self.rng
        return f"{r.choice(PLACE_B)}-{r.choice(SYS_SUFFIX)}" if r.random() < 0.7 else f"{r.choice(PLACE_A)}-{r.choice(PLACE_B)}-{r.choice(SYS_SUFFIX)}"

    def _person(self) -> str:
        return f"{self.rng.choice(FIRST)} {self.rng.choice(LAST)}"

    def _customer(self) -> str:
        return f"{self.rng.choice(COMPANY)} {self.rng.choice(COMPANY_KIND)}"

    def _topic(self) -> str:
        return self.rng.choice(TOPICS)

    # -- planning ------------------------------------------------------------
    def plan(self) -> None:
        r = self.rng
        types = list(TYPE_WEIGHTS)
        weights = [TYPE_WEIGHTS[t] for t in types]
        n = self.n - (1 if self.hub else 0)
        # Exact counts by largest remainder, so small vaults still get every type.
        raw = [w * n for w in weights]
        counts = [int(x) for x in raw]
        for i in sorted(range(len(raw)), key=lambda i: raw[i] - counts[i], reverse=True)[: n - sum(counts)]:
            counts[i] += 1
        if self.hub:
            self._add(Plan(HUB_ID, "system", "Platform hub", START, fields={}, tags=["infra"]))
            self.bases.add(HUB_ID.rsplit("/", 1)[-1])
        # Things and tools first: records refer to them.
        order = ["system", "tool", "customer", "project", "person", "problem", "topic", "source",
                 "artifact", "decision", "task", "correction", "rule", None]
        for t in order:
            for _ in range(counts[types.index(t)]):
                getattr(self, f"_plan_{t or 'note'}")()
        self._plan_clusters()
        self._plan_links()
        self._plan_problems()

    def _add(self, p: Plan) -> Plan:
        self.plans.append(p)
        self.by_type[p.type].append(p)
        return p

    def _plan_system(self) -> None:
        name = self._system_name()
        self._add(Plan(self._unique("systems", name), "system", name, self._day(), tags=[self.rng.choice(TAGS)]))

    def _plan_tool(self) -> None:
        r = self.rng
        name = r.choice(TOOL_NAMES)
        p = self._add(Plan(self._unique("tools", name), "tool", name, self._day(), tags=[r.choice(TAGS)]))
        p.fields = {"name": name, "right_choice": r.choice(("yes", "no", "for small jobs", "only with --dry-run"))}

    def _plan_customer(self) -> None:
        name = self._customer()
        p = self._add(Plan(self._unique("customers", name), "customer", name, self._day()))
        if self.rng.random() < 0.5:
            p.aliases = [name.split()[0]]

    def _plan_project(self) -> None:
        r = self.rng
        name = f"{_cap(r.choice(PLACE_A))} {r.choice(PLACE_B)} {r.choice(('rewrite', 'v2', 'migration', 'launch', 'cleanup'))}"
        self._add(Plan(self._unique("projects", name), "project", name, self._day(), tags=[r.choice(TAGS)]))

    def _plan_person(self) -> None:
        name = self._person()
        p = self._add(Plan(self._unique("people", name), "person", name, self._day()))
        if self.rng.random() < 0.3:
            p.aliases = [name.split()[0]]

    def _plan_problem(self) -> None:
        r = self.rng
        name = f"{_cap(r.choice(ADJ))} {r.choice(NOUN)} in {self._system_name()}"
        self._add(Plan(self._unique("problems", name), "problem", name, self._day()))

    def _plan_topic(self) -> None:
        name = _cap(self._topic())
        self._add(Plan(self._unique("topics", name), "topic", name, self._day()))

    def _plan_source(self) -> None:
        r = self.rng
        kind = r.choice(("RFC", "Vendor docs", "Blog post", "Stack Overflow answer", "Internal wiki", "Paper"))
        title = f"{kind}: {r.choice(ADJ)} {r.choice(NOUN)} {r.choice(NOUN)}s"
        p = self._add(Plan(self._unique("sources", title), "source", title, self._day(), tags=[r.choice(TAGS)]))
        p.fields = {
            "ref": f"https://example.org/{_slug(title)}/{r.randrange(10_000)}",
            "reliability": "held-up" if r.random() < 0.8 else "was-wrong",
        }

    def _plan_artifact(self) -> None:
        r = self.rng
        kind = r.choice(("runbook", "script", "report", "draft", "dashboard", "config"))
        title = f"{_cap(r.choice(ADJ))} {r.choice(NOUN)} {kind}"
        p = self._add(Plan(self._unique("artifacts", title), "artifact", title, self._day()))
        p.fields = {"location": f"git@example.org:ops/{_slug(title)}.git", "kind": kind}

    def _plan_decision(self) -> None:
        r = self.rng
        a, b = r.sample(TOOL_NAMES, 2)
        title = f"Use {a} instead of {b} for {r.choice(NOUN)}s"
        p = self._add(Plan(self._unique("decisions", title), "decision", title, self._day(), tags=[r.choice(TAGS)]))
        p.fields = {"choice": a, "reasoning": f"{a} handles {r.choice(ADJ)} {r.choice(NOUN)}s; {b} does not."}

    def _plan_task(self) -> None:
        r = self.rng
        d = self._day()
        title_t, req_t = r.choice(TASK_CLASSES)
        slots = {
            "sys": self._system_name(), "sys2": self._system_name(), "proj": f"{_cap(r.choice(PLACE_A))} {r.choice(PLACE_B)}",
            "data": r.choice(DATASETS), "topic": self._topic(), "tool": r.choice(TOOL_NAMES),
            "cust": self._customer(), "date": (d + timedelta(days=r.randrange(3, 20))).isoformat(),
        }
        title = title_t.format(**slots)
        p = self._add(Plan(self._unique("tasks", f"{d.isoformat()} {title}"), "task", title, d, tags=r.sample(TAGS, 2)))
        outcome = r.choices(("success", "partial", "failed"), (0.7, 0.2, 0.1))[0]
        p.fields = {
            "request": req_t.format(**slots),
            "summary": f"{_cap(r.choice(VERB))} the {r.choice(NOUN)} and {r.choice(VERB)} the {r.choice(ADJ)} {r.choice(NOUN)}.",
            "outcome": outcome,
        }

    def _plan_correction(self) -> None:
        d = self._day()
        self._add(Plan(f"corrections/{d.isoformat()}", "correction", "", d))  # filled in by _plan_clusters

    def _plan_rule(self) -> None:
        self._add(Plan("rules/?", "rule", "", self._day()))  # filled in by _plan_clusters

    def _plan_note(self) -> None:
        r = self.rng
        title = f"{_cap(r.choice(ADJ))} {r.choice(NOUN)} notes"
        self._add(Plan(self._unique("notes", title), None, title, self._day()))

    def _plan_clusters(self) -> None:
        """Give corrections their text: most (70-85%) in recurring clusters
        of 3-12 differently phrased members (one mistake each: a check skipped
        before a kind of work), the rest one-offs with mistakes of their own;
        rules promoted from some clusters. Past ~20,000 pages the 648
        mistakes run out and clusters grow instead."""
        r = self.rng
        corrections = self.by_type["correction"]
        rules = self.by_type["rule"]
        combos = [(c, w) for c in range(len(CHECKS)) for w in range(len(WORKS))]
        r.shuffle(combos)
        # One-offs each get a mistake of their own (a third of the mistakes at
        # most, so clusters keep enough); every other correction is in a
        # cluster, so the manifest's clusters are exactly the recurring ones.
        n_single = min(len(corrections) - int(len(corrections) * 0.7), len(combos) // 3)
        singles = [combos.pop() for _ in range(n_single)]
        pool = corrections[: len(corrections) - n_single]
        members: list[list[Plan]] = []
        combos_of: list[tuple[int, int]] = []
        i = 0
        while len(pool) - i >= 3 and combos:
            left = len(pool) - i
            size = min(r.randint(3, 12), left)
            if left - size < 3 and left <= 12:
                size = left  # no tail too small to be a cluster
            members.append(list(pool[i : i + size]))
            combos_of.append(combos.pop())
            i += size
        rest = pool[i:]
        one_offs = corrections[len(pool) :]
        if members:  # out of mistakes (huge vaults) or a short tail: clusters grow
            for k, p in enumerate(rest):
                members[k % len(members)].append(p)
        else:  # fewer than 3 to cluster
            one_offs = rest + one_offs
            singles.extend(combos.pop() for _ in rest)
        for k, (group, combo) in enumerate(zip(members, combos_of)):
            for p in group:
                p.cluster = k
                self._fill_correction(p, combo)
            self.clusters.append({"check": CHECKS[combo[0]][0], "work": WORKS[combo[1]][0], "ids": [p.id for p in group]})
        for p, combo in zip(one_offs, singles, strict=True):
            self._fill_correction(p, combo)
        tasks = self.by_type["task"]
        for p in corrections:
            if tasks:
                p.edges["corrects"] = [r.choice(tasks).id]
        # Rules: promoted from a cluster where possible, else free-standing.
        order = list(range(len(members)))
        r.shuffle(order)
        prev: list[Plan] = []
        for k, rule in enumerate(rules):
            if k < len(order):
                group = members[order[k]]
                check, work = self.clusters[order[k]]["check"], self.clusters[order[k]]["work"]
                status = r.choices(("active", "candidate", "retired", "rejected"), (0.6, 0.25, 0.1, 0.05))[0]
                rule.edges["promoted_from"] = [p.id for p in group[: r.randint(2, min(5, len(group)))]]
                for p in group:
                    p.fields["status"] = "promoted" if status in ("active", "retired") else "clustered"
            else:
                check, work = r.choice(CHECKS)[0], r.choice(WORKS)[0]
                status = r.choice(("active", "candidate"))
            title = f"Check {check} before {work}"
            rule.id = self._unique("rules", title)
            rule.title = title
            rule.tags = ["rule", r.choice(TAGS)]
            rule.fields = {
                "rule": f"Before {work}, verify {check} and record what you saw.",
                "why": self._sub(r.choice(WHY_T), check, work),
                "apply": f"Every task that involves {work}.",
                "status": status,
            }
            if prev and r.random() < 0.1:
                rule.edges["supersedes"] = [r.choice(prev).id]
            prev.append(rule)

    def _sub(self, template: str, check: str, work: str) -> str:
        return template.format(
            check=check, work=work, work_cap=_cap(work), person=self._person().split()[0],
            n1=self.rng.randint(2, 40),
        )

    def _fill_correction(self, p: Plan, combo: tuple[int, int]) -> None:
        r = self.rng
        check = r.choice(CHECKS[combo[0]])
        work = r.choice(WORKS[combo[1]])
        wrong = self._sub(r.choice(WRONG_T), check, work)
        p.title = wrong.rstrip(".")
        p.id = self._unique("corrections", f"{p.created.isoformat()} {_slug(check)[:24]} {_slug(work)[:20]}")
        p.tags = [r.choice(TAGS)]
        p.fields = {
            "wrong": wrong,
            "correct": self._sub(r.choice(CORRECT_T), check, work),
            "why": self._sub(r.choice(WHY_T), check, work),
            "status": r.choices(("open", "dismissed"), (0.9, 0.1))[0],
        }

    def _plan_links(self) -> None:
        """Typed frontmatter edges per type plus body links, ~3 per page."""
        r = self.rng
        bt = {t: [p for p in v if p.id != HUB_ID] for t, v in self.by_type.items()}  # the hub gets exactly 500
        pools = {
            "uses": bt["tool"] + bt["system"],
            "cite": bt["source"],
            "prod": bt["artifact"] + bt["decision"],
            "thing": bt["customer"] + bt["project"] + bt["system"] + bt["person"] + bt["problem"] + bt["topic"],
        }
        everyone = [p for p in self.plans if p.id != HUB_ID]

        def pick(pool: list[Plan], k: int, me: Plan) -> list[str]:
            out: list[str] = []
            for _ in range(k):
                if not pool:
                    break
                q = r.choice(pool)
                if q is not me and q.id not in out:
                    out.append(q.id)
            return out

        for p in everyone:
            t = p.type
            if t == "task":
                p.edges["used"] = pick(pools["uses"], r.choice((1, 1, 2)), p)
                if r.random() < 0.5:
                    p.edges["cited"] = pick(pools["cite"], 1, p)
                if r.random() < 0.4:
                    p.edges["produced"] = pick(pools["prod"], 1, p)
                nbody = r.choice((0, 1, 1, 2))
            elif t == "decision":
                if r.random() < 0.7:
                    p.edges["cited"] = pick(pools["cite"], 1, p)
                nbody = r.choice((1, 2, 2))
            elif t == "artifact":
                if r.random() < 0.2:
                    p.edges["produced_by"] = pick(bt["task"], 1, p)
                nbody = r.choice((1, 2, 3))
            elif t == "correction":
                nbody = r.choice((1, 2, 2))
            elif t == "rule":
                nbody = r.choice((0, 1))
            else:
                nbody = r.choice((2, 3, 3, 4))
            for _ in range(nbody):
                if r.random() < 0.03:
                    p.body_links.append(f"!dead:{_slug(r.choice(NOUN) + ' ' + r.choice(NOUN))}-{r.randrange(1000)}")
                else:
                    pool = pools["thing"] if r.random() < 0.6 and pools["thing"] else everyone
                    p.body_links.extend(pick(pool, 1, p))
            p.body_len = int(300 * (2000 / 300) ** r.random())  # log-uniform 300..2000
        # The hub: 450 pages declare they used it, it links to 50 from its body.
        if self.hub:
            hub = next(p for p in self.plans if p.id == HUB_ID)
            users = r.sample(everyone, min(HUB_IN, len(everyone)))
            for p in users:
                p.edges.setdefault("used", []).append(HUB_ID)
            used_by = {p.id for p in users}
            rest = [p for p in everyone if p.id not in used_by] or everyone
            hub.body_links = [p.id for p in r.sample(rest, min(HUB_OUT, len(rest)))]
            hub.body_len = 600
        for p in self.plans:
            for targets in p.edges.values():
                self.links += len(targets)
            self.links += len(p.body_links)
            self.dead += sum(1 for t in p.body_links if t.startswith("!dead:"))

    def _plan_problems(self) -> None:
        """Near-duplicate pairs (~0.5%), stubs (~1%), diary titles (~1% of tasks)."""
        r = self.rng
        kinds = [t for t in ("source", "artifact", "decision", "problem", None) if len(self.by_type[t]) >= 2]
        involved: set[str] = set()
        for _ in range(max(1, self.n // 200) if kinds else 0):
            a, b = r.sample(self.by_type[r.choice(kinds)], 2)
            if a.id in involved or b.id in involved:
                continue
            involved.update((a.id, b.id))
            b.duplicate_of = a.id
            b.title = a.title + (" (copy)" if r.random() < 0.5 else "")
            b.fields = dict(a.fields)
        for p in r.sample(self.plans, max(1, self.n // 100)):
            if p.id != HUB_ID and p.duplicate_of is None:
                p.body_len = r.randint(20, 110)
                p.body_links = p.body_links[:1]
        for p in self.by_type["task"][: max(1, len(self.by_type["task"]) // 100)]:
            p.title = f"Ticket {r.randint(1000, 9999)} of {p.created.strftime('%d.%m.%Y')}: {p.title.lower()}"

    # -- rendering -------------------------------------------------------------
    def _link_text(self, target: str, me: Plan) -> str:
        r = self.rng
        if target.startswith("!dead:"):
            return f"[[{target[6:]}]]"
        base = target.rsplit("/", 1)[-1]
        x = r.random()
        if x < 0.55:
            return f"[[{base}]]"
        if x < 0.70:
            label = self.titles.get(target, base).split(":")[-1].strip() or base
            return f"[[{base}|{label}]]"
        if x < 0.80:
            return f"[[{target}]]"
        if x < 0.85:
            return f"[[{base}#{r.choice(HEADINGS)}]]"
        if x < 0.90 and "/" in me.id:
            return f"[{base.replace('-', ' ')}](../{target}.md)"
        return f"[[{base}]]"

    def _sentence(self) -> str:
        r = self.rng
        return r.choice(SENTENCES).format(
            adj=r.choice(ADJ), noun=r.choice(NOUN), noun2=r.choice(NOUN), verb=r.choice(VERB),
            verb_base=r.choice(VERB_BASE), gerund=r.choice(GERUND), adverb=r.choice(ADVERB),
            thing=self._system_name(), person=r.choice(FIRST), n1=r.randint(2, 60), n2=r.randint(61, 900),
        )

    def body(self, p: Plan) -> str:
        r = self.rng
        if p.duplicate_of is not None and p.duplicate_of in self.bodies:
            # A near-duplicate: the other page's text with a few sentences changed.
            sents = self.bodies[p.duplicate_of].split(". ")
            for _ in range(max(1, len(sents) // 10)):
                sents[r.randrange(len(sents))] = self._sentence().rstrip(".")
            return ". ".join(sents)
        parts: list[str] = []
        if r.random() < 0.4:
            parts.append(f"# {p.title}\n")
        links = [self._link_text(t, p) for t in p.body_links]
        size = sum(len(x) for x in parts)
        para: list[str] = []
        heading_next = r.random() < 0.6
        while size < p.body_len:
            if links and r.random() < 0.35:
                s = r.choice(LINK_SENTENCES).format(link=links.pop(), person=r.choice(FIRST))
            else:
                s = self._sentence()
            if r.random() < 0.04:
                s = s.rstrip(".") + f", using `{r.choice(TOOL_NAMES)} --{r.choice(NOUN)}`."
            para.append(s)
            size += len(s) + 1
            if len(para) >= r.randint(2, 5):
                parts.append(" ".join(para) + "\n")
                para = []
                if heading_next and size < p.body_len - 200:
                    parts.append(f"## {r.choice(HEADINGS)}\n")
                    heading_next = r.random() < 0.3
                elif r.random() < 0.15:
                    parts.append("\n".join(f"- {self._sentence()}" for _ in range(r.randint(2, 4))) + "\n")
                    size += 150
        if para:
            parts.append(" ".join(para) + "\n")
        if links:
            parts.append("Related: " + ", ".join(links) + "\n")
        if r.random() < 0.03:
            parts.append(f"```sh\n{r.choice(TOOL_NAMES)} --{r.choice(NOUN)} {r.choice(ADJ)}\n```\n")
        text = "\n".join(parts)
        if p.body_len < 120 and len(text) > p.body_len + 40:  # stubs stay stubs
            text = text[: p.body_len].rsplit(" ", 1)[0] + ".\n"
        return text

    def render(self, p: Plan) -> tuple[str, str]:
        """``(frontmatter block with fences and blank line, body)``."""
        r = self.rng
        lines = ["---", f"title: {_q(p.title)}"]
        if p.type:
            lines.append(f"type: {p.type}")
        lines.append(f"created: {p.created.isoformat()}")
        if r.random() < 0.2:
            lines.append(f"updated: {(p.created + timedelta(days=r.randrange(1, 60))).isoformat()}")
        if p.tags:
            lines.append(f"tags: [{', '.join(p.tags)}]")
        if p.aliases:
            lines.append("aliases:")
            lines.extend(f"  - {_q(a)}" for a in p.aliases)
        lines.append(f"source: {'agent' if r.random() < 0.85 else 'manual'}")
        for k, v in p.fields.items():
            lines.append(f"{k}: {_q(v)}")
        for key, targets in p.edges.items():
            if not targets:
                continue
            if len(targets) == 1 and r.random() < 0.6:
                lines.append(f'{key}: "[[{targets[0]}]]"')
            else:
                lines.append(f"{key}:")
                lines.extend(f'  - "[[{t}]]"' for t in targets)
        lines.append("---")
        return "\n".join(lines) + "\n\n", self.body(p)

    def write(self, out: Path) -> None:
        self.titles = {p.id: p.title for p in self.plans}
        self.bodies: dict[str, str] = {}
        made: set[str] = set()
        # Originals before their near-duplicates, so a copy can reuse the text.
        for p in sorted(self.plans, key=lambda p: p.duplicate_of is not None):
            head, body = self.render(p)
            text = head + body
            self.bodies[p.id] = body
            folder = out / p.id.rsplit("/", 1)[0]
            if str(folder) not in made:
                folder.mkdir(parents=True, exist_ok=True)
                made.add(str(folder))
            (out / f"{p.id}.md").write_text(text, encoding="utf-8")


def generate(out: Path | str, n: int, seed: int = 0, hub: bool = False, force: bool = False) -> dict:
    """Write a synthetic vault of ``n`` pages into ``out``; return its manifest.

    Args:
        out: target folder; created if missing. It must be empty unless
            ``force`` is set, and ``force`` only clears a folder this function
            wrote before (one holding ``.synth.json``), never anything else.
        n: number of pages (Markdown files), >= 1.
        seed: random seed; same ``n`` and ``seed`` give the same files.
        hub: add ``systems/platform-hub`` with exactly 500 edges
            (fewer when ``n`` < 501).

    Returns:
        The manifest also written to ``out/.synth.json``: ``{"pages", "seed",
        "types": {type: n}, "links", "dead_links", "hub", "clusters": [{"check",
        "work", "ids"}], "duplicates": [[a, b]], "ids": {type: [id]}}``.

    Raises:
        FileExistsError: ``out`` is not empty and is not a generated vault (or
            ``force`` is not set).
    """
    if n < 1:
        raise ValueError("n must be at least 1")
    out = Path(out)
    if out.exists() and any(out.iterdir()):
        if not force:
            raise FileExistsError(f"{out} is not empty (use force=True / --force to replace a generated vault)")
        if not (out / MANIFEST).is_file():
            raise FileExistsError(f"{out} is not empty and was not made by benchmarks.synth; refusing to clear it")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    g = _Gen(n, seed, hub)
    g.plan()
    g.write(out)
    manifest = {
        "pages": len(g.plans),
        "seed": seed,
        "types": {str(t): len(v) for t, v in g.by_type.items() if v},
        "links": g.links,
        "dead_links": g.dead,
        "hub": HUB_ID if g.hub else None,
        "clusters": g.clusters,
        "duplicates": [[p.duplicate_of, p.id] for p in g.plans if p.duplicate_of],
        "ids": {str(t): [p.id for p in v] for t, v in g.by_type.items() if v},
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return manifest


def load_manifest(vault: Path | str) -> dict:
    """The manifest :func:`generate` wrote into ``vault``."""
    return json.loads((Path(vault) / MANIFEST).read_text(encoding="utf-8"))


# Sanity: the keys we write must be edge keys of the vocabulary.
assert {"used", "cited", "produced", "produced_by", "corrects", "promoted_from", "supersedes"} <= set(EDGE_KEYS)
assert set(t for t in TYPE_WEIGHTS if t) <= set(PAGE_TYPES) and set(THING_TYPES) <= set(TYPE_WEIGHTS)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.synth", description="Write a synthetic vault.")
    ap.add_argument("out", type=Path)
    ap.add_argument("--pages", type=int, default=1000, help="number of pages (default 1000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hub", action="store_true", help="add systems/platform-hub with 500 edges")
    ap.add_argument("--force", action="store_true", help="replace a vault this tool generated before")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    try:
        m = generate(args.out, args.pages, args.seed, hub=args.hub, force=args.force)
    except (FileExistsError, ValueError) as exc:
        print(f"synth: error: {exc}", file=sys.stderr)
        return 2
    print(
        f"{m['pages']} pages, {m['links']} links ({m['dead_links']} dead), {len(m['clusters'])} correction clusters, "
        f"{len(m['duplicates'])} near-duplicate pairs in {time.perf_counter() - t0:.1f} s -> {args.out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
