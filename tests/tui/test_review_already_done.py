"""Pilot test: a pending Review (pane 6) proposal whose change the vault
already has (the page retitled from the command line meanwhile) is
settled by ``y``: marked accepted with a toast saying so and nothing
written, instead of failing and staying pending for ever. A proposal
that fails for another reason stays pending (real store and vault)."""

from __future__ import annotations

from brainwork.learn.dream import dream, queue
from brainwork.ops.rename import rename
from brainwork.store import Store
from brainwork.tui.app import BrainworkApp
from brainwork.tui.screens.dream import DreamScreen, ProposalDecided

from learning_support import show_pane
from screen_support import finished, shown_text, toasts

SIZE = (120, 40)


def vault_bytes(vault) -> dict[str, bytes]:
    return {p.relative_to(vault).as_posix(): p.read_bytes() for p in sorted(vault.rglob("*.md"))
            if ".brainwork" not in p.parts}


async def test_accepting_what_the_vault_already_has_settles_it(rules_config, settle) -> None:
    with Store(rules_config.store) as store:
        report = dream(rules_config, store)
        first, gone = [p for p in report.proposals if p.kind == "retitle"][:2]
        rename(rules_config, store, first.payload["page"], first.payload["new_title"])  # done elsewhere
    (rules_config.vault / f"{gone.payload['page']}.md").unlink()  # its page deleted: not done, just failing
    pending = len(report.proposals)
    before = vault_bytes(rules_config.vault)
    messages: list = []
    app = BrainworkApp(rules_config)
    async with app.run_test(size=SIZE, notifications=True, message_hook=messages.append) as pilot:
        screen = await show_pane(pilot, settle, "6", DreamScreen)
        assert f"Review queue · {pending} pending" in shown_text(app)
        while screen.highlighted.id != first.id:
            await pilot.press("j")
        await pilot.press("y")
        await settle(pilot)
        assert any(isinstance(m, ProposalDecided) and m.proposal_id == first.id and m.state == "accepted"
                   for m in messages)
        [done] = finished(messages, "accept proposal")
        assert not done.error
        said = " ".join(t.message for t in toasts(app))
        assert f"#{first.id} was already done: {first.payload['page']} already has the title" in said
        assert "nothing was written" in said
        assert f"Review queue · {pending - 1} pending" in shown_text(app)

        while screen.highlighted.id != gone.id:
            await pilot.press("j")
        await pilot.press("y")
        await settle(pilot)
        assert finished(messages, "accept proposal")[-1].error  # refused, and said why
        assert f"Review queue · {pending - 1} pending" in shown_text(app)
        with app.store.use() as store:
            state = {p.id: p.state for p in queue(store, None)}
        assert state[first.id] == "accepted" and state[gone.id] == "pending"
    assert vault_bytes(rules_config.vault) == before
