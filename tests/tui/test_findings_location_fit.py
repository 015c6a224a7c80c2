"""Pilot test: at 80x24 the Findings pane's evidence panel shows a long
finding place on one line, cut from the left so the line number stays
("…renew-cert-edi-endpoint:15"), instead of folding ":15" onto a line of
its own; at 160x50 it stays whole beside the code (real store)."""

from __future__ import annotations

from brainwork.tui.app import BrainworkApp
from brainwork.tui.screens.findings import fit_location

from findings_support import DEAD_SOURCE, move_to, open_findings, plain


def test_fit_location_keeps_the_line_number() -> None:
    assert fit_location("tasks/2026-09-09-renew-cert-edi-endpoint:15", 20) == "…ert-edi-endpoint:15"
    assert fit_location("a:1", 20) == "a:1"


async def test_a_long_place_keeps_its_line_number_at_80_columns(sample_config, settle) -> None:
    for size in ((80, 24), (160, 50)):
        app = BrainworkApp(sample_config)
        async with app.run_test(size=size) as pilot:
            screen = await open_findings(pilot, settle)
            await move_to(pilot, screen, "dead-link", DEAD_SOURCE)
            await settle(pilot)
            line = screen.current.line
            text = plain(screen.query_one("#finding-evidence")).splitlines()
            if size[0] == 80:
                assert text[0].strip() == "dead-link"
                assert text[1].startswith("…") and text[1].endswith(f"endpoint:{line}")
            else:
                assert text[0] == f"dead-link  {DEAD_SOURCE}:{line}"


async def test_the_list_keeps_line_numbers_at_80_columns(sample_config, settle) -> None:
    from screen_support import screen_text

    app = BrainworkApp(sample_config)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_findings(pilot, settle)
        case_study = next(f for f in screen.findings if f.code == "dead-link" and "case-study" in f.page)
        rows = screen_text(app)
        assert any(r.rstrip(" │").endswith(f"{case_study.page[-12:]}:{case_study.line}") or
                   f"{case_study.page[-12:]}:{case_study.line}" in r for r in rows), "\n".join(rows)
        assert not any("case-study-north…" in r for r in rows)
