"""The panes' read-models (brainwork.service.views), without Textual."""

from __future__ import annotations

import subprocess
import sys

import pytest

from brainwork.analysis.finding import DeadLinkEvidence, Suggestion
from brainwork.analysis.findings import Finding, check
from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.learn.inbox import InboxItem, RuleRef, TaskRef
from brainwork.service import views
from brainwork.store import Store
from brainwork.store.graph import PageRow

PROSE = "Enough words here to stay clear of the stub check, about one thing only. " * 3


def page(title: str, body: str, type_: str | None = None) -> str:
    head = f"---\ntitle: {title}\n" + (f"type: {type_}\n" if type_ else "") + "---\n"
    return head + f"# {title}\n{body}\n"


@pytest.fixture
def checked(make_vault, tmp_path):
    """Findings of a small vault: two dead links, an untyped page, a stub."""
    vault = make_vault({
        "topics/a.md": page("A", PROSE + " [[Ghost]] [[b]]", "topic"),
        "topics/b.md": page("B", PROSE + " [[a]] [[Nowhere]]", "topic"),
        "notes/c.md": page("C", "tiny [[a]]"),
    })
    config = load_config(vault, tmp_path / "store")
    with Store(config.store) as store:
        sync(config, store)
        return config, check(config, store)


def test_findings_view_groups_in_code_order_and_filters(checked) -> None:
    _, found = checked
    view = views.findings_view(found)
    codes = [g.code for g in view.groups]
    assert codes == sorted(codes, key=views.CODE_ORDER.index)
    assert view.total == view.shown == len(found) == sum(len(g.rows) for g in view.groups)
    dead = next(g for g in view.groups if g.code == "dead-link")
    assert dead.title == views.CODE_TITLES["dead-link"] and dead.total == len(dead.rows) == 2
    assert [r.location for r in dead.rows] == ["topics/a:6", "topics/b:6"]
    assert all(found[r.index].code == "dead-link" and found[r.index].key == r.key for r in dead.rows)
    assert view.title == f"Findings · {len(found)}" and view.empty_text == ""

    ghost = views.findings_view(found, "ghost")
    assert [g.code for g in ghost.groups] == ["dead-link"] and ghost.shown == 1
    assert ghost.groups[0].total == 2  # the group's count before the filter, for its summary
    assert ghost.title == f"Findings · {len(found)} · “ghost”"
    assert ghost.subtitle.startswith("1 shown")
    none = views.findings_view(found, "no such text")
    assert none.groups == () and "No finding matches “no such text”" in none.empty_text
    assert views.findings_view([]).empty_text == "No findings: the vault meets the quality bar."


def test_big_groups_are_folded_first() -> None:
    many = [Finding("untyped", f"p{i}.md", f"p{i}", 1, "no type", key=f"untyped:p{i}") for i in range(views.FOLD_OVER + 1)]
    one = Finding("orphan", "q.md", "q", 1, "nothing links here", key="orphan:q")
    view = views.findings_view(many + [one])
    assert view.big_codes == {"untyped"}
    assert view.totals == {"untyped": views.FOLD_OVER + 1, "orphan": 1}


def test_finding_detail_lists_fields_suggestions_and_fixes() -> None:
    dead = Finding(
        "dead-link", "a.md", "a", 3, "link to missing page 'Gost'", target="Gost", key="dead-link:a|gost",
        evidence=DeadLinkEvidence(place="body", suggestions=[Suggestion("Ghost", 0.91)], retarget_similarity=0.8),
    )
    d = views.finding_detail(dead)
    assert (d.code, d.location, d.message) == ("dead-link", "a:3", "link to missing page 'Gost'")
    assert d.fixes == ("rename", "retarget", "create", "unlink", "edit", "dismiss")
    assert d.fields == (("target", "Gost"), ("suggested", "Ghost (0.91)"), ("place", "body"),
                        ("retarget similarity", "0.80"))
    diary = Finding("diary-title", "t.md", "t", 1, "m", target="Certificate renewal", key="diary-title:t",
                    evidence={"title_words": 3, "dates": ["2026-09-01"]})
    assert views.finding_detail(diary).fields == (
        ("target", "Certificate renewal"), ("title words", "3"), ("dates", "2026-09-01"),
    )
    assert views.value_text(0.5) == "0.50" and views.value_text(3.0) == "3" and views.value_text([]) == "—"


