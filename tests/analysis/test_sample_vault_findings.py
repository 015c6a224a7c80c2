"""The exact findings on sample_vault/, whose problems are planted on purpose.

Verified by reading the files (sample_vault as of commit d35e1a5):

- stub (2): customers/harbor-lines.md body is "Shipping customer, onboarding
  in Q4. Contact goes via [[people/dana-kim|Dana]]." -> visible "... via
  Dana." = 59 characters; systems/edge-proxy.md body is "Nginx edge proxy
  for `*.acme.example`; wildcard cert. TODO: describe." = 67 characters.
  Both bodies start on line 8. Every other page has several sentences.
- dead-link (3): tasks/2026-09-09-renew-cert-edi-endpoint.md:15
  [[systems/legacy-ftp]], tasks/2026-10-27-case-study-northwind.md:16
  [[people/jonas-weber]], topics/tls-certificates.md:13
  [[artifacts/cert-inventory-sheet]]; no such files exist and no page's name
  is 0.7-similar to "legacy-ftp", "jonas-weber" or "cert-inventory-sheet".
- orphan (1): topics/kubernetes-notes.md has no wikilink (only inline code)
  and no file links to it (grep "kubernetes-notes"/"Kubernetes notes" finds
  only its own title line).
- untyped (2): topics/on-call-handover.md has an empty frontmatter block (no
  type; its folder's other pages are all topics, so "topic" is suggested);
  weekly-sync-2026-10-01.md says `type: meeting` (line 3), not in the
  vocabulary.
- diary-title (4): "Ticket 5120 of 14.09.2026: certificate for billing
  expiring" and "Ticket 5388 of 28.09.2026: nightly CI red" (dates), the
  106-character "Lowercase all customer portal user emails and merge the
  duplicate accounts that this creates in production", and "Weekly platform
  sync 2026-10-01" (date); each title is on line 2.
- duplicate (1): tools/pg-dump.md ("pg_dump") and tools/pgdump.md ("pg_dump
  (Postgres backup)") paraphrase each other: names 0.92 (file names "pg dump"
  / "pgdump"), body 0.87, lexical 0.89 >= 0.88, below 0.93 (not a merge
  candidate). The next most similar pair in the vault scores 0.64.
- nothing else: no page over 32 KB, no credential (the full detect-secrets
  scan in test_secrets.py finds none), no ambiguous link, no parse error.
"""

from __future__ import annotations

from brainwork.analysis.findings import summary

EXPECTED = [
    ("stub", "customers/harbor-lines.md", 8),
    ("stub", "systems/edge-proxy.md", 8),
    ("dead-link", "tasks/2026-09-09-renew-cert-edi-endpoint.md", 15),
    ("diary-title", "tasks/2026-09-14-renew-cert-billing.md", 2),
    ("diary-title", "tasks/2026-09-28-fix-ci-migration-check.md", 2),
    ("diary-title", "tasks/2026-10-26-migrate-portal-users-email-lowercase.md", 2),
    ("dead-link", "tasks/2026-10-27-case-study-northwind.md", 16),
    ("duplicate", "tools/pg-dump.md", 1),
    ("orphan", "topics/kubernetes-notes.md", 1),
    ("untyped", "topics/on-call-handover.md", 1),
    ("dead-link", "topics/tls-certificates.md", 13),
    ("diary-title", "weekly-sync-2026-10-01.md", 2),
    ("untyped", "weekly-sync-2026-10-01.md", 3),
]


def test_sample_vault_exact_findings(sample_vault_copy, run_check):
    found = run_check(sample_vault_copy)
    assert [(f.code, f.path, f.line) for f in found] == EXPECTED
    assert summary(found) == {"orphan": 1, "dead-link": 3, "untyped": 2, "stub": 2, "diary-title": 4, "duplicate": 1}
    by = {(f.code, f.page): f for f in found}
    assert by[("stub", "customers/harbor-lines")].score == 59
    assert by[("stub", "systems/edge-proxy")].score == 67
    assert {f.target for f in found if f.code == "dead-link"} == {
        "systems/legacy-ftp", "people/jonas-weber", "artifacts/cert-inventory-sheet"}
    assert all(f.other is None for f in found if f.code == "dead-link")
    dup = by[("duplicate", "tools/pg-dump")]
    assert dup.other == "tools/pgdump" and 0.88 <= dup.score < 0.93 and not dup.evidence["merge_candidate"]
    assert by[("untyped", "topics/on-call-handover")].target == "topic"
    titles = {f.page: f.target for f in found if f.code == "diary-title"}
    assert titles == {
        "tasks/2026-09-14-renew-cert-billing": "Certificate for billing expiring",
        "tasks/2026-09-28-fix-ci-migration-check": "Nightly CI red",
        "tasks/2026-10-26-migrate-portal-users-email-lowercase": "Lowercase all customer portal user emails",
        "weekly-sync-2026-10-01": "Weekly platform sync",
    }
