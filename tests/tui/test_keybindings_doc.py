"""docs/keybindings.md is generated from the live bindings and must match them."""

from __future__ import annotations

import os
from pathlib import Path

from brainwork.tui.app import BrainworkApp
from brainwork.tui.keybindings_doc import keybindings_document
from brainwork.tui.keys import help_sections

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


def test_every_dialog_and_each_of_its_keys_is_in_the_doc() -> None:
    """Each dialog of brainwork.tui.modals has a section in the doc's
    "Dialogs" part, and every key its BINDINGS declare is in that section
    (the inbox's Confirm dialog took ctrl+s and the doc did not say so)."""
    import importlib
    import pkgutil

    from textual.screen import ModalScreen

    import brainwork.tui.modals as modals
    from brainwork.tui.keys import class_rows, key_name
    from brainwork.tui.modals.catalogue import dialogs

    found: set[type] = set()
    for info in pkgutil.iter_modules(modals.__path__):
        module = importlib.import_module(f"{modals.__name__}.{info.name}")
        found |= {c for c in vars(module).values()
                  if isinstance(c, type) and issubclass(c, ModalScreen) and c.__module__ == module.__name__}
    listed = {d.screen for d in dialogs()}
    assert found <= listed, f"dialogs missing from keys.dialogs(): {sorted(c.__name__ for c in found - listed)}"
    doc = DOC.read_text(encoding="utf-8")
    part = doc.split("\n## Dialogs\n", 1)[1].split("\n## ", 1)[0]
    for dialog in dialogs():
        section = part.split(f"\n### {dialog.title}\n", 1)[1].split("\n### ", 1)[0]
        for cls in (dialog.screen, *dialog.widgets):
            for klass in cls.__mro__:
                for b in klass.__dict__.get("BINDINGS", ()) if klass.__module__.startswith("brainwork.") else ():
                    for key in b.key.split(","):
                        assert f"`{key_name(key.strip())}`" in section, (dialog.title, key)
    confirm = part.split("\n### Confirm the correction\n", 1)[1].split("\n### ", 1)[0]
    assert "| `ctrl+s` | Confirm |" in confirm, confirm
    assert class_rows(dialogs()[0].screen)  # the approve dialog's esc and ctrl+s
