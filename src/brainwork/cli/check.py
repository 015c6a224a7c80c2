"""``brainwork check``: the quality bar on the command line.

Syncs the vault into its store, runs :func:`brainwork.analysis.findings.check`
and prints one finding a line like a linter (``path:line: code message``) or
a JSON list. Exit status: 0 clean, 1 findings remain, 2 on error (a bad
vault, a busy store, an unknown code, or a bug, whose traceback is printed).
"""

from __future__ import annotations

import sys
import traceback

import click

from brainwork.analysis.finding import CODES, DESCRIPTIONS
from brainwork.cli.common import echo, echo_json, interactive, open_store, synced, vault_options
from brainwork.config import Config
from brainwork.errors import UserError


def _split_codes(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    codes: list[str] = []
    for item in value:
        codes.extend(c.strip() for c in item.split(",") if c.strip())
    unknown = [c for c in codes if c not in CODES]
    if unknown:
        raise click.BadParameter(f"unknown code {', '.join(unknown)} (known: {', '.join(CODES)})")
    return tuple(dict.fromkeys(codes))


_CODES_HELP = "; ".join(f"{c}: {DESCRIPTIONS[c]}" for c in CODES)


@click.command("check", epilog=f"Codes — {_CODES_HELP}.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: one 'path:line: code message' line per finding; json: a list of objects.")
@click.option("--code", "codes", multiple=True, callback=_split_codes, metavar="CODE",
              help="Only findings with this code (repeat, or separate with commas).")
@click.option("--include-dismissed", is_flag=True, help="Also show dismissed findings (marked as such).")
@click.option("--keys", "show_keys", is_flag=True,
              help="Also show each finding's key, for `brainwork dismiss KEY` (text: '[key]' at the end; json: a 'key' field).")
@vault_options
def check_cmd(config: Config, fmt: str, codes: tuple[str, ...], include_dismissed: bool, show_keys: bool) -> None:
    """Find what is wrong with the vault: orphans, dead links, untyped pages,
    invalid field values, stubs, diary titles, duplicates, oversize pages,
    secrets, ambiguous links and files that do not parse. Exit 0 when clean, 1 when findings remain,
    2 on error."""
    from brainwork.analysis.findings import check, summary

    try:
        with open_store(config) as store:
            synced(config, store)
            findings = check(config, store, codes or None, include_dismissed=include_dismissed)
    except (UserError, click.exceptions.Exit, click.ClickException):
        raise
    except Exception:  # a bug: show it, but never let it pass for "findings remain" (exit 1)
        # Through echo: a command served by the workbench must hand the
        # traceback to the client, not print it over the workbench's screen.
        echo(traceback.format_exc().rstrip("\n"), err=True)
        sys.exit(2)
    if fmt == "json":
        rows = []
        for f in findings:
            row = f.to_json()
            if include_dismissed:
                row["dismissed"] = f.dismissed
            if show_keys:
                row["key"] = f.key
            rows.append(row)
        echo_json(rows)
    else:
        for f in findings:
            echo(f.to_text() + (" (dismissed)" if f.dismissed else "") + (f"  [{f.key}]" if show_keys else ""))
        if findings and interactive():
            counts = ", ".join(f"{c} {n}" for c, n in summary(findings).items())
            echo(f"{len(findings)} findings: {counts}", err=True)
    sys.exit(1 if any(not f.dismissed for f in findings) else 0)


COMMANDS = [check_cmd]
