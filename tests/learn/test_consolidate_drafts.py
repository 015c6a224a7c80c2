"""Drafts read as doctrine (real store, real model): a complete-phrase title,
one imperative sentence, a one-sentence why, an ``apply`` condition derived
from what all the evidence shares, and the true counts."""

from __future__ import annotations

import numpy as np
import pytest

from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.learn.consolidate import (
    _correction_doc, _sentences, draft_rule, restate_counts, rule_sentence, shared_terms, title_from,
)
from brainwork.learn.rules import CENTRAL_LINE, SHARED_TERMS_LINE, restate_evidence
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
    # apply: a shared tag and a word of both task titles
    _task("2026-10-03-debug-stripe-webhook", "Debug the Stripe webhook in staging", "stripe", "2026-10-03"),
    _task("2026-10-29-stripe-payment-webhooks", "Handle Stripe payment webhooks in the shop backend", "stripe", "2026-10-29"),
    _correction("2026-10-03-key-in-slack", "2026-10-03-debug-stripe-webhook", "2026-10-03",
                "Deleted the Slack message that showed the live key.",
                "Roll the key in the Stripe dashboard, then update 1Password and the deploy config with the new one.",
                "Deleting does nothing for people who already copied it.", "stripe"),
    _correction("2026-10-29-unsigned-posts", "2026-10-29-stripe-payment-webhooks", "2026-10-29",
                "Trusted any POST to the hook.", "Verify the signature header against the endpoint secret.",
                "Anyone can post to a public URL.", "stripe"),
    # apply: only words shared, a plural beside a singular
    _correction("2026-10-05-sheet-passwords", None, "2026-10-05", "Moved the passwords to a hidden tab.",
                "Treat every password in that sheet as burned.", "Hidden tabs are visible to editors."),
    _correction("2026-10-26-notion-password", None, "2026-10-26", "Wrote the warehouse password into Notion.",
                "Keep it in Bitwarden and link the item.", "Notion pages are shared widely."),
    # apply: no tag or word common to all; tags or words that cover them
    _correction("2026-10-11-refund-promise", None, "2026-10-11", "Promised a refund.",
                "Say billing reviews refunds within two days.", "Only billing approves them.", "billing"),
    _correction("2026-10-12-cache-advice", None, "2026-10-12", "Suggested clearing caches again.",
                "Scroll through the conversation first.", "She had done it already.", "support"),
    _correction("2026-10-13-invoice-total", None, "2026-10-13", "Typed the totals by hand.",
                "Take the invoice totals from the export.", "Hand-typed sums drift."),
    _correction("2026-10-14-invoice-date", None, "2026-10-14", "Dated invoices by the send day.",
                "Date each invoice by its delivery and each refund by its return.", "Tax periods follow delivery."),
    _correction("2026-10-16-ledger-refunds", None, "2026-10-16", "Booked refunds as negative sales.",
                "Book refunds on the ledger's returns account.", "Sales figures must stay gross."),
    _correction("2026-10-17-chart-axis", None, "2026-10-17", "Started the bar axis at 40.",
                "Start bar axes at zero.", "Truncated bars exaggerate."),
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

        def draft(ids: list[str], similarity: float | None = None):
            members = [corrections[f"corrections/{i}"] for i in ids]
            corrects = embedder.encode([m["fields"]["correct"] for m in members])
            return draft_rule(members, corrects, tasks, today=TODAY, path="rules/x.md", correct_vecs=np.asarray(corrects),
                              similarity=similarity)

        draft.corrections = corrections

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


def test_dropping_evidence_restates_the_figures_over_what_is_kept(drafted):
    ids = ["2026-10-01-informal-du", "2026-10-08-informal-greeting", "2026-10-15-glossary-terms"]
    d = drafted(ids, similarity=0.61)
    rows = drafted.corrections
    assert "(mean similarity 0.61)" in d.text and "(mean similarity to the others " in d.text
    every = shared_terms([_correction_doc(rows[f"corrections/{i}"]) for i in ids])
    assert f"{SHARED_TERMS_LINE}{', '.join(every)}." in d.text
    kept = [rows[f"corrections/{i}"] for i in ids[:2]]
    dropped = {f"corrections/{ids[2]}"}
    again = restate_evidence(d.text, kept, dropped)
    # no figure measured over the dropped correction is left, shared terms included
    assert "mean similarity" not in again
    assert f"Drafted by `brainwork consolidate` on {TODAY}. Evidence: 2 corrections in 2 tasks." in again
    assert SHARED_TERMS_LINE not in again
    assert ids[2] not in again.split("---\n", 2)[2]  # nor the correction itself
    # nothing dropped: the figures stay as drafted
    assert restate_evidence(d.text, [rows[f"corrections/{i}"] for i in ids], set()) == d.text


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
    # a trailing condition stays when the phrase fits: an aside between dashes goes
    ("Go through everything she has already sent - subject, attachments, earlier replies - before requesting details.",
     "Go through everything she has already sent before requesting details"),
    ("Select the whole table, or use a filter view, before sorting.",
     "Select the whole table, or use a filter view, before sorting"),
    # ... and an aside between commas too, when only the shorter phrase fits
    ("Go through the whole thread, every attachment and every earlier reply included, before requesting details.",
     "Go through the whole thread before requesting details"),
    # too long whole: still a complete phrase
    ("Store the survey row ID in a custom field and skip rows that already have a ticket.",
     "Store the survey row ID in a custom field"),
    ("Treat every password in that sheet as burned - change each one and store the new ones in Bitwarden.",
     "Treat every password in that sheet as burned"),
    ("Roll the key in the Stripe dashboard, then update 1Password and the deploy config with the new one.",
     "Roll the key in the Stripe dashboard"),
])
def test_titles_are_complete_phrases(correct, title):
    rule = rule_sentence(correct)
    assert len(_sentences(rule)) == 1
    assert title_from(rule) == title


