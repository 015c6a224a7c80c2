"""docs/keybindings.md is generated from the live bindings and must match them."""

from __future__ import annotations

import os
from pathlib import Path

from brainwork.tui.app import BrainworkApp
from brainwork.tui.keys import help_sections, keybindings_document

DOC = Path(__file__).resolve().parents[2] / "docs" / "keybindings.md"


async def test_keybindings_doc_is_current(snapshot_config, settle) -> None:
    app = BrainworkApp(snapshot_config)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        text = await keybindings_document(app)
        # every binding has a description
        for pane in app.panes:
            await app.switch_mode(pane.id)
            for section in help_sections(app, app.screen):
                assert all(row.description for row in section.rows), section.title
    if os.environ.get("BRAINWORK_UPDATE_DOCS"):
        DOC.write_text(text, encoding="utf-8")
    assert DOC.read_text(encoding="utf-8") == text, "run .venv/bin/python scripts/keybindings.py to regenerate"
