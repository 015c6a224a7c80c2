"""docs/keybindings.md, generated from the running app's bindings
(:func:`keybindings_document`; ``scripts/keybindings.py`` writes it)."""

from __future__ import annotations

from textual.app import App

from brainwork.tui.keys import GENERIC_TITLE, KeySection, help_sections, sections_markdown
from brainwork.tui.modals.catalogue import dialogs_markdown

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
