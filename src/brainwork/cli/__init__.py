"""The ``brainwork`` command line.

One click group; each command family lives in its own module and registers
itself here. Shared conventions (issue 2): every command takes ``--vault``
(default ``$BRAINWORK_VAULT``, else the current directory) and ``--store``;
user errors print one line to stderr and exit 2; bugs keep their traceback.
"""

from __future__ import annotations

import sys

import click

from brainwork import __version__
from brainwork.cli.common import BrainworkGroup


@click.group(cls=BrainworkGroup, invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="brainwork")
@click.option("--vault", "vault", type=click.Path(file_okay=False), default=None, help="Vault folder (default: $BRAINWORK_VAULT or the current directory).")
@click.option("--store", "store", type=click.Path(file_okay=False), default=None, help="Store folder (default: VAULT/.brainwork).")
@click.pass_context
def cli(ctx: click.Context, vault: str | None, store: str | None) -> None:
    """brainwork: curate an AI agent's work memory.

    Without a command, opens the workbench.
    """
    ctx.ensure_object(dict)
    ctx.obj.setdefault("vault", vault)
    ctx.obj.setdefault("store", store)
    if ctx.invoked_subcommand is None:
        from brainwork.cli.graph import open_cmd

        ctx.invoke(open_cmd)


def _register() -> None:
    from brainwork.cli import graph

    for cmd in graph.COMMANDS:
        cli.add_command(cmd)
    # Later command families register here: check (quality bar), curate (operations), learn (learning loop).
    for name in ("check", "curate", "learn"):
        try:
            mod = __import__(f"brainwork.cli.{name}", fromlist=["COMMANDS"])
        except ModuleNotFoundError as exc:
            if exc.name != f"brainwork.cli.{name}":
                raise
            continue
        for cmd in mod.COMMANDS:
            cli.add_command(cmd)


_register()


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="brainwork")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
