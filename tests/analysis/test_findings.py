"""Each finding code on small hand-made vaults (real Kùzu store in tmp_path)."""

from __future__ import annotations

import json

import pytest

from brainwork.analysis.findings import CODES, Finding, check, summary

PROSE = (
    "This page holds enough ordinary prose that nobody would call it a stub: it explains what the "
    "thing is, why it matters and where to look next."
)


def page(title: str, type_: str | None = "topic", body: str = PROSE, extra: str = "") -> str:
    head = [f"title: {json.dumps(title) if ':' in title else title}"]
    if type_:
        head.append(f"type: {type_}")
    if extra:
        head.append(extra.rstrip("\n"))
    return "---\n" + "\n".join(head) + "\n---\n" + body + "\n"


def by_code(findings: list[Finding], code: str) -> list[Finding]:
    return [f for f in findings if f.code == code]


# -- orphan -------------------------------------------------------------------------
def test_orphan_only_pages_without_live_links_either_way(make_vault, run_check):
    vault = make_vault(
        {
            "a.md": page("A", body=PROSE + " See [[b]]."),
            "b.md": page("B"),
            "lonely.md": page("Lonely"),
            "deadend.md": page("Dead end", body=PROSE + " See [[nowhere]]."),
            "pic.md": page("Picture", body=PROSE + " ![[img.png]]"),
            "img.png": b"\x89PNG\r\n",
            # a correction naming its task with an inverse key connects both
            "task.md": page("Task", type_="task"),
            "fix.md": page("Fix", type_="correction", extra='corrects: "[[task]]"'),
        }
    )
    orphans = {f.page: f for f in by_code(run_check(vault, ["orphan"]), "orphan")}
    assert set(orphans) == {"lonely", "deadend", "pic"}
    assert orphans["deadend"].evidence["dead_links"] == 1
    assert "1 dead" in orphans["deadend"].message
    assert orphans["pic"].evidence["attachment_links"] == 1
    assert orphans["lonely"].line == 1 and orphans["lonely"].key == "orphan:lonely"
    # the attachment itself is never a finding
    assert all(f.path != "img.png" for f in run_check(vault))


# -- dead links ---------------------------------------------------------------------------
def test_dead_link_line_target_and_suggested_retargets(make_vault, run_check):
    vault = make_vault(
        {
            "topics/kubernetes-notes.md": page("Kubernetes notes"),
            "tools/kubectl.md": page("kubectl", type_="tool"),
            "task.md": page(
                "Task",
                type_="task",
                extra='used:\n  - "[[kubectl]]"\n  - "[[kubectl-old]]"',
                body=PROSE + "\n\nRead [[Kubernets notes|the notes]] first.\n\n`[[not a link]]`",
            ),
        }
    )
    dead = by_code(run_check(vault), "dead-link")
    assert [(f.line, f.target) for f in dead] == [(6, "kubectl-old"), (10, "Kubernets notes")]
    body_link = dead[1]
    assert body_link.path == "task.md" and body_link.page == "task"
    assert body_link.other == "topics/kubernetes-notes"
    assert body_link.score is not None and body_link.score >= 0.7
    assert body_link.evidence["suggestions"][0]["page"] == "topics/kubernetes-notes"
    assert "did you mean 'topics/kubernetes-notes'" in body_link.message
    assert dead[0].other == "tools/kubectl" and dead[0].evidence["place"] == "frontmatter"
    assert body_link.key == "dead-link:task|kubernets notes"


def test_dead_link_key_survives_moved_lines(make_vault, run_check, tmp_path):
    vault = make_vault({"a.md": page("A", body="[[gone]]\n" + PROSE)})
    first = by_code(run_check(vault, ["dead-link"]), "dead-link")[0]
    (vault / "a.md").write_text(page("A", body="New line above.\n\n[[gone]]\n" + PROSE), encoding="utf-8")
    second = by_code(run_check(vault, ["dead-link"]), "dead-link")[0]
    assert second.line == first.line + 2
    assert second.key == first.key


def test_no_retarget_below_the_threshold(make_vault, run_check):
    vault = make_vault({"a.md": page("A", body=PROSE + " [[Example]]"), "Templates.md": page("Templates")})
    (f,) = by_code(run_check(vault, ["dead-link"]), "dead-link")
    assert f.other is None and f.evidence["suggestions"] == [] and "did you mean" not in f.message


