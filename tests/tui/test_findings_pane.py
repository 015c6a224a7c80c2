"""Pilot tests: the findings pane (2) on a copy of sample_vault/, driven by
keys, real store, real files; each fix is checked on disk, in the refreshed
list and in the undo log."""

from __future__ import annotations

from pathlib import Path

from textual import events

from brainwork.analysis.findings import check
from brainwork.tui.app import BrainworkApp
from brainwork.tui.modals.prompts import ChoicePrompt, TextPrompt
from brainwork.service.views import fixes_for, group_findings, suggestions_of
from brainwork.tui.page_actions import editor_command
from brainwork.tui.screens.findings import FindingList
from brainwork.tui.screens.undo_log import UndoTable
from brainwork.vault.parse import parse_file

from findings_support import (  # tests/tui is on sys.path (pytest prepend mode)
    DEAD_SOURCE,
    DIARY,
    SIZE,
    UNTYPED,
    choices,
    codes_and_pages,
    findings_vault_config,
    move_to,
    open_findings,
    page_of,
    plain,
    snap_app,
)
from screen_support import toasts


async def test_findings_are_grouped_with_counts_and_show_evidence(sample_config, settle) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_findings(pilot, settle)
        with app.store.use() as store:
            expected = check(sample_config, store)
        assert {(f.code, f.page, f.line) for f in screen.findings} == {(f.code, f.page, f.line) for f in expected}
        by_code = {code: len(ix) for code, ix in group_findings(screen.findings)}
        assert by_code["dead-link"] == 3 and by_code["untyped"] == 2 and by_code["duplicate"] >= 1
        assert by_code["orphan"] >= 1 and by_code["stub"] == 2 and by_code["diary-title"] >= 1
        olist = screen.query_one(FindingList)
        headers = [str(olist.get_option_at_index(i).prompt) for i in range(olist.option_count)
                   if olist.get_option_at_index(i).id.startswith("g:")]
        assert headers[0].startswith("▾ dead-link  3")
        assert any(h.startswith("▾ untyped  2") for h in headers)
        assert f"Findings · {len(expected)}" in str(screen.query_one("#findings-left").border_title)
        # the first finding (not its header) is highlighted, with evidence and the page
        assert app.focused is olist
        assert screen.current is not None and screen.current.code == "dead-link"

        for _ in range(5):  # j moves down through the findings
            if screen.current.page == DEAD_SOURCE:
                break
            await pilot.press("j")
        assert screen.current.page == DEAD_SOURCE
        await settle(pilot)
        evidence = plain(screen.query_one("#finding-evidence"))
        assert "systems/legacy-ftp" in evidence and "fixes:" in evidence and "l retarget link" in evidence
        assert DEAD_SOURCE in str(screen.query_one("#finding-preview").border_title)
        assert screen.check_action("retarget", ()) is True
        assert screen.check_action("create", ()) is True
        assert screen.check_action("set_type", ()) is None  # greyed: not an untyped page
        assert screen.check_action("merge", ()) is None

        await move_to(pilot, screen, "untyped", UNTYPED)
        assert screen.check_action("set_type", ()) is True
        assert screen.check_action("retarget", ()) is None

        # a group header folds with enter and unfolds again
        await pilot.press("k")
        header = olist.get_option_at_index(olist.highlighted)
        assert screen.current is None and header.id == "g:untyped" and str(header.prompt).startswith("▾ untyped")
        await pilot.press("enter")
        assert "untyped" in screen.collapsed
        assert all(not olist.get_option_at_index(i).id.startswith("f:") or
                   screen.findings[int(olist.get_option_at_index(i).id[2:])].code != "untyped"
                   for i in range(olist.option_count))
        await pilot.press("enter")
        assert "untyped" not in screen.collapsed

        # / filters the list; a terminal sends "/kubernetes⏎" as one burst
        # of keys, all queued before the first is handled: none may run a fix
        for key, char in [("slash", "/"), *((c, c) for c in "kubernetes"), ("enter", "\r")]:
            app.post_message(events.Key(key, char))
        await settle(pilot)
        assert screen.query_one("#findings-filter").value == "kubernetes"
        assert app.screen is screen and app.focused is olist
        shown = [olist.get_option_at_index(i).id for i in range(olist.option_count)]
        assert [screen.findings[int(i[2:])].page for i in shown if i.startswith("f:")] == ["topics/kubernetes-notes"]
        await pilot.press("escape")
        assert olist.option_count > 10

        # e hands the terminal to $EDITOR; a headless run says it cannot
        await pilot.press("e")
        await settle(pilot)
        assert any(t.title == "Edit" and "cannot hand over to an editor" in t.message for t in toasts(app))
        assert app.screen is screen


