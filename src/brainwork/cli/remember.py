"""``brainwork remember``: file a free-form insight on the page of the thing
it is about (:mod:`brainwork.learn.remember`)."""

from __future__ import annotations

import click

from brainwork.cli.common import echo, echo_json, open_store, synced, vault_options
from brainwork.config import Config


@click.command("remember")
@click.argument("insight", nargs=-1, required=True)
@click.option("--page", "page", default=None, metavar="PAGE",
              help="File it on this page (id, path, title or alias) instead of the nearest thing page.")
@click.option("--create", is_flag=True, help="When no thing page is near enough, create the proposed page.")
@click.option("--json", "as_json", is_flag=True, help="Print what was done or proposed as JSON.")
@vault_options
def remember_cmd(config: Config, insight: tuple[str, ...], page: str | None, create: bool, as_json: bool) -> None:
    """File INSIGHT as a dated note under "## Notes" on the nearest thing page.

    Thing pages are customers, projects, systems, people, problems and
    topics (never tasks or corrections). When none is similar enough
    (thresholds.remember_similarity), a new page titled after the thing is
    proposed; --create writes it. Every write is undoable (`brainwork undo`).
    """
    from brainwork.learn.remember import remember

    with open_store(config) as store:
        synced(config, store)
        r = remember(config, store, " ".join(insight), page=page, create=create)
    if as_json:
        echo_json(r.to_json())
        return
    if r.action == "attached":
        how = f" (similarity {r.similarity:.2f} >= {r.threshold:.2f})" if r.similarity is not None else ""
        echo(f"noted on {r.page}{how}: {r.note}; undo with `brainwork undo`")
    elif r.action == "created":
        echo(f"created {r.page} ({r.type}) with the note; undo with `brainwork undo`")
    else:
        near = ", ".join(f"{m.id} {m.similarity:.2f}" for m in r.nearest) or "none"
        echo(f"no thing page is near enough (needs {r.threshold:.2f}; nearest: {near})")
        echo(f"proposed: new {r.type} page {r.path!s} titled {r.title!r} holding:")
        echo(f"  {r.note}")
        echo("write it with --create, or choose a page with --page PAGE")


COMMANDS = [remember_cmd]