# -- ambiguous links ----------------------------------------------------------------------
def test_ambiguous_link_lists_every_candidate(make_vault, run_check):
    vault = make_vault(
        {
            "work/Note.md": page("Note at work"),
            "home/Note.md": page("Note at home"),
            "index.md": page("Index", body=PROSE + "\n[[Note]] and [[work/Note]]"),
        }
    )
    (f,) = by_code(run_check(vault), "ambiguous-link")
    assert (f.path, f.line, f.target) == ("index.md", 6, "Note")
    assert f.evidence["candidates"] == ["home/Note", "work/Note"]
    assert f.other == "home/Note"  # the resolver's pick: shortest path, then alphabetical
    assert "fits 2 pages" in f.message


# -- untyped ------------------------------------------------------------------------------
def test_untyped_missing_unknown_and_suggestions(make_vault, run_check):
    vault = make_vault(
        {
            "tasks/one.md": page("One", type_="task"),
            "tasks/two.md": page("Two", type_="task"),
            "tasks/three.md": page("Three", type_=None),
            "meeting.md": page("Weekly", type_="meeting", extra="created: 2026-01-01"),
            "typo.md": page("Typo", type_="tasks"),
            "incident.md": page("Incident", type_="incident"),
            "brainwork.toml": '[vocabulary]\nextra_types = ["incident"]\n',
        }
    )
    found = {f.page: f for f in by_code(run_check(vault), "untyped")}
    assert set(found) == {"tasks/three", "meeting", "typo"}
    assert found["tasks/three"].line == 1 and found["tasks/three"].message.startswith("no type")
    assert found["tasks/three"].target == "task"  # two of the folder's three pages are tasks
    assert found["meeting"].line == 3 and "'meeting' is not in the vocabulary" in found["meeting"].message
    assert found["meeting"].target is None
    assert found["typo"].target == "task" and found["typo"].evidence["why"] == "closest to 'tasks'"


# -- stubs --------------------------------------------------------------------------------
def test_stub_counts_visible_text_only(make_vault, run_check):
    link_heavy = (
        "[Docs](https://example.com/a/very/long/path/that/is/not/text/at/all/and/goes/on/and/on) "
        "[[folder/some-very-long-page-name-that-is-not-shown|x]] ![[diagram.png]] <!-- a long hidden comment "
        "that nobody reads in the rendered page at all --> %%another hidden remark, also long enough%%"
    )
    vault = make_vault(
        {
            "short.md": page("Short", body="Just a line."),
            "links.md": page("Links", body=link_heavy),
            "code.md": page("Code", body="```python\n" + "print('code is text a reader reads')\n" * 4 + "```"),
            "full.md": page("Full"),
            "edge119.md": page("Edge", body="x" * 119),
            "edge120.md": page("Edge", body="x" * 120),
        }
    )
    stubs = {f.page: f for f in by_code(run_check(vault, ["stub"]), "stub")}
    assert set(stubs) == {"short", "links", "edge119"}
    assert stubs["short"].score == len("Just a line.")
    assert stubs["links"].evidence["chars"] == len("Docs x")
    assert stubs["short"].line == 5  # the body's first line
    assert stubs["edge119"].evidence == {"chars": 119, "stub_chars": 120}


def test_stub_threshold_from_brainwork_toml(make_vault, run_check):
    vault = make_vault({"a.md": page("A", body="Forty characters of text, give or take."), "brainwork.toml": "[thresholds]\nstub_chars = 20\n"})
    assert by_code(run_check(vault, ["stub"]), "stub") == []


# -- diary titles ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "title, suggestion",
    [
        ("Standup 29.07.2026", "Standup"),
        ("Deploy 2026-07-29", "Deploy"),
        ("Retro 07/29/2026", "Retro"),
        ("Call on 29 Jul 2026", "Call"),
        ("Planning meeting of July 29, 2026", "Planning meeting"),
        ("Ticket 5120 of 14.09.2026: certificate for billing expiring", "Certificate for billing expiring"),
    ],
)
def test_diary_title_date_forms(make_vault, run_check, title, suggestion):
    vault = make_vault({"a.md": page(title)})
    (f,) = by_code(run_check(vault, ["diary-title"]), "diary-title")
    assert f.target == suggestion
    assert f.line == 2  # the title: line
    assert f.evidence["dates"]