@pytest.mark.parametrize("correct, rule", [
    # a second instruction goes: ", then", "; ", ", and <verb>", ", and <subordinate clause>"
    ("Roll the key in the Stripe dashboard, then update 1Password and the deploy config with the new one.",
     "Roll the key in the Stripe dashboard."),
    ("Describe the error and give the account ID; if they need credentials they can reset them.",
     "Describe the error and give the account ID."),
    ("Read the internal notes and the linked issues, and open with where things stand.",
     "Read the internal notes and the linked issues."),
    ("Send an Idempotency-Key with every charge, and after a timeout list the recent charges before trying again.",
     "Send an Idempotency-Key with every charge."),
    ("Before running the migration, check the backup, and then start it.", "Before running the migration, check the backup."),
    # one instruction stays whole
    ("Select the whole table, or use a filter view, before sorting.", "Select the whole table, or use a filter view, before sorting."),
    ("Open the failing job's output first and find the failing assertion.",
     "Open the failing job's output first and find the failing assertion."),
    ("Tell the customer billing reviews refunds within two days, and that you have passed hers on.",
     "Tell the customer billing reviews refunds within two days, and that you have passed hers on."),
    ("Check the logs, metrics, and traces for the request.", "Check the logs, metrics, and traces for the request."),
    ("Read the Retry-After header, sleep that long, then carry on.", "Read the Retry-After header, sleep that long, then carry on."),
    ('Sign off with "Kind regards, and thanks", as in our macros.', 'Sign off with "Kind regards, and thanks", as in our macros.'),
    ("Use v3, and not v1.", "Use v3, and not v1."),
])
def test_the_rule_is_one_instruction(correct, rule):
    assert rule_sentence(correct) == rule


def test_a_second_instruction_stays_in_the_body(drafted):
    d = drafted(["2026-10-03-key-in-slack", "2026-10-29-unsigned-posts"])
    assert d.central == "corrections/2026-10-03-key-in-slack"  # two members: the tie goes to the first id
    assert d.rule == "Roll the key in the Stripe dashboard."
    whole = "Roll the key in the Stripe dashboard, then update 1Password and the deploy config with the new one."
    central_line = next(line for line in d.text.splitlines() if line.startswith(CENTRAL_LINE))
    assert central_line.endswith(f"“{whole}”")


@pytest.mark.parametrize("ids, apply", [
    # tags every piece shares, with a word of every task title (the plural written)
    (["2026-10-03-key-in-slack", "2026-10-29-unsigned-posts"], "when a task is about stripe work and involves webhooks"),
    # tags alone (a tag may be an adjective: "german")
    (["2026-10-01-informal-du", "2026-10-08-informal-greeting"], "when a task is about german and translation work"),
    (["2026-10-01-informal-du", "2026-10-08-informal-greeting", "2026-10-15-glossary-terms"],
     "when a task is about translation work"),
    # words alone: "passwords", not "involves password"; "numbers", not a bare "link"
    (["2026-10-05-sheet-passwords", "2026-10-26-notion-password"], "when a task involves passwords"),
    (["2026-10-20-no-task-a", "2026-10-21-no-task-b"], "when a task involves numbers"),
    # nothing common to all: tags, else words, that cover every piece
    (["2026-10-11-refund-promise", "2026-10-12-cache-advice"], "when a task is about billing or support work"),
    (["2026-10-13-invoice-total", "2026-10-14-invoice-date", "2026-10-16-ledger-refunds"],
     "when a task involves invoices or refunds"),
    (["2026-10-17-chart-axis", "2026-10-12-cache-advice"], "when a task could repeat the mistake these corrections describe"),
])
def test_apply_reads_as_a_condition_in_every_branch(drafted, ids, apply):
    assert drafted(ids).apply == apply
