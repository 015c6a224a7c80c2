"""Pilot test: the workbench on a vault with no pages at all."""

from __future__ import annotations

from pathlib import Path

from brainwork.config import load_config
from brainwork.tui.app import BrainworkApp
from brainwork.tui.screens.graph import GraphScreen


def plain(widget) -> str:
    return str(widget.render())


async def test_an_empty_vault_says_it_has_no_pages_once_indexed(tmp_path: Path, settle) -> None:
    """The first sync of an empty vault writes nothing (no reload follows);
    the centre still turns from "Indexing the vault…" to the hint."""
    vault = tmp_path / "empty"
    vault.mkdir()
    app = BrainworkApp(load_config(vault))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GraphScreen)
        assert "0 pages" in plain(screen.query_one("#status-counts"))
        message = plain(screen.query_one("#centre-message"))
        assert "The vault has no pages yet" in message and "Indexing" not in message

        await pilot.press("ctrl+r")
        await settle(pilot)
        assert "The vault has no pages yet" in plain(screen.query_one("#centre-message"))