def test_diary_title_long_and_thing_page(make_vault, run_check):
    long_title = "Lowercase all customer portal user emails and merge the duplicate accounts that this creates"
    vault = make_vault(
        {
            "long.md": page(long_title, type_="task"),
            "systems/billing-api.md": page("Billing API", type_="system"),
            "note.md": page("Billing API on 2026-07-29", type_="task"),
            "ok.md": page("Release 2.1.10 notes", type_="artifact"),
            "heading.md": "---\ntype: task\n---\n\nIntro.\n\n# Sync 2026-07-29\n\n" + PROSE + "\n",
        }
    )
    found = {f.page: f for f in by_code(run_check(vault, ["diary-title"]), "diary-title")}
    assert set(found) == {"long", "note", "heading"}
    assert found["long"].evidence["length"] == len(long_title) >= 80
    assert found["long"].target == "Lowercase all customer portal user emails"
    assert found["note"].other == "systems/billing-api"
    assert "existing page systems/billing-api" in found["note"].message
    assert found["heading"].line == 7  # title from the first heading


# -- duplicates -----------------------------------------------------------------------------
def test_duplicate_pair_scored_and_marked(make_vault, run_check):
    body = (
        "Logical backup tool for PostgreSQL. For a table-level safety copy before a migration run "
        "pg_dump with the custom format, then check it with pg_restore --list. Custom format allows "
        "selective and parallel restore. A schema-only dump holds no data and is not a backup."
    )
    vault = make_vault(
        {
            "tools/pg-dump.md": page("pg_dump", type_="tool", body=body),
            "tools/pgdump.md": page("pg_dump (Postgres backup)", type_="tool", body=body.replace("check it", "verify it")),
            "tools/psql.md": page("psql", type_="tool", body="Interactive terminal for PostgreSQL. " + PROSE),
        }
    )
    (f,) = by_code(run_check(vault, ["duplicate"]), "duplicate")
    assert (f.page, f.other, f.line) == ("tools/pg-dump", "tools/pgdump", 1)
    assert f.key == "duplicate:tools/pg-dump|tools/pgdump"
    ev = f.evidence
    assert ev["body"] > 0.95 and ev["semantic"] is None and f.score == ev["similarity"] == ev["lexical"]
    assert ev["similarity"] == pytest.approx(0.4 * ev["names"] + 0.6 * ev["body"], abs=1e-3)
    assert ev["merge_candidate"] is (f.score >= 0.93)
    assert f.message.startswith("merge candidate" if ev["merge_candidate"] else "possible duplicate")


def test_same_title_different_bodies_is_no_duplicate(make_vault, run_check):
    vault = make_vault(
        {
            "a/Notes.md": page("Notes", body="Kubernetes contexts, namespaces and the kubectl habits we keep. " + PROSE),
            "b/Notes.md": page("Notes", body="Invoices, billing runs and the currency column migration plan for Q4."),
        }
    )
    assert by_code(run_check(vault, ["duplicate"]), "duplicate") == []


# -- oversize -------------------------------------------------------------------------------
def test_oversize_with_split_points(make_vault, run_check):
    section = "Words of a long section. " * 20
    body = f"Intro.\n\n## First part\n\n{section}\n\n```\n## not a heading in code\n```\n\n## Second part\n\n{section}\n"
    vault = make_vault({"big.md": page("Big", body=body), "small.md": page("Small"), "brainwork.toml": "[thresholds]\noversize_bytes = 800\n"})
    (f,) = by_code(run_check(vault, ["oversize"]), "oversize")
    assert f.page == "big" and f.score == (vault / "big.md").stat().st_size
    assert [s["heading"] for s in f.evidence["split_points"]] == ["First part", "Second part"]
    assert f.evidence["split_points"][0]["line"] == 7
    assert "split at its 2 '## ' headings" in f.message


