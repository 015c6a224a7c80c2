"""The preview's reading view: hiding ``%%comments%%`` and turning wikilinks
into links, once per page the cursor passes in the graph pane.

    nice -n 10 .venv/bin/python benchmarks/bench_preview.py [VAULT]

VAULT defaults to /work/shared/corpora/obsidian-hub (only read). Each page's
body (after its frontmatter) is cut to the preview's
``PREVIEW_BODY_CHARS`` as the preview does, then passed through
:func:`brainwork.tui.widgets.page_preview.reading_view`; the figures are
the median of 5 runs over every page, CPU seconds (process time) beside wall.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from brainwork.tui.widgets.page_preview import PREVIEW_BODY_CHARS, reading_view

RUNS = 5


def bodies(vault: Path) -> list[str]:
    out = []
    for path in sorted(vault.rglob("*.md")):
        if any(part.startswith(".") for part in path.relative_to(vault).parts):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if text.startswith("---"):
            end = text.find("\n---", 3)
            text = text[end + 4 :] if end > 0 else text
        out.append(text[:PREVIEW_BODY_CHARS])
    return out


def main() -> None:
    vault = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/corpora/obsidian-hub")
    pages = bodies(vault)
    runs = []
    for _ in range(RUNS):
        cpu, wall = time.process_time(), time.perf_counter()
        for body in pages:
            reading_view(body)
        runs.append((time.process_time() - cpu, time.perf_counter() - wall))
    cpu = statistics.median(r[0] for r in runs)
    wall = statistics.median(r[1] for r in runs)
    biggest = max(pages, key=len)
    start = time.process_time()
    for _ in range(20):
        reading_view(biggest)
    one = (time.process_time() - start) / 20
    chars = sum(map(len, pages))
    print(f"{vault.name}: {len(pages)} pages, {chars / 1e6:.1f} M characters shown")
    print(f"all pages: {cpu:.2f} s CPU, {wall:.2f} s wall (median of {RUNS}); "
          f"{1e3 * cpu / len(pages):.2f} ms CPU per page")
    print(f"largest shown body ({len(biggest):,} characters): {1e3 * one:.2f} ms CPU")


if __name__ == "__main__":
    main()
