"""What `brainwork consolidate` says it did, the `link-evidence` command its
advice names, and the evidence figure a drafted candidate shares with the
workbench's Rules pane — on a copy of the embedded sample vault, real model,
real store, the CLI through click's runner in this process.
"""

from __future__ import annotations

import re
import shutil

import pytest
from click.testing import CliRunner

from brainwork.cli import cli
from brainwork.config import load_config

CI_CANDIDATE = "rules/read-ci-log-before-rerun"
BACKUP_RULE = "rules/backup-and-dry-run-before-migration"


@pytest.fixture
def vault(embedded_template, tmp_path):
    root = tmp_path / "vault"
    shutil.copytree(embedded_template, root)
    return root


def _run(vault, *args: str):
    config = load_config(vault)
    r = CliRunner().invoke(cli, [*args, "--vault", str(vault), "--store", str(config.store)], catch_exceptions=False)
    return r


def _files(vault) -> dict[str, bytes]:
    return {str(p.relative_to(vault)): p.read_bytes() for p in vault.rglob("*.md") if ".brainwork" not in p.parts}


def test_a_rerun_that_changes_nothing_says_so(vault):
    first = _run(vault, "consolidate")
    assert first.exit_code == 0, first.output
    before = _files(vault)
    again = _run(vault, "consolidate")
    assert again.exit_code == 0, again.output
    assert _files(vault) == before
    assert "added" not in again.output
    assert f"already the evidence of candidate {CI_CANDIDATE} (unchanged)" in again.output
    assert again.output.rstrip().endswith("created 0 candidate rules; nothing changed")


def test_added_counts_only_the_corrections_that_joined(vault):
    page = vault / f"{CI_CANDIDATE}.md"
    text = page.read_text(encoding="utf-8")
    dropped = '  - "[[corrections/2026-10-23-healthcheck-in-output]]"\n'
    assert dropped in text
    page.write_text(text.replace(dropped, ""), encoding="utf-8")
    r = _run(vault, "consolidate")
    assert r.exit_code == 0, r.output
    assert f"added 1 correction to candidate {CI_CANDIDATE}" in r.output
    assert "[[corrections/2026-10-23-healthcheck-in-output]]" in page.read_text(encoding="utf-8")


def test_the_advice_for_an_active_rule_is_a_command_that_links(vault):
    r = _run(vault, "consolidate")
    assert r.exit_code == 0, r.output
    advice = re.search(r"`(brainwork link-evidence [^`]+)`", r.output)
    assert advice, r.output
    words = advice.group(1).split()[2:]
    assert words[0] == BACKUP_RULE and len(words) >= 2
    linked = _run(vault, "link-evidence", *words)
    assert linked.exit_code == 0, linked.output
    assert f"linked {len(words) - 1} corrections to {BACKUP_RULE}; undo with `brainwork undo`" in linked.output
    rule = (vault / f"{BACKUP_RULE}.md").read_text(encoding="utf-8")
    assert all(f"[[{c}]]" in rule for c in words[1:])
    assert "link-evidence" not in _run(vault, "consolidate").output  # nothing left to link
    undone = _run(vault, "undo")
    assert undone.exit_code == 0 and "link-correction" in undone.output
    assert all(f"[[{c}]]" not in (vault / f"{BACKUP_RULE}.md").read_text(encoding="utf-8") for c in words[1:])


def test_link_evidence_refuses_what_is_linked_already(vault):
    _run(vault, "consolidate")
    ok = _run(vault, "link-evidence", BACKUP_RULE, "corrections/2026-10-05-schema-only-dump")
    assert ok.exit_code == 0, ok.output
    again = _run(vault, "link-evidence", BACKUP_RULE, "corrections/2026-10-05-schema-only-dump")
    assert again.exit_code == 2 and "already linked" in again.output


