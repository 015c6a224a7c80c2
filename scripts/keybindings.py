"""Regenerate docs/keybindings.md from the workbench's live bindings.

    .venv/bin/python scripts/keybindings.py           # rewrite the file
    .venv/bin/python scripts/keybindings.py --check   # exit 1 if it is stale

The workbench is run headless (Textual's ``App.run_test``) on a temporary
copy of ``tests/tui/snapshot_vault`` and every pane is shown once; the text
comes from :func:`brainwork.tui.keybindings_doc.keybindings_document`, the same lists
the help screen (``?``) shows.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "keybindings.md"
VAULT = REPO / "tests" / "tui" / "snapshot_vault"


async def document() -> str:
    from brainwork.config import load_config
    from brainwork.tui.app import BrainworkApp
    from brainwork.tui.keybindings_doc import keybindings_document

    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        shutil.copytree(VAULT, vault, ignore=shutil.ignore_patterns(".brainwork"))
        app = BrainworkApp(load_config(vault), index_on_start=False, serve=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            text = await keybindings_document(app)
            await app.workers.wait_for_complete()
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only report whether the file is current")
    args = parser.parse_args()
    text = asyncio.run(document())
    if args.check:
        current = DOC.read_text(encoding="utf-8") == text
        print(f"{DOC.relative_to(REPO)} is {'current' if current else 'out of date'}")
        return 0 if current else 1
    DOC.write_text(text, encoding="utf-8")
    print(f"wrote {DOC.relative_to(REPO)} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
