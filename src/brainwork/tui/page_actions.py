"""Page operations started where the page is shown: the graph pane (its
list, its neighbourhood tree) and the palette's ``page: …`` commands.

They use the same prompts, ``ops`` functions and operation runner as the
findings pane's fixes, so the result, the undo entry and the notification
are the same. A merge is planned in the operation worker, then confirmed
(default Cancel; it cannot be undone). ``moved(old_id, new_id)`` callbacks
tell the caller a page now lives under another id, so a view centred on it
can follow.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path
from typing import Callable

from textual.app import SuspendNotSupported
from textual.content import Content

from brainwork.service.views import page_title
from brainwork.tui.modals.merge_confirm import MergeConfirmScreen
from brainwork.tui.modals.prompts import ChoicePrompt
from brainwork.tui.modals.rename_prompt import RenameAnswer, RenamePrompt, rename_note
from brainwork.tui.workbench import Workbench

#: A page moved from its first id to its second.
Moved = Callable[[str, str], None]

#: Editors known to accept ``+LINE`` before the file name.
LINE_EDITORS = {"vi", "vim", "nvim", "nano", "emacs", "emacsclient", "micro", "kak", "hx", "helix", "joe", "ne"}


def editor_command(path: Path, line: int | None) -> list[str]:
    """``$VISUAL`` / ``$EDITOR`` (else ``vi``) on ``path``, at ``line`` when
    the editor is known to take ``+LINE``."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    cmd = shlex.split(editor)
    if line and Path(cmd[0]).name in LINE_EDITORS:
        cmd.append(f"+{line}")
    return cmd + [str(path)]


def _title(app: Workbench, page_id: str) -> str:
    return page_title(app.pages or (), page_id)


def _path(app: Workbench, page_id: str) -> str | None:
    return next((p.path for p in app.pages or () if p.id == page_id), None)


def rename(app: Workbench, page_id: str, moved: Moved | None = None) -> None:
    """Ask for a new title (the current one pre-filled) and rename: every
    link to the page is rewritten; the old title is kept as an alias only
    when the dialog's box is ticked (it starts as ``[rename] keep_alias``);
    undoable."""
    current = _title(app, page_id)
    note = rename_note(current, page_id)

    def done(result) -> None:
        new_id = result.plan.new_id
        if moved is not None and new_id != page_id:
            moved(page_id, new_id)

    def chosen(answer: RenameAnswer | None) -> None:
        if answer is None or not answer.title or answer.title == current:
            return
        from brainwork.ops.rename import rename as rename_page

        app.operations.run(
            "rename",
            lambda c, s: rename_page(c, s, page_id, answer.title, keep_alias=answer.keep_alias), done=done,
        )

    app.push_screen(
        RenamePrompt(
            f"Rename {page_id}", note, value=current, placeholder="new title",
            keep_alias=app.config.rename.keep_alias,
        ),
        chosen,
    )


def set_type(app: Workbench, page_id: str) -> None:
    """Pick one of the vault's types (the current one marked) and write it;
    only the ``type:`` line changes; undoable."""
    now = next((p.type for p in app.pages or () if p.id == page_id), None)
    choices = [
        (t, Content.assemble(t, ("  current", "$text-muted")) if t == now else t, t) for t in app.config.page_types
    ]

    def chosen(type_: str | None) -> None:
        if not type_ or type_ == now:
            return
        from brainwork.ops.fixes import set_type as write_type

        app.operations.run("set type", lambda c, s: write_type(c, s, page_id, type_))

    app.push_screen(
        ChoicePrompt(
            f"Set the type of {page_id}", choices,
            note=f"Now: {now or 'untyped'}. Only the type: line changes (added if missing). Undoable with u.",
        ),
        chosen,
    )


def _page_choices(app: Workbench, exclude: str) -> Callable[[str], list]:
    def search(text: str) -> list:
        if app.page_search is None:
            return []
        return [
            (hit.id, Content.assemble(hit.title or hit.id, ("  " + hit.id, "$text-muted")), hit.id)
            for hit in app.page_search.search(text, 20)
            if hit.id != exclude
        ]

    return search


