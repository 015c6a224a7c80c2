"""Shared set-up of the learning-loop pane tests (Inbox, Rules).

The panes run on a copy of tests/conftest.py's ``exported_template``: the
sample vault indexed and embedded with the REAL bundled model (loaded once:
``get_embedder`` caches it per process, and the workbench's own workers get
the same cached model). Each test copies that folder (vault +
``.brainwork``), so the workbench starts on an unchanged index and never
re-embeds.

The sample vault (see sample_vault/): 25 corrections, 15 of them unresolved
(7 open, 8 clustered); rules: verify-full-cert-chain active since
2026-09-20 (fewer repeat corrections after, by the replay),
backup-and-dry-run-before-migration active since 2026-09-25 (no fewer),
verify-leaf-cert retired, read-ci-log-before-rerun
and cite-sources-in-posts candidates, retry-failed-ci-jobs-automatically
rejected.
"""

from __future__ import annotations


async def show_pane(pilot, settle, key: str, cls):
    """Settle, press the pane's ``key``, settle; check the screen is a ``cls``."""
    await settle(pilot)
    await pilot.press(key)
    await settle(pilot)
    assert isinstance(pilot.app.screen, cls), pilot.app.screen
    return pilot.app.screen


async def open_inbox(pilot, settle):
    from brainwork.tui.screens.inbox import InboxScreen

    return await show_pane(pilot, settle, "4", InboxScreen)


async def open_rules(pilot, settle):
    from brainwork.tui.screens.rules import RulesScreen

    return await show_pane(pilot, settle, "5", RulesScreen)


async def to_correction(pilot, inbox, correction: str) -> None:
    """Move the inbox's cursor down (``j``) to ``correction``."""
    for _ in range(40):
        if inbox.highlighted_id == correction:
            return
        await pilot.press("j")
    raise AssertionError(f"{correction} not in the inbox")


async def to_rule(pilot, rules, rule: str) -> None:
    """Move the Rules pane's cursor down (``j``) to ``rule``."""
    for _ in range(30):
        if rules.current == rule:
            return
        await pilot.press("j")
    raise AssertionError(f"{rule} not reachable in the rule list")


async def open_confirm_form(pilot, settle, inbox, correction: str):
    """The cursor of ``inbox`` on the proposed ``correction``, ``y``: the
    confirm form (a ConfirmCorrectionScreen)."""
    from brainwork.tui.modals.confirm_correction import ConfirmCorrectionScreen

    await to_correction(pilot, inbox, correction)
    assert inbox.check_action("confirm_correction", ()) is True
    await pilot.press("y")
    await settle(pilot)
    assert isinstance(pilot.app.screen, ConfirmCorrectionScreen)
    return pilot.app.screen


async def wait_for_mode(pilot, mode: str, settle) -> None:
    """Settle, then check the app shows pane ``mode``."""
    await settle(pilot)
    assert pilot.app.current_mode == mode, pilot.app.current_mode