# -- secrets --------------------------------------------------------------------------------
def test_secret_found_masked_in_body_and_frontmatter(make_vault, run_check):
    key_id = "AKIA" + "Q3ZP7RWX" + "2M4TNB6K"  # not AWS's documented ...EXAMPLE key: that is a placeholder
    password = "hunter2" + "hunter2"
    vault = make_vault(
        {
            "ops.md": page("Ops", extra=f'db_password: "{password}"', body=PROSE + f"\n\naws_access_key_id = {key_id}\n"),
            "clean.md": page("Clean"),
        }
    )
    found = by_code(run_check(vault, ["secret"]), "secret")
    assert [(f.page, f.line) for f in found] == [("ops", 4), ("ops", 8)]
    assert found[1].evidence["kind"] == "AWS Access Key"
    for f in found:
        assert key_id not in f.message and password not in f.message
        assert key_id not in str(f.evidence) and password not in str(f.evidence)
    assert found[1].evidence["masked"] == "AKIA…(20 chars)"


# -- parse errors -----------------------------------------------------------------------------
def test_parse_errors_surface_and_suppress_content_checks(make_vault, run_check):
    vault = make_vault(
        {
            "broken.md": "---\ntitle: [unclosed\n---\nBody.\n",
            "latin1.md": "caf\xe9 ".encode("latin-1"),
            "ok.md": page("Ok", body=PROSE + " [[broken]] [[latin1]]"),
        }
    )
    found = run_check(vault)
    errors = by_code(found, "parse-error")
    assert [(f.path, f.line) for f in errors] == [("broken.md", 2), ("latin1.md", 1)]
    assert "not UTF-8" in errors[1].message
    # no type/stub/title findings for files that did not parse
    assert not [f for f in found if f.page in ("broken", "latin1") and f.code in ("untyped", "stub", "diary-title")]


# -- the API ------------------------------------------------------------------------------------
def test_codes_filter_summary_and_unknown_code(make_vault, run_check, with_store):
    vault = make_vault({"a.md": page("A", type_=None, body="tiny"), "b.md": page("B")})
    everything = run_check(vault)
    assert summary(everything) == {"orphan": 2, "untyped": 1, "stub": 1}
    assert list(summary(everything)) == [c for c in CODES if c in summary(everything)]
    assert {f.code for f in run_check(vault, ["stub"])} == {"stub"}
    with with_store(vault) as (config, store), pytest.raises(ValueError, match="unknown finding code nope"):
        check(config, store, ["nope"])
    assert everything == sorted(everything, key=lambda f: (f.path, f.line, CODES.index(f.code)))
    f = everything[0]
    assert set(f.to_json()) == {"code", "path", "line", "message", "target", "score", "other"}
    assert f.to_text() == f"{f.path}:{f.line}: {f.code} {f.message}"


# -- duplicates with cached embeddings (the real bundled model) ---------------------------------
def test_duplicate_uses_cached_embeddings_when_present(make_vault, with_store):
    import os

    from brainwork.learn.embed import embed_pages, get_embedder

    if os.environ.get("BRAINWORK_EMBEDDER", "").lower() == "lexical":
        pytest.skip("BRAINWORK_EMBEDDER=lexical forces the fallback embedder")
    body = (
        "Logical backup tool for PostgreSQL. Before a migration take a table-level safety copy with "
        "pg_dump in the custom format and check it with pg_restore --list."
    )
    vault = make_vault(
        {
            "tools/pg-dump.md": page("pg_dump", type_="tool", body=body),
            "tools/pgdump.md": page("pg_dump (Postgres backup)", type_="tool", body=body + " It takes a while."),
        }
    )
    with with_store(vault) as (config, store):
        plain = by_code(check(config, store, ["duplicate"]), "duplicate")
        assert [f.evidence["semantic"] for f in plain] == [None]
        assert not get_embedder(config).lexical
        embed_pages(config, store)
        (f,) = by_code(check(config, store, ["duplicate"]), "duplicate")
    sem = f.evidence["semantic"]
    assert sem is not None and 0.8 < sem <= 1.0
    assert f.score == pytest.approx((f.evidence["lexical"] + sem) / 2, abs=1e-3)
    assert f"meaning {sem:.2f}" in f.message