def duplicate_partners(app: Workbench, page_id: str) -> list[tuple[str, float]]:
    """The pages the findings pane's last check names as duplicates of
    ``page_id`` (either side of the pair), as (page id, similarity), most
    similar first; only pages still in the vault. Empty before that pane
    has checked: the duplicate check reads every page's body, too slow to
    run behind one key."""
    screen = app.pane_screen("findings")
    found = getattr(screen, "findings", None) or ()
    known = {p.id for p in app.pages or ()}
    partners: dict[str, float] = {}
    for f in found:
        if f.code != "duplicate":
            continue
        other = f.other if f.page == page_id else f.page if f.other == page_id else None
        if other and other != page_id and other in known:
            partners[other] = max(partners.get(other, 0.0), f.score or 0.0)
    return sorted(partners.items(), key=lambda kv: -kv[1])


def merge_into(app: Workbench, page_id: str, moved: Moved | None = None) -> None:
    """Pick the page to merge ``page_id`` into, plan the merge in the
    operation worker, then confirm it in the merge modal (``s`` there swaps
    the direction). A merge cannot be undone. The pages a duplicate finding
    pairs with ``page_id`` (:func:`duplicate_partners`) are listed first,
    the most similar highlighted, so ``enter`` takes it; typing searches
    every page."""

    def chosen(target: str | None) -> None:
        if target:
            plan(page_id, target)

    def plan(source: str, target: str) -> None:
        from brainwork.ops.merge import plan_merge

        app.operations.run(
            "plan merge", lambda c, s: plan_merge(c, s, source, target),
            message=lambda _plan: "", done=confirm, reload=False,
        )

    def confirm(merge_plan) -> None:
        def answered(answer: str | None) -> None:
            if answer == "swap":
                plan(merge_plan.target, merge_plan.source)
            elif answer == "merge":
                from brainwork.ops.merge import merge

                def merged(_result) -> None:
                    if moved is not None:
                        moved(merge_plan.source, merge_plan.target)

                app.operations.run("merge", lambda c, s: merge(c, s, merge_plan), done=merged)

        app.push_screen(MergeConfirmScreen(merge_plan), answered)

    partners = [
        (other, Content.assemble(_title(app, other), ("  " + other, "$text-muted"), (f"  duplicate {score:.2f}", "$accent")),
         f"{_title(app, other)} {other}")
        for other, score in duplicate_partners(app, page_id)
    ]
    app.push_screen(
        ChoicePrompt(
            f"Merge {page_id} into…", partners,
            note=("Its duplicates first; type to find another page that stays. " if partners else "Type to find the page that stays; ")
            + ("The" if partners else "the") + " next step shows everything the merge does and asks again "
            "(a merge cannot be undone).",
            search=_page_choices(app, page_id), placeholder="type a page title",
        ),
        chosen,
    )


def split(app: Workbench, page_id: str) -> None:
    """Split the page at its ``## `` headings (one new page each, linked
    from what remains); undoable. A page without such headings is refused
    with the reason."""
    from brainwork.ops.split import split_page

    app.operations.run("split", lambda c, s: split_page(c, s, page_id))


def edit(app: Workbench, page_id: str) -> None:
    """Open the page's file in ``$VISUAL``/``$EDITOR`` (the workbench is
    suspended meanwhile), then re-index: the vault is the truth."""
    rel = _path(app, page_id)
    if rel is None:
        app.notify(f"{page_id} is not a page of the vault.", title="Edit", severity="warning")
        return
    cmd = editor_command(app.config.vault / rel, None)
    try:
        with app.suspend():
            subprocess.run(cmd, check=False)
    except SuspendNotSupported:
        app.notify("This terminal cannot hand over to an editor.", title="Edit", severity="warning")
        return
    except OSError as exc:
        app.notify(f"Cannot start the editor {cmd[0]!r}: {exc}. Set $EDITOR.", title="Edit", severity="error")
        return
    app.action_reindex(quiet=True)
