"""Key bindings as the help screen and docs/keybindings.md list them.

Everything is read from the live ``BINDINGS`` of the app, the active pane's
screen and every focusable widget on it, so the help cannot drift from the
code. Keys bound to the same action with the same description are listed
on one row (``down, j``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode
from textual.screen import Screen

#: How key names are written in the help.
KEY_NAMES = {
    "slash": "/",
    "question_mark": "?",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "full_stop": ".",
    "less_than_sign": "<",
    "greater_than_sign": ">",
    "comma": ",",
    "minus": "-",
    "plus": "+",
    "space": "space",
    "escape": "esc",
}


def key_name(key: str) -> str:
    """``"left_square_bracket"`` -> ``"["``, ``"ctrl+p"`` stays."""
    parts = key.split("+")
    return "+".join(KEY_NAMES.get(p, p) for p in parts)


@dataclass
class KeyRow:
    """One action: its keys, description, and whether the footer shows it."""

    keys: list[str]
    description: str
    action: str
    in_footer: bool


@dataclass
class KeySection:
    """A titled group of rows; ``own`` marks the keys brainwork declares,
    ``generic`` those Textual's widgets bring."""

    title: str
    rows: list[KeyRow] = field(default_factory=list)
    own: bool = False
    #: Keys Textual's widgets bring (scrolling, editing): listed last, folded.
    generic: bool = False


#: Better words for bindings Textual itself adds.
DESCRIPTIONS = {"command_palette": "Command palette: pages, panes, themes, commands"}


def _describe(binding: Binding) -> str:
    if binding.action in DESCRIPTIONS:
        return DESCRIPTIONS[binding.action]
    if binding.description:
        return binding.description
    return binding.action.split("(")[0].replace("_", " ").strip().capitalize()


def _declared_keys(node: DOMNode, package: str) -> set[tuple[str, str]]:
    """(key, action) of the bindings the classes of ``package`` in
    ``node``'s class hierarchy declare."""
    out: set[tuple[str, str]] = set()
    for cls in type(node).__mro__:
        if not cls.__module__.startswith(package):
            continue
        for b in cls.__dict__.get("BINDINGS", ()):
            keys, action = (b.key, b.action) if isinstance(b, Binding) else (b[0], b[1])
            for key in keys.split(","):
                out.add((key.strip(), action))
    return out


def _generic_keys(node: DOMNode) -> set[tuple[str, str]]:
    """The bindings ``node`` inherits from Textual's classes (scrolling,
    focus moves, input editing) and brainwork does not declare again;
    everything else (declared by brainwork, or bound at run time such as
    the pane digits) is the product's own."""
    return _declared_keys(node, "textual.") - _declared_keys(node, "brainwork.")


def rows_for(node: DOMNode, which: str = "all") -> list[KeyRow]:
    """The bindings of one node, grouped by action (the first binding's
    description names the row), in declaration order; system bindings are
    left out. ``which``: ``"own"`` (declared by brainwork's classes),
    ``"generic"`` (inherited from Textual's) or ``"all"``."""
    generic = _generic_keys(node) if which != "all" else set()
    rows: dict[str, KeyRow] = {}
    for key, bindings in node._bindings.key_to_bindings.items():
        for b in bindings:
            if b.system:
                continue
            if which != "all" and ((key, b.action) in generic) != (which == "generic"):
                continue
            row = rows.setdefault(b.action, KeyRow([], _describe(b), b.action, False))
            name = key_name(key)
            if name not in row.keys:
                row.keys.append(name)
            row.in_footer = row.in_footer or b.show
    return list(rows.values())


def _widget_title(node: DOMNode) -> str:
    title = getattr(node, "HELP_TITLE", None)
    if title:
        return title
    name = type(node).__name__
    return "".join(f" {c.lower()}" if c.isupper() and i else c for i, c in enumerate(name))


#: Title of the folded section of Textual's generic keys.
GENERIC_TITLE = "Textual's generic keys (scrolling, lists, text boxes)"


def help_sections(app: App, screen: Screen) -> list[KeySection]:
    """Sections for the help screen, in the order a user needs them: the
    pane's own keys (its screen's, then those brainwork's widgets on it add,
    one section per kind of widget), the app's keys (``Everywhere``), then
    the keys Textual's widgets bring (scrolling, input editing; marked
    ``generic``, shown folded), one section per kind of widget."""
    pane = getattr(app, "pane_for_screen", lambda s: None)(screen)
    pane_title = f"Pane {pane.key}: {pane.title}" if pane else f"Screen: {type(screen).__name__}"
    own = [KeySection(pane_title, rows_for(screen, "own"), own=True)]
    generic: list[KeySection] = []
    seen: set[type] = set()
    for widget in screen.walk_children():
        cls = type(widget)
        if cls in seen or not widget.can_focus:
            continue
        seen.add(cls)
        title = f"{_widget_title(widget).capitalize()} (when focused)"
        mine, inherited = rows_for(widget, "own"), rows_for(widget, "generic")
        if mine:
            own.append(KeySection(title, mine, own=True))
        if inherited:
            generic.append(KeySection(title, inherited, generic=True))
    around = rows_for(app, "generic") + rows_for(screen, "generic")
    if around:
        generic.insert(0, KeySection("Any pane", around, generic=True))
    return own + [KeySection("Everywhere", rows_for(app, "own"), own=True)] + generic


