"""At 80x24 the reason dialog (the Rules pane's Reject) leaves the screen's
bottom rows to the toasts: an error toast shown while it is open (here after
an empty reason was refused) does not cover its input or its buttons."""

from __future__ import annotations

from textual.widgets import Input
from textual.widgets._toast import Toast

from brainwork.tui.app import BrainworkApp
from brainwork.tui.modals.reason import ReasonScreen

from learning_support import open_rules  # tests/tui is on sys.path (pytest prepend mode)

#: A workbench error toast of three lines at 80 columns (a toast is at most
#: half the screen wide), as an operation's failure reads.
ERROR = ("brainwork: error: rules/read-ci-log-before-rerun.md changed on disk since it was read; "
         "nothing was changed")


async def test_an_error_toast_leaves_the_reject_dialog_usable(rules_config, settle) -> None:
    app = BrainworkApp(rules_config)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await open_rules(pilot, settle)
        await pilot.press("r")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, ReasonScreen)
        await pilot.press("enter")  # empty: refused in the dialog, which stays
        assert app.screen is modal and modal.query_one("#reason-problem").display
        app.notify(ERROR, title="reject rule", severity="error")
        await settle(pilot)
        toasts = [t.region for t in modal.query(Toast)]
        assert toasts and all(t.height >= 5 for t in toasts)  # title and three lines of text
        dialog = modal.query_one("#reason-dialog").region
        assert dialog.y >= 0 and dialog.bottom <= 24
        for part in (modal.query_one(Input), modal.query_one("#reason-buttons"), modal.query_one("#reason-problem")):
            assert all(not part.region.overlaps(t) for t in toasts), (part, part.region, toasts)
