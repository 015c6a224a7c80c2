"""``brainwork dream``: gather curation proposals into a review queue (a
nightly cron job) and act on them (:mod:`brainwork.learn.dream`).

One command with an optional action, so that it is forwarded to the store's
owner like any other: ``brainwork dream`` (gather, then list the queue),
``brainwork dream list``, ``brainwork dream accept ID [--yes]``,
``brainwork dream decline ID``.
"""

from __future__ import annotations

import click

from brainwork.cli.common import confirm, echo, echo_json, interactive, open_store, synced, vault_options
from brainwork.config import Config
from brainwork.errors import UserError


def _line(p) -> str:
    undo = "" if p.reversible else " [cannot be undone]"
    return f"{p.id:>4}  {p.kind:15} {p.summary}{undo}"


@click.command("dream")
@click.argument("action", required=False, type=click.Choice(["list", "accept", "decline"]))
@click.argument("proposal", required=False, type=int)
@click.option("--json", "as_json", is_flag=True, help="Print the queue (or what was done) as JSON.")
@click.option("--all", "show_all", is_flag=True, help="With list: also accepted, declined and undone proposals.")
@click.option("--yes", "-y", is_flag=True, help="With accept: do not ask before an irreversible merge.")
@vault_options
def dream_cmd(config: Config, action: str | None, proposal: int | None, as_json: bool, show_all: bool, yes: bool) -> None:
    """Gather proposals into the review queue without changing the vault, or act on one.

    \b
    brainwork dream [--json]          gather (consolidation's dry run, merge candidates,
                                      diary titles, rule merges and retirements), list the queue
    brainwork dream list [--all]      list the queue without gathering
    brainwork dream accept ID [--yes] carry out proposal ID (one operation; `brainwork undo`
                                      reverts it, except a merge, which asks first)
    brainwork dream decline ID        drop proposal ID; it is not raised again
    """
    from brainwork.learn import dream as d

    if action in ("accept", "decline") and proposal is None:
        raise UserError(f"dream {action} needs a proposal id (`brainwork dream list` shows them)")
    if action in (None, "list") and proposal is not None:
        raise UserError("a proposal id goes with accept or decline")
    with open_store(config) as store:
        synced(config, store)
        if action is None:
            report = d.dream(config, store)
            if as_json:
                echo_json(report.to_json())
                return
            found = d.found_text(report.found) or "nothing to propose"
            echo(f"dream: {found} ({report.seconds:.1f} s); the vault is unchanged")
            for p in report.proposals:
                echo(_line(p))
            if report.proposals:
                echo("accept with `brainwork dream accept ID`, decline with `brainwork dream decline ID`")
            return
        if action == "list":
            items = d.queue(store, None if show_all else "pending")
            if as_json:
                echo_json({"proposals": [p.to_json() for p in items]})
                return
            for p in items:
                echo(_line(p) + ("" if p.state == "pending" else f"  ({p.state})"))
            if not items:
                echo("the review queue is empty (`brainwork dream` gathers proposals)")
            return
        if action == "decline":
            p = d.decline(store, proposal)
            if as_json:
                echo_json(p.to_json())
            else:
                echo(f"declined {p.id}: {p.summary}")
            return
        if d.needs_confirmation(store, proposal) and not yes:
            if not interactive():
                # A refusal like any other (exit 2), as `hook install` and
                # `mcp install` refuse without a terminal to confirm on.
                raise UserError(f"not applied: proposal {proposal} merges pages, which cannot be undone, and there "
                                "is no terminal to confirm on; run again with --yes; nothing was changed")
            if not confirm("Merge? This cannot be undone"):
                echo("brainwork: merge cancelled; nothing was changed", err=True)
                raise SystemExit(1)
            yes = True
        done = d.accept(config, store, proposal, yes=yes)
    if as_json:
        echo_json(done.to_json())
        return
    tail = "; undo with `brainwork undo`" if done.operation else ""
    echo(f"accepted {done.proposal.id}: {done.message}{tail}")


COMMANDS = [dream_cmd]