def test_pages_answer_titles_and_a_folders_type() -> None:
    def row(id_: str, type_: str | None) -> PageRow:
        return PageRow(id_, id_ + ".md", "page", id_.upper(), type_, None, [], [], None)

    pages = [row("systems/a", "system"), row("systems/b", "system"), row("systems/c", "topic"), row("d", None)]
    assert views.folder_type(pages, "systems", ["system", "topic"]) == "system"
    assert views.folder_type(pages, "systems", ["topic"]) is None  # not in the vocabulary
    assert views.folder_type(pages, "", ["topic"]) is None
    assert views.page_title(pages, "systems/a") == "SYSTEMS/A" and views.page_title(pages, "gone") == "gone"
    assert views.new_page_path("New Thing", "systems/a.md") == "systems/New Thing.md"
    assert views.new_page_path("tools/x", "systems/a.md") == "tools/x.md"


def _item(**kw) -> InboxItem:
    base = dict(id="corrections/c1", path="corrections/c1.md", title="Checked the wrong file", status="open",
                created="2026-09-09", wrong="w", correct="c", why="")
    return InboxItem(**(base | kw))


def test_inbox_rows_and_detail() -> None:
    item = _item(tasks=[TaskRef("tasks/t1", "Renew the cert"), TaskRef("tasks/t2", "Again")],
                 rules=[RuleRef("rules/verify-chain", "Verify the chain", "candidate")])
    row = views.inbox_row(item)
    assert (row.created, row.status, row.task, row.cluster) == ("2026-09-09", "open", "Renew the cert (+1)", "verify-chain")
    assert row.waiting and not row.handled
    bare = views.inbox_row(_item(status=None, created=None))
    assert (bare.created, bare.status, bare.task, bare.cluster) == ("—", "open", "—", "—")
    assert views.inbox_row(_item(status="promoted")).handled

    d = views.inbox_detail(item)
    assert d.heading == "open · 2026-09-09" and d.why == views.NOT_RECORDED
    assert d.tasks == (("tasks/t1", "Renew the cert"), ("tasks/t2", "Again"))
    assert d.note_label == "Cluster" and not d.note_dim
    assert d.note.splitlines() == ["not clustered yet (c runs consolidation)", "evidence of rules/verify-chain (candidate)"]
    proposed = views.inbox_detail(_item(status="proposed"))
    assert proposed.note_label == "Proposed" and proposed.note_dim and "y confirms it" in proposed.note


def test_cluster_texts_and_link_proposal() -> None:
    cluster = {"corrections": ["corrections/c1", "corrections/c2"], "tasks": ["tasks/t1", "tasks/t2"],
               "similarity": 0.661, "action": "evidence", "rule": "rules/backup-first"}
    item = _item(cluster=cluster)
    assert views.cluster_label(item) == "≈ backup-first (2)"
    assert views.cluster_text(item).splitlines() == [
        "2 corrections from 2 tasks, similarity 0.66 (last consolidation)",
        "proposed as evidence for the active rule rules/backup-first: l links it",
        "with c2",
    ]
    assert views.link_proposal(item) == ("rules/backup-first", "Consolidation proposed rules/backup-first.")
    drafted = _item(cluster=dict(cluster, action="new", candidate="rules/new-one", rule=None))
    assert views.cluster_label(drafted) == "new-one (2)"
    assert views.link_proposal(_item())[0] is None
    assert views.can_dismiss(_item(status="proposed")) and not views.can_link(_item(status="proposed"))
    assert views.can_confirm(_item(status="proposed")) and not views.can_confirm(None)
    assert not views.can_dismiss(_item(status="promoted"))


def test_inbox_view_reads_the_store(sample_vault_copy, tmp_path) -> None:
    config = load_config(sample_vault_copy, tmp_path / "store")
    with Store(config.store) as store:
        sync(config, store)
        view = views.inbox_view(store)
        everything = views.inbox_view(store, include_handled=True)
    assert view.items and len(view.rows) == len(view.items)
    assert [r.id for r in view.rows] == [i.id for i in view.items]
    # open, clustered and proposed corrections are counted apart (sample_vault: 7 and 8)
    assert view.title == "Correction inbox · 7 open · 8 clustered"
    assert view.title_marked(3) == "Correction inbox · 7 open · 8 clustered · 3 marked"
    assert all(r.status in ("open", "clustered", "proposed") for r in view.rows)
    handled = everything.counts.handled
    assert len(everything.items) > len(view.items) and everything.title.endswith(f" · {handled} handled") and handled
    statuses = [r.status for r in view.rules]
    assert statuses == sorted(statuses, key=lambda s: s != "active") and set(statuses) <= {"active", "candidate"}
    assert view.rules[0].to_json().keys() == {"id", "title", "status", "text"}


def test_views_do_not_import_textual() -> None:
    code = "import sys, brainwork.service.views; print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
