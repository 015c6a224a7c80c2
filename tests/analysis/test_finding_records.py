"""The typed evidence of a finding reads like the dict of its fields, and
Finding.suggested_pages() is the one contract for the pages a fix offers."""

from __future__ import annotations

import json

from brainwork.analysis.finding import (
    AmbiguousLinkEvidence, DeadLinkEvidence, Finding, StubEvidence, Suggestion,
)


def test_evidence_is_a_mapping_of_its_fields() -> None:
    ev = StubEvidence(chars=3, stub_chars=120)
    assert ev.chars == 3 and ev["stub_chars"] == 120
    assert ev == {"chars": 3, "stub_chars": 120} and {"chars": 3, "stub_chars": 120} == ev
    assert ev != {"chars": 4, "stub_chars": 120}
    assert list(ev) == ["chars", "stub_chars"] and len(ev) == 2 and ev.get("nope") is None
    assert json.loads(json.dumps(ev.to_json())) == {"chars": 3, "stub_chars": 120}


def test_nested_records_serialise_as_plain_json() -> None:
    ev = DeadLinkEvidence(place="body", suggestions=[Suggestion(page="a", similarity=0.9)], retarget_similarity=0.7)
    as_json = json.loads(json.dumps(ev.to_json()))
    assert as_json == {"place": "body", "suggestions": [{"page": "a", "similarity": 0.9}], "retarget_similarity": 0.7}
    assert ev["suggestions"][0]["page"] == "a"


def test_suggested_pages_reads_dead_and_ambiguous_links() -> None:
    dead = Finding("dead-link", "x.md", "x", 1, "m", target="A", evidence=DeadLinkEvidence(
        place="body", suggestions=[Suggestion("a", 0.91), Suggestion("b", 0.8)], retarget_similarity=0.7))
    assert dead.suggested_pages() == [("a", 0.91), ("b", 0.8)]
    amb = Finding("ambiguous-link", "x.md", "x", 1, "m", evidence=AmbiguousLinkEvidence(candidates=["p", "q"], place="body"))
    assert amb.suggested_pages() == [("p", None), ("q", None)]
    assert Finding("stub", "x.md", "x", 1, "m", evidence=StubEvidence(1, 2)).suggested_pages() == []