async def test_set_type_refreshes_the_list_shows_in_the_undo_log_and_undoes(sample_config, settle) -> None:
    path = sample_config.vault / f"{UNTYPED}.md"
    original = path.read_bytes()
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await open_findings(pilot, settle)
        before = len(screen.findings)
        await move_to(pilot, screen, "untyped", UNTYPED)
        await pilot.press("s")
        await settle(pilot)
        prompt = app.screen
        assert isinstance(prompt, ChoicePrompt)
        assert choices(prompt)[0] == "topic  suggested"  # the suggested type comes first
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is screen
        assert parse_file(sample_config.vault, f"{UNTYPED}.md").type == "topic"
        assert ("untyped", UNTYPED) not in codes_and_pages(screen)
        assert len(screen.findings) == before - 1
        # the cursor moved on to the next finding, not to the top
        assert screen.current is not None and screen.current.page != UNTYPED
        assert any("set type of topics/on-call-handover" in t.message for t in toasts(app))

        await pilot.press("3")
        await settle(pilot)
        table = app.screen.query_one(UndoTable)
        assert [str(c) for c in table.get_row_at(0)][2] == "set-type"
        await pilot.press("u")
        await settle(pilot)
        assert path.read_bytes() == original
        await pilot.press("2")
        await settle(pilot)
        assert ("untyped", UNTYPED) in codes_and_pages(screen)
        assert len(screen.findings) == before


async def test_rename_a_diary_title_then_dismiss_a_finding_and_undo(sample_config, settle) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_findings(pilot, settle)
        await move_to(pilot, screen, "diary-title", DIARY)
        finding = screen.current
        old_title = parse_file(sample_config.vault, f"{DIARY}.md").title
        await pilot.press("r")
        prompt = app.screen
        assert isinstance(prompt, TextPrompt)
        box = prompt.query_one("#prompt-input")
        assert box.value == finding.target and finding.target  # the suggested thing-title
        await pilot.press("enter")
        await settle(pilot)
        page = parse_file(sample_config.vault, f"{DIARY}.md")
        assert page.title == finding.target
        assert old_title not in page.aliases  # renamed as Obsidian does: an alias only when asked ([rename] keep_alias)
        assert ("diary-title", DIARY) not in codes_and_pages(screen)

        # dismiss, with a reason; u brings the finding back
        await move_to(pilot, screen, "orphan", "topics/kubernetes-notes")
        await pilot.press("d")
        assert isinstance(app.screen, TextPrompt)
        await pilot.press(*"kept on purpose", "enter")
        await settle(pilot)
        assert ("orphan", "topics/kubernetes-notes") not in codes_and_pages(screen)
        await pilot.press("u")
        await settle(pilot)
        assert ("orphan", "topics/kubernetes-notes") in codes_and_pages(screen)
        assert page.title == parse_file(sample_config.vault, f"{DIARY}.md").title  # only the dismissal was undone


