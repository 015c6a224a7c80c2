"""``brainwork search``: find pages by name (fuzzy over titles, aliases and ids).

The same matcher as the workbench's command palette and page pickers
(:class:`brainwork.analysis.search.PageSearch`); an agent uses it to turn a
half-remembered name into a page id before ``show`` or a capture's links.
"""

from __future__ import annotations

import click

from brainwork.cli.common import echo, echo_json, open_store, synced, vault_options
from brainwork.config import Config
from brainwork.errors import UserError

@click.command("search")
@click.argument("query", nargs=-1, required=True)
@click.option("--limit", type=click.IntRange(1, 200), default=10, show_default=True, help="At most this many pages.")
@click.option("--type", "type_", default=None, metavar="TYPE", help="Only pages of this type (task, correction, rule, ...).")
@click.option("--json", "as_json", is_flag=True, help="Print the matches as JSON.")
@vault_options
def search_cmd(config: Config, query: tuple[str, ...], limit: int, type_: str | None, as_json: bool) -> None:
    """Pages whose title, alias or id best match QUERY, best first.

    Whole words and word starts in a title or alias rank above a match
    inside a word or with a typo. Prints one line per page: score (0-100),
    id, title and type; with --json a list of {"id", "title", "type", "score"}.
    """
    from brainwork.analysis.search import PageSearch, has_words
    from brainwork.store import graph

    text = " ".join(query).strip()
    if not text:
        raise UserError("give something to search for")
    if type_ is not None and type_ not in config.page_types:
        raise UserError(f"unknown type {type_!r}; types: {', '.join(config.page_types)}")
    with open_store(config) as store:
        synced(config, store)
        pages = graph.list_pages(store, type_)
        hits = PageSearch(pages).search(text, limit=limit)
        # With --type, an empty answer may come from the filter: the pages
        # of every type are searched to say so.
        every = graph.list_pages(store) if type_ is not None and not hits and not as_json and has_words(text) else []
    others = len(PageSearch(every).search(text, limit=len(every))) if every else 0
    if as_json:
        echo_json([{"id": h.id, "title": h.title, "type": h.type, "score": round(h.score, 1)} for h in hits])
        return
    if not hits:
        why = "" if has_words(text) else " (it has no letter or digit to match)"
        if others:
            # "other": of another type or untyped, which --type also leaves out
            why = f" ({others:,} other page{'s do' if others != 1 else ' does'}; leave out --type to list them)"
        echo(f"no {type_ + ' ' if type_ else ''}page matches {text!r}{why}", err=True)
        return
    for h in hits:
        echo(f"{h.score:5.1f}  {h.id}  {h.title}" + (f"  [{h.type}]" if h.type else ""))


COMMANDS = [search_cmd]