def test_drafted_figures_are_the_rules_panes_figures(vault):
    """The candidate page and the Rules pane show one measure, one label."""
    from brainwork.learn.consolidate import RULE_SIMILARITY_LABEL
    from brainwork.store import Store
    from brainwork.tui.screens.rules import EVIDENCE_COLUMNS, read_rules_view

    (vault / f"{CI_CANDIDATE}.md").unlink()
    r = _run(vault, "consolidate")
    assert r.exit_code == 0, r.output
    drafted = re.search(r"new candidate (rules/\S+)", r.output).group(1)
    body = (vault / f"{drafted}.md").read_text(encoding="utf-8")
    on_page = {m.group(1): float(m.group(2)) for m in
               re.finditer(rf"- \[\[(corrections/[^\]]+)\]\].*?\({RULE_SIMILARITY_LABEL} (\d\.\d\d)\)", body)}
    assert len(on_page) == 5, body
    config = load_config(vault)
    store = Store(config.store)
    try:
        view = read_rules_view(config, store)
    finally:
        store.close()
    in_pane = {e["id"]: round(e["similarity"], 2) for e in view.evidence[drafted]}
    assert in_pane == on_page
    assert max(on_page.values()) < 1.0  # to the rule sentence, not to the central correction itself
    header = next(c for c in EVIDENCE_COLUMNS if c.key == "sim")
    assert header.label == "to rule" and RULE_SIMILARITY_LABEL == "similarity to the rule"


def test_a_partial_approval_restates_the_drafted_body(vault):
    """The corrections sent back to the inbox leave the drafted page: its
    counts sentence, its evidence list and its links name only what was
    promoted; undo brings every byte back."""
    from brainwork.store import Store, graph

    (vault / f"{CI_CANDIDATE}.md").unlink()
    r = _run(vault, "consolidate")
    assert r.exit_code == 0, r.output
    drafted = re.search(r"new candidate (rules/\S+)", r.output).group(1)
    page = vault / f"{drafted}.md"
    before = page.read_text(encoding="utf-8")
    listed = re.findall(r"(?m)^- \[\[(corrections/[^\]]+)\]\]", before)
    assert len(listed) == 5 and "Evidence: 5 corrections in 5 tasks." in before
    central = re.search(r"(?m)^- Rule: the first instruction of [^\n]*?\[\[([^\]]+)\]\]", before).group(1)
    dropped = [central, next(c for c in listed if c != central)]
    keep = [c for c in listed if c not in dropped]
    files_before = _files(vault)

    r = _run(vault, "approve", drafted, *[a for c in dropped for a in ("--drop", c)])
    assert r.exit_code == 0, r.output
    after = page.read_text(encoding="utf-8")
    assert "Evidence: 3 corrections in 3 tasks." in after
    assert re.findall(r"(?m)^- \[\[(corrections/[^\]]+)\]\]", after) == keep
    assert f"`{central}`" in after and f"[[{central}]]" not in after
    body_lines = lambda t: t.split("\n---\n", 1)[1].count("\n")  # noqa: E731
    # the figures measured over every drafted correction go with the dropped ones
    assert "- Shared terms: " in before and "mean similarity" in before
    assert "- Shared terms: " not in after and "mean similarity" not in after
    assert body_lines(after) == body_lines(before) - len(dropped) - 1  # nothing else of the body changed shape
    store = Store(load_config(vault).store)
    try:
        from brainwork.index.sync import sync

        sync(load_config(vault), store)
        for c in dropped:
            edges = graph.page_edges(store, c)
            assert not any(e.other == drafted for e in edges.in_ + edges.out), c
        from brainwork.learn.inbox import inbox

        back = {i.id: i for i in inbox(store) if i.id in dropped}
        assert set(back) == set(dropped)  # in the inbox, and not shown as the candidate's any more
        assert all(i.cluster is None and i.rules == [] for i in back.values())
    finally:
        store.close()
    assert _run(vault, "undo").exit_code == 0
    assert _files(vault) == files_before
