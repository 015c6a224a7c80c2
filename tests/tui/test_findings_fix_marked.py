"""Pilot test: ``F`` with marked findings always answers. Marked stubs
(no suggested fix) are not advertised as "F fixes", and ``F`` says why it
does nothing; with a fixable finding among the marks the border counts it,
and ``F`` fixes it and says how many marks it left (real store, real files)."""

from __future__ import annotations

from brainwork.tui.app import BrainworkApp
from brainwork.tui.screens.findings import FindingsResolved

from findings_support import SIZE, move_to, open_findings
from screen_support import toasts


async def test_f_on_marks_without_a_suggested_fix_says_why(sample_config, settle) -> None:
    messages: list = []
    app = BrainworkApp(sample_config)
    async with app.run_test(size=SIZE, notifications=True, message_hook=messages.append) as pilot:
        screen = await open_findings(pilot, settle)
        stubs = [f for f in screen.findings if f.code == "stub"]
        assert len(stubs) == 2
        for f in stubs:
            await move_to(pilot, screen, "stub", f.page)
            await pilot.press("space")
        await settle(pilot)
        subtitle = str(screen.query_one("#findings-left").border_subtitle)
        assert subtitle == "2 marked: no suggested fix · d dismisses · esc unmarks"
        assert screen.check_action("fix_suggested", ()) is True
        await pilot.press("F")
        await settle(pilot)
        [told] = [t for t in toasts(app) if t.title == "Fix"]
        assert told.severity == "warning" and "None of the 2 marked findings has a suggested fix" in told.message
        assert not any(isinstance(m, FindingsResolved) for m in messages)

        untyped = next(f for f in screen.findings if f.code == "untyped" and f.target)
        await move_to(pilot, screen, "untyped", untyped.page)
        await pilot.press("space")
        await settle(pilot)
        assert str(screen.query_one("#findings-left").border_subtitle).startswith("3 marked: F fixes 1 ·")
        await pilot.press("F")
        await settle(pilot)
        resolved = [m for m in messages if isinstance(m, FindingsResolved)]
        assert resolved and resolved[-1].keys == (untyped.key,)
        assert any("2 marked without a suggested fix left as they are" in t.message for t in toasts(app))
