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