def sections_markdown(sections: list[KeySection], footer_column: bool = True) -> str:
    """Markdown tables, one per section."""
    out: list[str] = []
    for section in sections:
        out.append(f"### {section.title}\n")
        out.append("| Keys | Action | In footer |" if footer_column else "| Keys | Action |")
        out.append("|---|---|---|" if footer_column else "|---|---|")
        for row in section.rows:
            keys = ", ".join(f"`{k}`" for k in row.keys).replace("`|`", "`\\|`")
            if footer_column:
                out.append(f"| {keys} | {row.description} | {'yes' if row.in_footer else ''} |")
            else:
                out.append(f"| {keys} | {row.description} |")
        out.append("")
    return "\n".join(out)


DOC_HEADER = """# Key bindings

Generated from the workbench's own `BINDINGS` by `scripts/keybindings.py`
(`.venv/bin/python scripts/keybindings.py` rewrites this file;
`tests/tui/test_keybindings_doc.py` fails when it is out of date). The help
screen (`?`) lists the same keys for the pane it is opened from, in the
same order: the pane's keys, the keys that work everywhere, then Textual's
generic keys in a folded section.

One scheme across panes: `j`/`k` are hidden aliases of down/up in lists and
trees, `enter` opens, `/` filters, `?` helps, `u` undoes (greyed until the undo
log exists), `z` maximises the focused panel and restores it, digits switch
panes, `q` quits, `ctrl+p` opens the command palette. The footer shows `q Quit`
and `? Help` first, then as many of the pane's keys as fit whole: the keys that
work right now first, then greyed ones (unavailable right now, e.g. Back with
no history), each group in the pane's order, so on a narrow terminal the
greyed keys are the ones left out.

The command palette (`ctrl+p`) finds any page by fuzzy title, alias or id
(`page: …`), runs the page operations on the page in view (`page: rename`,
`page: set type`, `page: merge into…`, `page: split`, `page: open in editor`)
and offers namespaced commands: `pane: …`, `theme: …`, `filter: …`,
`graph: …`, `index: …`, `learn: …`, `app: …`. Typing a namespace (`theme:`)
narrows the list.

Dialogs keep their keys in their border; every dialog's keys are listed under
"Dialogs" below: in the rules pane's approve step (`a`; `s` after picking the older
rule) `tab`/`shift+tab` move between title, rule, why, apply and the evidence
checklist, `enter` in the title or apply field moves to the next one, `space` toggles
the highlighted correction (unchecked ones go back to the inbox), `ctrl+s` approves,
`esc` cancels; the inbox's Confirm dialog (`y`) takes `ctrl+s` too.
"""


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
        Dialog(HelpScreen, "Help", "`?` in any pane", also="`enter` on the last title unfolds Textual's keys"),
    ]


def class_rows(cls: type) -> list[KeyRow]:
    """The bindings brainwork's classes in ``cls``'s hierarchy declare, as
    Textual merges them (a base class's first, a subclass's binding of the
    same key replacing it), grouped by action in declaration order."""
    merged: dict[str, Binding] = {}
    for klass in reversed(cls.__mro__):
        if not klass.__module__.startswith("brainwork."):
            continue
        for b in klass.__dict__.get("BINDINGS", ()):
            binding = b if isinstance(b, Binding) else Binding(*b)
            for key in binding.key.split(","):
                merged[key.strip()] = binding
    rows: dict[str, KeyRow] = {}
    for key, b in merged.items():
        row = rows.setdefault(b.action, KeyRow([], _describe(b), b.action, False))
        if key_name(key) not in row.keys:
            row.keys.append(key_name(key))
    return list(rows.values())


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


async def keybindings_document(app: App) -> str:
    """docs/keybindings.md: each pane's own keys, the app's keys once, then
    Textual's generic keys once per kind of widget in a folded
    ``<details>`` block (the app must be running with its panes registered
    as modes; each pane is shown once)."""
    out = [DOC_HEADER]
    panes = getattr(app, "panes", ())
    current = app.current_mode
    everywhere: list[KeySection] = []
    generic: dict[str, KeySection] = {}
    for pane in panes:
        await app.switch_mode(pane.id)
        sections = help_sections(app, app.screen)
        out.append(f"## Pane {pane.key}: {pane.title}\n")
        own = [sec for sec in sections if sec.own and sec.title != "Everywhere"]
        own[0].title = "Pane"
        out.append(sections_markdown(own))
        everywhere = [sec for sec in sections if sec.title == "Everywhere"]
        for sec in sections:
            if sec.generic:
                generic.setdefault(sec.title.replace(" (when focused)", ""), sec)
    out.append("## Everywhere\n")
    everywhere[0].title = "App"
    out.append(sections_markdown(everywhere))
    out.append(dialogs_markdown())
    out.append(f"## {GENERIC_TITLE}\n")
    out.append("<details>\n<summary>Keys every Textual list, tree, table and text box has</summary>\n")
    folded = []
    for title, sec in sorted(generic.items()):
        folded.append(KeySection(title, sec.rows))
    out.append(sections_markdown(folded, footer_column=False))
    out.append("</details>\n")
    await app.switch_mode(current)
    return "\n".join(out).rstrip() + "\n"