async def test_retarget_a_dead_link_to_a_page_found_by_typing(sample_config, settle) -> None:
    path = sample_config.vault / f"{DEAD_SOURCE}.md"
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_findings(pilot, settle)
        await move_to(pilot, screen, "dead-link", DEAD_SOURCE)
        suggested = [pid for pid, _ in suggestions_of(screen.current)]
        await pilot.press("l")
        prompt = app.screen
        assert isinstance(prompt, ChoicePrompt)
        assert [page_of(c) for c in choices(prompt)[: len(suggested)]] == suggested
        await pilot.press(*"edge proxy")
        await settle(pilot)
        assert choices(prompt) and page_of(choices(prompt)[0]) == "systems/edge-proxy"
        await pilot.press("enter")
        await settle(pilot)
        text = path.read_text(encoding="utf-8")
        assert "[[systems/legacy-ftp]]" not in text and "[[systems/edge-proxy]]" in text
        assert ("dead-link", DEAD_SOURCE) not in codes_and_pages(screen)
        assert app.counts.dead_links == 2  # the status bar counts follow


async def test_create_the_missing_page_and_remove_a_dead_link(sample_config, settle) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_findings(pilot, settle)
        await move_to(pilot, screen, "dead-link", DEAD_SOURCE)
        await pilot.press("c")
        assert isinstance(app.screen, ChoicePrompt)
        assert choices(app.screen)[:2] == ["system  suggested", "(no type)"]  # the folder's type first, then none
        await pilot.press(*"system", "enter")
        await settle(pilot)
        created = sample_config.vault / "systems" / "legacy-ftp.md"
        assert created.exists() and parse_file(sample_config.vault, "systems/legacy-ftp.md").type == "system"
        assert ("dead-link", DEAD_SOURCE) not in codes_and_pages(screen)

        dead = next(f for f in screen.findings if f.code == "dead-link")
        await move_to(pilot, screen, "dead-link", dead.page)
        await pilot.press("x")
        await settle(pilot)
        text = (sample_config.vault / dead.path).read_text(encoding="utf-8")
        assert f"[[{dead.target}" not in text
        assert sum(f.code == "dead-link" for f in screen.findings) == 1


def test_editor_command(monkeypatch) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", "nvim -u NONE")
    assert editor_command(Path("/v/a.md"), 12) == ["nvim", "-u", "NONE", "+12", "/v/a.md"]
    monkeypatch.setenv("VISUAL", "code --wait")
    assert editor_command(Path("/v/a.md"), 12) == ["code", "--wait", "/v/a.md"]


def test_fixes_follow_the_code() -> None:
    from brainwork.analysis.findings import Finding

    dead = Finding("dead-link", "a.md", "a", 3, "m", target="x", key="dead-link:a|x")
    assert fixes_for(dead) == ["rename", "retarget", "create", "unlink", "edit", "dismiss"]
    dup = Finding("duplicate", "a.md", "a", 1, "m", other="b", key="duplicate:a|b")
    assert "merge" in fixes_for(dup) and "retarget" not in fixes_for(dup)
    assert "set_type" in fixes_for(Finding("untyped", "a.md", "a", 1, "m", key="untyped:a"))
    assert "split" in fixes_for(Finding("oversize", "a.md", "a", 1, "m", key="oversize:a"))
    assert fixes_for(None) == []


# -- SVG snapshots (tests/tui/findings_vault/) ---------------------------------------
def test_snapshot_findings_pane(snap_compare, tmp_path, settle) -> None:
    """``2``: six codes grouped with counts, the first dead link highlighted
    with its evidence, fixes and page."""

    async def steps(pilot) -> None:
        await pilot.press("2")

    assert snap_app(snap_compare, findings_vault_config(tmp_path), settle, steps)


def test_snapshot_findings_pane_set_type_prompt(snap_compare, tmp_path, settle) -> None:
    """``s`` on the untyped page: the vault's types to pick from."""

    async def steps(pilot) -> None:
        await pilot.press("2")
        await settle(pilot)
        await move_to(pilot, pilot.app.screen, "untyped", "notes/scratch")
        await pilot.press("s")

    assert snap_app(snap_compare, findings_vault_config(tmp_path), settle, steps)
