"""Commands over the graph: ``open``, ``index``, ``stats``, ``show``."""

from __future__ import annotations

import click

from brainwork.cli.common import echo, echo_json, open_store, progress_bar, served, synced, vault_options
from brainwork.config import Config


@click.command("open")
@vault_options
def open_cmd(config: Config) -> None:
    """Open the workbench on the vault."""
    from brainwork.cli.served import run_request
    from brainwork.tui.app import BrainworkApp

    BrainworkApp(config, serve=run_request, warm_up=True).run()


@click.command("index")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--full", is_flag=True, help="Re-parse every file, not only changed ones.")
@click.option("--rebuild", is_flag=True,
              help="Make a new store from the vault, keeping the old one's history (undo log, dismissals, "
                   "embeddings...); the old database is kept aside as graph.kuzu.before-rebuild-TIME.")
@vault_options
def index_cmd(config: Config, as_json: bool, full: bool, rebuild: bool) -> None:
    """Sync the vault into its graph store (only changed files are re-parsed)."""
    from brainwork.index.sync import sync

    if rebuild:
        _rebuild(config, as_json)
        return
    with open_store(config) as store, progress_bar("indexing", not as_json) as progress:
        report = sync(config, store, progress, force=full)
    here = served()
    if here is not None and report.wrote:
        here.wrote = True  # the owner's views re-read what this sync wrote
    if as_json:
        echo_json(report.to_json())
        return
    edges = sum(report.edges.values())
    # A moved file is also in ``added`` (new path) and ``removed`` (old path);
    # the text line counts it once, as moved (the JSON keeps the raw lists).
    moved = len(report.moved)
    echo(
        f"{report.pages} pages, {report.attachments} attachments, {edges} edges, "
        f"{report.dead_links} dead links, {len(report.parse_errors)} parse errors "
        f"({len(report.added) - moved} added, {len(report.changed)} changed, {len(report.removed) - moved} removed"
        f"{f', {moved} moved' if moved else ''}"
        f"{f', {len(report.reread)} re-read unchanged' if report.reread else ''}) in {report.seconds:.2f} s"
    )
    for err in report.parse_errors:
        echo(f"  {err}")


def _rebuild(config: Config, as_json: bool) -> None:
    """``index --rebuild``: never inside an owner (it replaces the files the
    owner has open), so refused while one is alive."""
    from brainwork.cli.common import require_vault
    from brainwork.errors import UserError
    from brainwork.index.rebuild import rebuild
    from brainwork.service import owner

    require_vault(config)
    live = owner.status(config)
    if live is not None:
        if live.kind == "serve":
            raise UserError(
                f"the store is held by `brainwork serve` (process {live.pid}); stop it (ctrl+c or kill {live.pid}) "
                "before `brainwork index --rebuild`"
            )
        raise UserError(
            f"the store is open in the {live.kind} (process {live.pid}); close it before `brainwork index --rebuild`"
        )
    from brainwork.index.sync import sync
    from brainwork.ops.journal import pending_journal

    interrupted = pending_journal(config)
    with progress_bar("rebuilding", not as_json) as progress:
        report = rebuild(config, progress)
    # Finish an operation a crash interrupted, now that the undo log is back.
    # It rewrites files the rebuild indexed half-applied, so the figures
    # printed are those of the store after it.
    with open_store(config) as store:
        if interrupted and report.sync is not None:
            after = sync(config, store)
            for name in ("pages", "attachments", "edges", "dead_links", "ambiguous_links", "parse_errors"):
                setattr(report.sync, name, getattr(after, name))
    lost = report.lost_line()
    if lost:
        echo(f"brainwork: {lost}", err=True)
    if as_json:
        echo_json(report.to_json())
        return
    s = report.sync
    kept = ", ".join(f"{t} {n}" for t, n in sorted(report.kept.items())) or "nothing"
    aside = ", ".join(str(p) for p in report.moved_aside) or "no old database"
    echo(f"rebuilt: {s.pages} pages, {s.attachments} attachments, {sum(s.edges.values())} edges, "
         f"{s.dead_links} dead links, {len(s.parse_errors)} parse errors in {report.seconds:.2f} s")
    echo(f"kept from the old store: {kept}")
    echo(f"old store kept as: {aside}")
    if report.leftovers_removed:
        echo(f"removed what earlier interrupted rebuilds left: {', '.join(p.name for p in report.leftovers_removed)}")
    if report.aside_copies > 1:
        echo(f"{report.aside_copies} old stores kept aside by rebuilds take {report.aside_bytes / 1e6:.1f} MB in "
             f"{config.store}; delete the graph.kuzu.before-rebuild-* files you no longer need")


@click.command("stats")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@vault_options
def stats_cmd(config: Config, as_json: bool) -> None:
    """Counts of pages by type, edges by type, dead links and parse errors."""
    from brainwork.store import graph

    with open_store(config) as store:
        synced(config, store)
        data = graph.counts(store)
    if as_json:
        echo_json(data.to_json())
        return
    echo(f"vault: {config.vault}")
    echo(f"pages: {data.pages}  attachments: {data.attachments}")
    echo("types: " + (", ".join(f"{t or '(untyped)'} {n}" for t, n in sorted(data.types.items())) or "none"))
    echo("edges: " + ", ".join(f"{e} {n}" for e, n in data.edges.items()))
    echo(f"dead links: {data.dead_links}  parse errors: {data.parse_errors}  ambiguous links: {data.ambiguous_links}")


@click.command("show")
@click.argument("page")
@click.option("--json", "as_json", is_flag=True, help="Print the page and its edges as JSON.")
@vault_options
def show_cmd(config: Config, page: str, as_json: bool) -> None:
    """Show PAGE (id, path, file name, alias or title) with its edges both ways."""
    from brainwork.store import graph

    with open_store(config) as store:
        synced(config, store)
        pid = graph.find_page(store, page, include_attachments=True)
        page = graph.get_page(store, pid)
        edges = graph.page_edges(store, pid)
    if as_json:
        echo_json({**page.to_json(), "edges": edges.to_json()})
        return
    kind = page.type or ("attachment" if page.kind == "attachment" else "untyped")
    echo(f"{page.title}  [{kind}]  {page.id}")
    for e in page.parse_errors:  # what is below may be missing fields or links because of it
        echo(f"  parse error: {e.path}:{e.line}: {e.message}")
    for key, value in page.fields.items():
        if key != "title":
            echo(f"  {key}: {value}")
    for direction, arrow, side in (("out", "→", edges.out), ("in", "←", edges.in_)):
        for e in side:
            dead = " (dead link)" if e.dead else ""
            where = f"{e.file}:{e.line}"
            label = f"{e.edge} {arrow}" if direction == "out" else f"{arrow} {e.edge}"
            # Several links from one line to one page differ only by heading
            # or label (``[[X]] → [[X#Part|part]]``): show them. Outgoing,
            # they follow the target as in the link; incoming, the id is the
            # linking page's, so they are set apart and named (glued on,
            # ``SOURCE|part`` read as a link to a page of that name).
            if direction == "out":
                extra = (f"#{e.heading}" if e.heading else "") + (f"|{e.label}" if e.label else "")
            else:
                parts = ([f"to #{e.heading}"] if e.heading else []) + ([f"shown as {e.label!r}"] if e.label else [])
                extra = f"  ({', '.join(parts)})" if parts else ""
            echo(f"  {label:16} {e.other}{extra}{dead}   [{where}]")


COMMANDS = [open_cmd, index_cmd, stats_cmd, show_cmd]
