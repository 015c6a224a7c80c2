"""``brainwork mcp``: the MCP server agents connect to, and ``mcp install``,
which adds it to Claude Code's configuration.

``brainwork mcp --vault PATH`` serves over stdin/stdout (one process per
agent session, started by the agent); ``--http [--port N]`` serves over
streamable HTTP on 127.0.0.1 for several sessions to share. See
:mod:`brainwork.agents.mcp_server`.

Neither command goes to the store's owner (they are not built on
``vault_options``): the server is a long-lived process of its own that asks
the owner per call, and install touches only Claude Code's files.
"""

from __future__ import annotations

import os

import click

from brainwork.cli.common import confirm, echo, served
from brainwork.config import load_config
from brainwork.errors import UserError

#: Port of ``brainwork mcp --http`` unless ``--port`` says otherwise.
DEFAULT_HTTP_PORT = 8765

_VAULT_HELP = "Vault folder (default: $BRAINWORK_VAULT or the current directory)."
_STORE_HELP = "Store folder (default: VAULT/.brainwork)."


def _where(ctx: click.Context, vault: str | None, store: str | None) -> tuple[str | None, str | None]:
    """The vault and store given here, else to ``mcp``, else before the command."""
    for c in (ctx.parent, ctx.find_root()):
        if c is None:
            continue
        vault = vault or (c.params.get("vault") if c.params else None) or (c.obj or {}).get("vault")
        store = store or (c.params.get("store") if c.params else None) or (c.obj or {}).get("store")
    return vault, store


@click.group("mcp", invoke_without_command=True)
@click.option("--vault", type=click.Path(file_okay=False), default=None, help=_VAULT_HELP)
@click.option("--store", type=click.Path(file_okay=False), default=None, help=_STORE_HELP)
@click.option("--http", "http", is_flag=True, help="Serve over streamable HTTP on 127.0.0.1 instead of stdin/stdout.")
@click.option("--port", type=click.IntRange(1, 65535), default=DEFAULT_HTTP_PORT, show_default=True,
              help="Port for --http.")
@click.pass_context
def mcp_group(ctx: click.Context, vault: str | None, store: str | None, http: bool, port: int) -> None:
    """Serve the vault to agents over MCP (tools: capture_*, recall, doctrine, search, read_page).

    \b
    Claude Code starts one server per session:
      claude mcp add brainwork -- brainwork mcp --vault ~/agent-memory
    or add it to .mcp.json / ~/.claude.json with `brainwork mcp install`.
    With --http the server listens on http://127.0.0.1:PORT/mcp.
    """
    if ctx.invoked_subcommand is not None:
        return
    if served() is not None:
        raise UserError("mcp cannot run inside the store's owner")
    vault, store = _where(ctx, vault, store)
    config = load_config(vault, store)
    from brainwork.agents import mcp_server
    from brainwork.cli.served import call
    from brainwork.service import embedding

    # Without an owner each tool call opens the store and closes it again:
    # an embedding pass would die with it (the owner's pass serves instead).
    embedding.one_shot()
    if http:
        echo(f"brainwork mcp: serving {config.vault} on http://127.0.0.1:{port}/mcp (ctrl+c stops)", err=True)
        try:
            mcp_server.serve_http(config, port, call)
        except KeyboardInterrupt:
            pass
    else:
        if click.get_text_stream("stdin").isatty():
            echo(f"brainwork mcp: serving {config.vault} as MCP over stdin/stdout; an agent starts this "
                 "command itself (ctrl+c stops)", err=True)
        try:
            mcp_server.serve_stdio(config, call)
        except KeyboardInterrupt:
            pass


@mcp_group.command("install")
@click.option("--vault", type=click.Path(file_okay=False), default=None,
              help="The vault the server serves (default: $BRAINWORK_VAULT; required otherwise).")
@click.option("--store", type=click.Path(file_okay=False), default=None, help=_STORE_HELP)
@click.option("--scope", type=click.Choice(["project", "user"]), default="project", show_default=True,
              help="project: .mcp.json in the current folder; user: ~/.claude.json (all your projects).")
@click.option("--yes", "-y", is_flag=True, help="Write without asking.")
@click.pass_context
def install_cmd(ctx: click.Context, vault: str | None, store: str | None, scope: str, yes: bool) -> None:
    """Add brainwork's MCP server to Claude Code's configuration.

    Shows the change as a diff, then merges it: only mcpServers.brainwork
    changes, other servers and keys are kept. Asks first on a terminal
    (--yes skips the question). Running it again changes nothing.
    """
    from brainwork.agents.claude_config import apply_install, command_not_found, plan_install

    if served() is not None:
        raise UserError("mcp install cannot run inside the store's owner")
    vault, store = _where(ctx, vault, store)
    vault = vault or os.environ.get("BRAINWORK_VAULT")
    if not vault:
        raise UserError("say which vault the server serves: brainwork mcp install --vault PATH")
    config = load_config(vault, store)
    plan = plan_install(config, scope)
    if not plan.changed:
        echo(f"{plan.path}: brainwork is already configured ({' '.join([plan.entry['command'], *plan.entry['args']])})")
        return
    echo(plan.diff(), nl=False)
    if not yes:
        if not (click.get_text_stream("stdin").isatty() and click.get_text_stream("stderr").isatty()):
            raise UserError(f"nothing written: no terminal to confirm on; run again with --yes to write {plan.path}")
        if not confirm(f"Write {plan.path}?"):
            echo("nothing written", err=True)
            return
    apply_install(plan)
    echo(f"wrote {plan.path}" + (" (replaced the previous brainwork entry)" if plan.previous is not None else ""), err=True)
    if scope == "user":
        echo("Claude Code reads it when a session starts: restart running sessions to pick it up.", err=True)
    else:
        echo("Claude Code asks to approve the project's servers once, the next time a session starts here.", err=True)
    if (missing := command_not_found()) is not None:
        echo(f"brainwork: warning: {missing}", err=True)


COMMANDS = [mcp_group]
