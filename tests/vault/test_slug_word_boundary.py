"""File-name slugs from long titles end at a word boundary."""

from brainwork.vault.write import slugify


def test_a_long_title_is_cut_between_words() -> None:
    slug = slugify("Proposed: No, that's wrong — you only checked the leaf on disk. Check the chain")
    assert slug == "proposed-no-that-s-wrong-you-only-checked-the-leaf-on-disk"
    assert len(slug) <= 60


def test_one_long_word_is_still_cut_at_the_limit() -> None:
    assert slugify("a" * 70) == "a" * 60
    assert slugify("renew TLS cert") == "renew-tls-cert"
