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
    """A titled group of rows; ``own`` marks brainwork's widgets (listed
    before Textual's built-in ones)."""

    title: str
    rows: list[KeyRow] = field(default_factory=list)
    own: bool = False


#: Better words for bindings Textual itself adds.
DESCRIPTIONS = {"command_palette": "Command palette: pages, panes, themes, commands"}


def _describe(binding: Binding) -> str:
    if binding.action in DESCRIPTIONS:
        return DESCRIPTIONS[binding.action]
    if binding.description:
        return binding.description
    return binding.action.split("(")[0].replace("_", " ").strip().capitalize()


def rows_for(node: DOMNode) -> list[KeyRow]:
    """The bindings of one node, grouped by action (the first binding's
    description names the row), in declaration order; system bindings are
    left out."""
    rows: dict[str, KeyRow] = {}
    for key, bindings in node._bindings.key_to_bindings.items():
        for b in bindings:
            if b.system:
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


def help_sections(app: App, screen: Screen) -> list[KeySection]:
    """Sections for the help screen: the app's keys, the pane's keys, then
    each kind of focusable widget on the pane."""
    pane = getattr(app, "pane_for_screen", lambda s: None)(screen)
    sections = [KeySection("Everywhere", rows_for(app))]
    pane_title = f"Pane {pane.key}: {pane.title}" if pane else f"Screen: {type(screen).__name__}"
    sections.append(KeySection(pane_title, rows_for(screen)))
    seen: set[type] = set()
    widgets: list[KeySection] = []
    for widget in screen.walk_children():
        cls = type(widget)
        if cls in seen or not widget.can_focus:
            continue
        seen.add(cls)
        rows = rows_for(widget)
        if rows:
            title = f"{_widget_title(widget).capitalize()} (when focused)"
            widgets.append(KeySection(title, rows, own=cls.__module__.startswith("brainwork.")))
    widgets.sort(key=lambda sec: not sec.own)  # brainwork's widgets first, then Textual's
    return sections + widgets


def sections_markdown(sections: list[KeySection]) -> str:
    """Markdown tables, one per section."""
    out: list[str] = []
    for section in sections:
        out.append(f"### {section.title}\n")
        out.append("| Keys | Action | In footer |")
        out.append("|---|---|---|")
        for row in section.rows:
            keys = ", ".join(f"`{k}`" for k in row.keys).replace("`|`", "`\\|`")
            out.append(f"| {keys} | {row.description} | {'yes' if row.in_footer else ''} |")
        out.append("")
    return "\n".join(out)


DOC_HEADER = """# Key bindings

Generated from the workbench's own `BINDINGS` (app, each pane's screen, and
every focusable widget on it) by `tests/tui/test_keybindings_doc.py`; regenerate with
`BRAINWORK_UPDATE_DOCS=1 .venv/bin/python -m pytest tests/tui/test_keybindings_doc.py`.
The same lists are on the help screen (`?`), for the pane it is opened from.

One scheme across panes: `j`/`k` are hidden aliases of down/up in lists and
trees, `enter` opens, `/` filters, `?` helps, `u` undoes (greyed until the undo
log exists), digits switch panes, `q` quits, `ctrl+p` opens the command palette.
Keys greyed in the footer are unavailable right now (e.g. Back with no history).

The command palette (`ctrl+p`) finds any page by fuzzy title, alias or id
(`page: …`) and offers namespaced commands: `pane: …`, `theme: …`, `filter: …`,
`graph: …`, `index: …`, `learn: …`, `app: …`. Typing a namespace (`theme:`) narrows the list.

Dialogs keep their keys in their border: in the rules pane's approve step (`a`; `s` after
picking the older rule) `tab`/`shift+tab` move between title, rule, why, apply and the
evidence checklist, `enter` in the title or apply field moves to the next one, `space` toggles
the highlighted correction (unchecked ones go back to the inbox), `ctrl+s` approves, `esc` cancels.
"""


async def keybindings_document(app: App) -> str:
    """docs/keybindings.md: every pane's bindings (the app must be running
    with its panes registered as modes; each pane is shown once)."""
    out = [DOC_HEADER]
    panes = getattr(app, "panes", ())
    current = app.current_mode
    first = True
    for pane in panes:
        await app.switch_mode(pane.id)
        sections = help_sections(app, app.screen)
        if first:
            out.append("## Everywhere\n")
            sections[0].title = "App"
            out.append(sections_markdown(sections[:1]))
            first = False
        out.append(f"## Pane {pane.key}: {pane.title}\n")
        sections[1].title = "Pane"
        out.append(sections_markdown(sections[1:]))
    await app.switch_mode(current)
    return "\n".join(out).rstrip() + "\n"
