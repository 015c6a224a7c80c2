"""Workbench dialogs and panes saying what they do: the rename dialog's alias
box, focus after the last finding of a filtered list is fixed, the page
list's zoom, clipped undo-log cells. Assertions are
on what the screen shows, the files written and the messages posted."""

from __future__ import annotations

from brainwork.config import load_config
from brainwork.tui.app import BrainworkApp
from brainwork.vault.parse import parse_file

from screen_support import finished, screen_text  # tests/tui is on sys.path (pytest prepend mode)

SMALL = (80, 24)


def _renamed(vault):
    """The certbot page after the rename (its file follows its title)."""
    return parse_file(vault, "tools/ACME certbot.md")


async def test_rename_dialog_writes_an_alias_only_when_its_box_is_ticked(snapshot_config, settle, open_rename) -> None:
    messages: list = []
    app = BrainworkApp(snapshot_config)
    async with app.run_test(size=SMALL, message_hook=messages.append) as pilot:
        text = await open_rename(pilot)
        assert "stays as an alias" not in text  # no promise the rename does not keep
        assert "Keep the old title as an alias" in text
        app.screen.query_one("#prompt-input").value = "ACME certbot"
        await pilot.press("enter")
        await settle(pilot)
        done = finished(messages, "rename")
        assert done and not done[-1].error
        page = _renamed(snapshot_config.vault)
        assert page.title == "ACME certbot" and "certbot" not in page.aliases  # box unticked: no alias

        await pilot.press("u")
        await settle(pilot)
        await open_rename(pilot)
        app.screen.query_one("#prompt-input").value = "ACME certbot"
        await pilot.press("tab", "space")  # tick the box
        await pilot.press("shift+tab", "enter")
        await settle(pilot)
        assert not finished(messages, "rename")[-1].error
        page = _renamed(snapshot_config.vault)
        assert page.title == "ACME certbot" and "certbot" in page.aliases


async def test_rename_dialog_box_starts_as_the_vault_setting(snapshot_config, settle, open_rename) -> None:
    (snapshot_config.vault / "brainwork.toml").write_text("[rename]\nkeep_alias = true\n", encoding="utf-8")
    config = load_config(snapshot_config.vault)
    messages: list = []
    app = BrainworkApp(config)
    async with app.run_test(size=SMALL, message_hook=messages.append) as pilot:
        await open_rename(pilot)
        assert app.screen.query_one("#rename-keep-alias").value is True
        app.screen.query_one("#prompt-input").value = "ACME certbot"
        await pilot.press("enter")
        await settle(pilot)
        assert not finished(messages, "rename")[-1].error
        assert "certbot" in _renamed(config.vault).aliases


async def test_fixing_the_last_finding_of_a_filtered_list_keeps_the_keys_on_the_list(sample_config, settle) -> None:
    page = sample_config.vault / "topics/on-call-handover.md"
    original = page.read_bytes()
    messages: list = []
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SMALL, message_hook=messages.append) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        await pilot.press("slash", *"on-call", "enter")
        await settle(pilot)
        assert "untyped" in "\n".join(screen_text(app))
        await pilot.press("s")
        await settle(pilot)
        await pilot.press("enter")  # the suggested type
        await settle(pilot)
        assert finished(messages, "set type") and page.read_bytes() != original
        lines = screen_text(app)
        assert lines[-1].startswith(" q Quit  ? Help")  # the keys of the pane, not of a text box
        await pilot.press("u")
        await settle(pilot)
        undone = finished(messages, "undo")
        assert undone and not undone[-1].error
        assert page.read_bytes() == original
        assert "“u”" not in "\n".join(screen_text(app))  # not typed into the filter


async def test_undo_log_cuts_long_kinds_and_summaries_with_an_ellipsis(sample_config, settle) -> None:
    from brainwork.ops import fixes

    app = BrainworkApp(sample_config)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        page = "topics/on-call-handover"
        app.operations.run("set type", lambda c, s: fixes.set_type(c, s, page, "topic"))
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        row = next(line for line in screen_text(app) if "set-type" in line)
        assert "set type of topics/on-c" in row and "…" in row  # the summary is cut, and says so
        assert row.rstrip().endswith("│")  # inside the panel: nothing runs past its edge


async def test_zoom_on_the_page_list_gives_it_the_whole_width(sample_config, settle) -> None:
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await pilot.press("z")  # the page list has the focus at start
        await settle(pilot)
        lines = screen_text(app)
        assert lines[1].startswith("╭─ Pages") and lines[1].endswith("╮") and len(lines[1]) == 80
        assert "╱" not in "\n".join(lines)  # no maximise background beside it
        await pilot.press("greater_than_sign")  # a session width set with < / > is overruled too
        await settle(pilot)
        await pilot.press("z", "z")
        await settle(pilot)
        assert screen_text(app)[1].endswith("╮") and "╱" not in "\n".join(screen_text(app))
        await pilot.press("z")
        await settle(pilot)
        top = screen_text(app)[1]
        assert "Pages" in top and top.count("╭─") == 3 and "╭─ Previ" in top  # restored: the three panels again
