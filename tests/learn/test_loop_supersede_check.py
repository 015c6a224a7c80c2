"""Approving a rule with ``--supersedes`` an unrelated one is the person's
choice, but it is named: :func:`brainwork.learn.prune.supersede_check` says
when the two rules do not teach the same lesson (their rule text + why below
``supersede_similarity``). Real model; rule pages of sample_vault/."""

from __future__ import annotations

from brainwork.learn.prune import supersede_check
from brainwork.learn.rule import get_rule

CHAIN = "rules/verify-full-cert-chain"
LEAF = "rules/verify-leaf-cert"
BACKUP = "rules/backup-and-dry-run-before-migration"


def test_the_rule_it_replaced_teaches_the_same_lesson(embedded_sample, embedder):
    config, store = embedded_sample
    check = supersede_check(config, get_rule(store, CHAIN), get_rule(store, LEAF), embedder)
    assert check.same_lesson and check.warning() is None
    assert check.similarity >= config.thresholds.supersede_similarity


def test_an_unrelated_rule_is_named_with_both_titles_and_the_figure(embedded_sample, embedder):
    config, store = embedded_sample
    chain, backup = get_rule(store, CHAIN), get_rule(store, BACKUP)
    check = supersede_check(config, chain, backup, embedder)
    assert not check.same_lesson
    text = check.warning()
    assert chain.title in text and backup.title in text and f"{check.similarity:.2f}" in text
    assert f"{config.thresholds.supersede_similarity:.2f}" in text
