"""Store-only actions an operation may carry: the table of what each does.

An action is a JSON object ``{"do": name, ...}`` recorded with its
operation in the undo log, so every entry of :data:`STORE_ACTIONS` is kept
as long as a recorded operation may name it. Both sides of an action take
the store and the action and must be idempotent: recovery may run them
twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from brainwork.errors import UserError
from brainwork.store import Store
from brainwork.store import dismissals, learning

#: ``do(store, action)`` or ``undo(store, action)``.
ActionFn = Callable[[Store, dict], None]


@dataclass(frozen=True, slots=True)
class StoreAction:
    """What an action does (``do``) and what takes it back (``undo``)."""

    do: ActionFn
    undo: ActionFn


def _dismiss(store: Store, action: dict) -> None:
    dismissals.dismiss(store, action["key"], action.get("reason") or "")


def _undismiss(store: Store, action: dict) -> None:
    dismissals.undismiss(store, action["key"])


def _record_pass(store: Store, action: dict) -> None:
    learning.record_pass(store, action["at"], action["corrections"], action["clusters"], action["candidates_created"],
                         pass_id=action["id"])


def _forget_pass(store: Store, action: dict) -> None:
    learning.forget_pass(store, action["id"], action["at"])


#: action name -> what it does; ``{"do": "dismiss", "key": finding key,
#: "reason": text}`` and ``{"do": "undismiss", "key": ..., "reason": the
#: reason to put back}``.
STORE_ACTIONS: dict[str, StoreAction] = {
    "dismiss": StoreAction(do=_dismiss, undo=_undismiss),
    "undismiss": StoreAction(do=_undismiss, undo=_dismiss),
    # {"do": "consolidation-pass", "id", "at", "corrections", "clusters",
    # "candidates_created"}: the pass a consolidation's operation made
    # (brainwork.store.learning.record_pass), so undoing the operation makes
    # the corrections it read new again.
    "consolidation-pass": StoreAction(do=_record_pass, undo=_forget_pass),
}


def register_store_action(name: str, do: ActionFn, undo: ActionFn) -> None:
    """Add ``name`` to :data:`STORE_ACTIONS` (tests and extensions)."""
    STORE_ACTIONS[name] = StoreAction(do=do, undo=undo)


def check_known(actions: Iterable[dict]) -> None:
    """Raises UserError naming the first action :data:`STORE_ACTIONS` lacks."""
    for action in actions:
        if action.get("do") not in STORE_ACTIONS:
            raise UserError(f"unknown store action {action.get('do')!r}")


def run_actions(store: Store, actions: Iterable[dict], undo: bool) -> None:
    """Run ``actions`` in order, or take them back in reverse order."""
    actions = list(actions)
    check_known(actions)
    for action in reversed(actions) if undo else actions:
        entry = STORE_ACTIONS[action["do"]]
        (entry.undo if undo else entry.do)(store, action)
