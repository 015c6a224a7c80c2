"""The ``brainwork`` command line.

One click group; each command family lives in its own module and is imported
only when one of its commands runs (:class:`LazyGroup`): an agent's
``brainwork capture`` or ``doctrine`` must not pay for importing the store,
the analysis or the workbench. Every command takes ``--vault`` (default
``$BRAINWORK_VAULT``, else the current directory) and ``--store``; user
errors print one line to stderr and exit 2; bugs keep their traceback.
"""

from __future__ import annotations

import importlib
import sys

import click

from brainwork import __version__
from brainwork.cli import notices
from brainwork.cli.common import BrainworkGroup

notices.install()  # lower layers' warnings (a git commit that failed) on the command's stderr

#: Command family modules and the commands each registers in its ``COMMANDS``.
FAMILIES: dict[str, tuple[str, ...]] = {
    "brainwork.cli.graph": ("open", "index", "stats", "show"),
    "brainwork.cli.check": ("check",),
    "brainwork.cli.curate": ("rename", "merge", "split", "set-type", "retarget", "unlink", "create-page",
                             "dismiss", "undismiss", "undo", "redo", "log"),
    "brainwork.cli.learn": ("capture", "embed", "recall"),
    "brainwork.cli.consolidation": ("consolidate", "rules", "approve", "reject", "retire", "link-evidence",
                                    "doctrine", "replay"),
    "brainwork.cli.serve": ("serve",),
    "brainwork.cli.hook": ("hook",),
    "brainwork.cli.search": ("search",),
    "brainwork.cli.mcp": ("mcp",),
    "brainwork.cli.remember": ("remember",),
    "brainwork.cli.dream": ("dream",),
    "brainwork.cli.doctor": ("doctor",),
}


class LazyGroup(BrainworkGroup):
    """A group whose commands are imported on first use, following the
    lazy-loading pattern of click's documentation
    (https://click.palletsprojects.com/en/stable/complex/#lazily-loading-subcommands)."""

    def _load(self, module: str) -> None:
        for cmd in importlib.import_module(module).COMMANDS:
            self.commands.setdefault(cmd.name, cmd)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            for module, names in FAMILIES.items():
                if cmd_name in names:
                    self._load(module)
                    break
        return self.commands.get(cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        for module in FAMILIES:
            self._load(module)
        return sorted(self.commands)


@click.group(cls=LazyGroup, invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
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
        ctx.invoke(cli.get_command(ctx, "open"))


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="brainwork")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
