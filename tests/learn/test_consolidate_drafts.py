"""Drafts read as doctrine (real store, real model): a complete-phrase title,
one imperative sentence, a one-sentence why, an ``apply`` condition derived
from what all the evidence shares, and the true counts."""

from __future__ import annotations

import numpy as np
import pytest

from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.learn.consolidate import _sentences, draft_rule, restate_counts, rule_sentence, title_from
from brainwork.store import Store
from brainwork.store import learning as q

TODAY = "2026-11-29"


def _task(slug: str, title: str, tags: str, day: str) -> tuple[str, str]:
    return f"tasks/{slug}.md", (
        f"---\ntitle: {title}\ntype: task\ncreated: {day}\ntags: [{tags}]\nrequest: {title}.\noutcome: success\n---\n\nDone.\n"
    )


def _correction(slug: str, task: str | None, day: str, wrong: str, correct: str, why: str, tags: str = "") -> tuple[str, str]:
    corrects = f'corrects: "[[tasks/{task}]]"\n' if task else ""
    return f"corrections/{slug}.md", (
        f"---\ntitle: {slug.replace('-', ' ')}\ntype: correction\ncreated: {day}\ntags: [{tags}]\n"
        f'wrong: "{wrong}"\ncorrect: "{correct}"\nwhy: "{why}"\nstatus: open\n{corrects}---\n'
    )


FILES = dict([
    _task("2026-10-01-translate-newsletter-de", "Translate the October newsletter into German", "translation, german", "2026-10-01"),
    _task("2026-10-08-translate-onboarding-de", "Translate the onboarding emails into German", "translation, german", "2026-10-08"),
    _task("2026-10-15-translate-pricing-es", "Translate the pricing page into Spanish", "translation, spanish", "2026-10-15"),
    _correction("2026-10-01-informal-du", "2026-10-01-translate-newsletter-de", "2026-10-01",
                "Addressed the readers with du throughout.",
                "Use the formal register (Sie) for customers; keep du for the internal wiki only.",
                "Our customers are businesses; du reads as careless in a B2B newsletter. Sam said so twice.",
                "translation"),
    _correction("2026-10-08-informal-greeting", "2026-10-08-translate-onboarding-de", "2026-10-08",
                "Opened the emails with Hallo and du.",
                "Address customers formally (Sie, Guten Tag) in every customer-facing German text.",
                "New customers judge us by the first email; an informal greeting looked unprofessional.",
                "translation"),
    _correction("2026-10-15-glossary-terms", "2026-10-15-translate-pricing-es", "2026-10-15",
                "Translated plan names with my own words.",
                "Use the client's approved glossary for product and plan names.",
                "Plan names are trademarks and must match the contract.",
                "translation"),
    _correction("2026-10-20-no-task-a", None, "2026-10-20", "Posted the figure without a link.",
                "Link every figure to its source.", "Readers check numbers."),
    _correction("2026-10-21-no-task-b", None, "2026-10-21", "Quoted a number from memory.",
                "Take every number from the report and link it.", "Memory is wrong more often than data."),
])


@pytest.fixture
def drafted(make_vault, embedder):
    root = make_vault(FILES)
    config = load_config(root)
    store = Store(config.store)
    try:
        sync(config, store)
        corrections = {c["id"]: c for c in q.corrections(store)}
        tasks = {t["id"]: t for t in q.tasks(store)}

        def draft(ids: list[str]):
            members = [corrections[f"corrections/{i}"] for i in ids]
            corrects = embedder.encode([m["fields"]["correct"] for m in members])
            return draft_rule(members, corrects, tasks, today=TODAY, path="rules/x.md", correct_vecs=np.asarray(corrects))

        yield draft
    finally:
        store.close()


def test_a_german_register_lesson_applies_to_german_work(drafted):
    d = drafted(["2026-10-01-informal-du", "2026-10-08-informal-greeting"])
    assert len(_sentences(d.rule)) == 1 and d.rule.endswith(".")
    assert len(_sentences(d.why, semicolon=False)) == 1  # a ";" joins clauses of one sentence
    assert d.apply.startswith("when ")
    assert "german" in d.apply and "translation" in d.apply  # what both tasks share
    assert "spanish" not in d.apply.lower()
    assert not d.title.endswith((" the", " and", " for", ",")) and len(d.title) <= 72
    assert "Evidence: 2 corrections in 2 tasks." in d.text


def test_apply_never_names_a_narrower_class_than_the_evidence(drafted):
    # a cluster that (wrongly) mixes the German lesson with a Spanish glossary correction
    d = drafted(["2026-10-01-informal-du", "2026-10-08-informal-greeting", "2026-10-15-glossary-terms"])
    assert d.apply.startswith("when ")
    assert "german" not in d.apply.lower() and "spanish" not in d.apply.lower()  # no language all three share
    assert "translation" in d.apply
    assert "Evidence: 3 corrections in 3 tasks." in d.text


def test_counts_are_restated_when_evidence_joins(drafted, make_vault):
    d = drafted(["2026-10-01-informal-du", "2026-10-08-informal-greeting"])
    rows = [{"tasks": ["tasks/a"]}, {"tasks": ["tasks/b"]}, {"tasks": ["tasks/b"]}, {"tasks": []}]
    again = restate_counts(d.text, rows)
    assert "Evidence: 4 corrections in 2 tasks (1 linked to no task)." in again
    assert again.replace("Evidence: 4 corrections in 2 tasks (1 linked to no task).", "Evidence: 2 corrections in 2 tasks.") == d.text
    hand_written = "---\ntitle: X\ntype: rule\n---\n\nFrom 5 corrections in 5 tasks.\n"
    assert restate_counts(hand_written, rows) == hand_written


def test_counts_do_not_invent_tasks(drafted):
    d = drafted(["2026-10-20-no-task-a", "2026-10-21-no-task-b"])
    assert "Evidence: 2 corrections linked to no task." in d.text
    assert d.apply.startswith("when ")


@pytest.mark.parametrize("correct, title", [
    ("Before running the migration, check the backup: non-zero size, pg_restore --list succeeds.",
     "Check the backup before running the migration"),
    ("Open the failing job's output first and find the failing assertion; only retry when the cause is known.",
     "Open the failing job's output first and find the failing assertion"),
    ("Validate the complete trust path against several client trust stores (old Android, Java, Apple) with a tool "
     "like testssl, not just with the local openssl.",
     "Validate the complete trust path against several client trust stores"),
    ("The agent should use the formal register for customers.", "Use the formal register for customers"),
    ('Put the currency code on every price, "USD 1,299", never a bare number.',
     "Put the currency code on every price, never a bare number"),
    ("Print the endpoint you are pointed at and check it matches the one the ticket names before anything runs.",
     "Print the endpoint you are pointed at"),
])
def test_titles_are_complete_phrases(correct, title):
    rule = rule_sentence(correct)
    assert len(_sentences(rule)) == 1
    assert title_from(rule) == title
