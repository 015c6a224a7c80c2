"""The README's picture of the workbench, made from the real app.

    .venv/bin/python scripts/screenshot.py                 # docs/workbench.svg + docs/workbench.txt
    .venv/bin/python scripts/screenshot.py --size 160x50   # another terminal size

Runs ``brainwork open`` headless (Textual's ``App.run_test``) on a temporary
copy of ``sample_vault/`` at 120x40, indexes it, centres the graph pane on
one task (the certificate renewal with a correction and a dead link),
highlights the correction in its neighbourhood and saves the screen as SVG
(``App.save_screenshot``) and as plain text (the same rendering, without
colour). The copy is named ``sample_vault`` and the working directory is
its parent, so the status bar shows ``vault: sample_vault``.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import shutil
import sys
import tempfile
from pathlib import Path

from rich.console import Console

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"

#: The page the picture centres on, and the neighbour it highlights.
PAGE = "tasks/2026-09-09-renew-cert-edi-endpoint"
HIGHLIGHT = "corrections/2026-09-09-check-served-chain-not-local-file"


def screen_text(app) -> str:
    """The app's screen as plain text, one line per terminal row (rendered
    the way :meth:`textual.app.App.export_screenshot` renders it)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system="truecolor", record=True, legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return "\n".join(line.rstrip() for line in console.export_text(styles=False).splitlines()) + "\n"


async def settle(pilot, rounds: int = 60) -> None:
    """Wait until no worker runs (workers start others through messages)."""
    quiet = 0
    for _ in range(rounds):
        try:
            await pilot.app.workers.wait_for_complete()
        except Exception:  # an exclusive worker gave way to a newer one
            pass
        await pilot.pause()
        quiet = quiet + 1 if all(w.is_finished for w in pilot.app.workers) else 0
        if quiet >= 3:
            return


async def shoot(size: tuple[int, int], stem: str) -> tuple[Path, Path]:
    from brainwork.config import load_config
    from brainwork.tui.app import BrainworkApp
    from brainwork.tui.widgets.neighbour_tree import NeighbourTree

    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "sample_vault"
        shutil.copytree(REPO / "sample_vault", vault, ignore=shutil.ignore_patterns(".brainwork"))
        os.chdir(tmp)
        os.environ.pop("BRAINWORK_THEME", None)
        app = BrainworkApp(load_config(vault), serve=False)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            app.open_page(PAGE)
            await settle(pilot)
            tree = app.screen.query_one(NeighbourTree)
            tree.select_page(HIGHLIGHT)
            await settle(pilot)
            svg = DOCS / f"{stem}.svg"
            app.save_screenshot(svg.name, str(DOCS))
            txt = DOCS / f"{stem}.txt"
            txt.write_text(screen_text(app), encoding="utf-8")
        os.chdir(REPO)
    return svg, txt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="120x40", help="terminal size, COLUMNSxROWS (default 120x40)")
    parser.add_argument("--name", default="workbench", help="file stem in docs/ (default workbench)")
    args = parser.parse_args()
    cols, rows = (int(n) for n in args.size.lower().split("x"))
    for path in asyncio.run(shoot((cols, rows), args.name)):
        print(f"wrote {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
