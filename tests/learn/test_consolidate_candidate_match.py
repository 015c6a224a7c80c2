"""A correction the clustering kept apart from a candidate's evidence is not
attached to that candidate afterwards by its likeness to the page (real
store, real model): the second pass over the same corrections adds nothing
the first pass did not."""

from __future__ import annotations

from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.learn.consolidate import consolidate
from brainwork.learn.rules import get_rule
from brainwork.store import Store
from brainwork.store import learning as q

TODAY = "2026-11-29"
CANDIDATE = "rules/rotate-a-leaked-key"
LEAK = "corrections/2026-10-20-leaked-key-left-active"


def _task(slug: str, title: str, day: str) -> tuple[str, str]:
    return f"tasks/{slug}.md", f"---\ntitle: {title}\ntype: task\ncreated: {day}\nrequest: {title}.\n---\n\nDone.\n"


def _correction(slug: str, task: str, day: str, wrong: str, correct: str, why: str) -> tuple[str, str]:
    return f"corrections/{slug}.md", (
        f"---\ntitle: {slug[11:].replace('-', ' ')}\ntype: correction\ncreated: {day}\n"
        f'wrong: "{wrong}"\ncorrect: "{correct}"\nwhy: "{why}"\nstatus: clustered\n'
        f'corrects: "[[tasks/{task}]]"\n---\n'
    )


FILES = dict([
    _task("newsletter-de", "Translate the newsletter into German", "2026-10-01"),
    _task("onboarding-de", "Translate the onboarding emails into German", "2026-10-08"),
    _task("webhook-setup", "Set up the payment webhook", "2026-10-20"),
    _correction("2026-10-01-informal-du", "newsletter-de", "2026-10-01", "Addressed the readers with du throughout.",
                "Use the formal register (Sie) for customers.", "Our customers are businesses; du reads as careless."),
    _correction("2026-10-08-informal-greeting", "onboarding-de", "2026-10-08", "Opened the emails with Hallo and du.",
                "Address customers formally in every German text.", "An informal greeting looked unprofessional."),
    _correction("2026-10-20-leaked-key-left-active", "webhook-setup", "2026-10-20",
                "Left the API key active after it was pasted into the chat.",
                "Rotate a leaked API key at once and update every place that uses it.",
                "Anyone who read the chat could charge cards with it."),
    # A candidate whose page teaches the leaked-key lesson but whose evidence
    # is the register lesson: the page and its evidence disagree on purpose.
    (f"{CANDIDATE}.md", "---\ntitle: Rotate a leaked key\ntype: rule\nstatus: candidate\n"
     "rule: Rotate a leaked API key at once and update every place that uses it.\n"
     "why: A leaked key can be used by anyone who saw it.\napply: when a key or secret was exposed\n"
     'evidence:\n  - "[[corrections/2026-10-01-informal-du]]"\n  - "[[corrections/2026-10-08-informal-greeting]]"\n---\n'),
])


def test_a_correction_kept_apart_is_not_matched_to_the_candidate_by_its_page(make_vault):
    config = load_config(make_vault(FILES))
    store = Store(config.store)
    try:
        sync(config, store)
        for _ in range(2):
            report = consolidate(config, store, today=TODAY)
            assert not any(LEAK in c.added for c in report.clusters)
        sync(config, store)
        assert LEAK not in get_rule(store, CANDIDATE).evidence
        assert {c["id"]: c["status"] for c in q.corrections(store)}[LEAK] == "clustered"
    finally:
        store.close()
