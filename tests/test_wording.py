"""Counts in the learning loop's messages agree with their number."""

from brainwork.wording import counted, noun


def test_counted_agrees_with_the_number():
    assert counted(1, "correction") == "1 correction"
    assert counted(0, "correction") == "0 corrections"
    assert counted(2, "candidate rule") == "2 candidate rules"
    assert counted(3, "repeat correction") == "3 repeat corrections"
    assert noun(1, "argument") == "argument" and noun(2, "argument") == "arguments"
    assert counted(2, "query", "queries") == "2 queries"
