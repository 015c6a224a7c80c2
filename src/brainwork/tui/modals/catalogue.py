"""Every dialog of the workbench with where it opens and the keys it reads,
for the "Dialogs" part of docs/keybindings.md (:func:`dialogs_markdown`).
Here, beside the dialogs, so the key listing (``brainwork.tui.keys``) does
not import them."""

from __future__ import annotations

from dataclasses import dataclass

from brainwork.tui.keys import class_rows


@dataclass(frozen=True)
class Dialog:
    """One dialog for docs/keybindings.md: its ``screen`` class, ``title``,
    where it is ``opened``, the brainwork ``widgets`` in it that add keys of
    their own, and ``also``: the keys it reads that are no binding (``enter``
    on a button or in a box, ``tab``, ``space`` on a check box), worded as
    its border words them."""

    screen: type
    title: str
    opened: str
    widgets: tuple[type, ...] = ()
    also: str = ""


def dialogs() -> list[Dialog]:
    """Every dialog of the workbench (imported here, not at start-up: the
    panes import theirs when first shown)."""
    from brainwork.tui.modals.approve_rule import ApproveRuleScreen
    from brainwork.tui.modals.confirm import ConfirmScreen
    from brainwork.tui.modals.confirm_correction import ConfirmCorrectionScreen
    from brainwork.tui.modals.help import HelpScreen
    from brainwork.tui.modals.merge_confirm import MergeConfirmScreen
    from brainwork.tui.modals.parse_errors import ParseErrorsScreen
    from brainwork.tui.modals.pick_rule import PickRuleScreen, RuleOptions
    from brainwork.tui.modals.prompts import ChoicePrompt, TextPrompt
    from brainwork.tui.modals.reason import ReasonScreen
    from brainwork.tui.modals.rename_prompt import RenamePrompt
    from brainwork.tui.modals.replay import ReplayScreen

    return [
        Dialog(ApproveRuleScreen, "Approve a rule", "Rules: `a`, and `s` after picking the older rule",
               also="`tab`/`shift+tab` move between the fields and the evidence; `enter` in the title or "
                    "apply field moves to the next one; `space` toggles the highlighted correction"),
        Dialog(ConfirmCorrectionScreen, "Confirm the correction", "Inbox: `y` on a proposed correction",
               also="`tab`/`enter` move to the next box; `enter` in the last one confirms"),
        Dialog(ReasonScreen, "Reason", "Inbox: `d`; Rules: `r`, `R`",
               also="`enter` confirms (an empty reason only where it is optional)"),
        Dialog(PickRuleScreen, "Pick a rule", "Inbox: `l`; Rules: `s`", widgets=(RuleOptions,),
               also="`enter` picks the highlighted rule"),
        Dialog(MergeConfirmScreen, "Merge pages", "Findings: `m`; Graph: `m` after the picker; Review: `y`",
               also="`enter` on Cancel (the default) cancels; `tab` then `enter` merges"),
        Dialog(ConfirmScreen, "Confirm", "Review: `y` on a merge proposal",
               also="`enter` on Cancel (the default) cancels; `tab` then `enter` confirms"),
        Dialog(RenamePrompt, "Rename", "Graph and Findings: `r`; palette: `page: rename`",
               also="`enter` renames; `tab` then `space` ticks “keep the old title as an alias”"),
        Dialog(TextPrompt, "Text box", "Findings: `d` (why the finding is dismissed)", also="`enter` accepts"),
        Dialog(ChoicePrompt, "Choice list", "Graph: `m`, `s`, `g`; Findings: `l`, `s`, `c`",
               also="type to narrow the list; `enter` accepts the highlighted choice"),
        Dialog(ParseErrorsScreen, "Parse errors", "palette: `index: parse errors`",
               also="`up`/`down` choose a file; `enter` shows its page in the graph pane"),
        Dialog(ReplayScreen, "Replay", "Rules: `p`"),
        Dialog(HelpScreen, "Help", "`?` in any pane"),
    ]


def dialogs_markdown() -> str:
    """The "Dialogs" part of docs/keybindings.md: one table per dialog (its
    keys and those of the brainwork widgets in it), then the keys that are
    no binding."""
    out = ["## Dialogs\n"]
    for dialog in dialogs():
        out.append(f"### {dialog.title}\n")
        out.append(f"Opened by {dialog.opened}.\n")
        rows = class_rows(dialog.screen)
        for widget in dialog.widgets:
            rows += class_rows(widget)
        out.append("| Keys | Action |")
        out.append("|---|---|")
        for row in rows:
            keys = ", ".join(f"`{k}`" for k in row.keys).replace("`|`", "`\\|`")
            out.append(f"| {keys} | {row.description} |")
        out.append("")
        if dialog.also:
            out.append(f"Also: {dialog.also}.\n")
    return "\n".join(out)
