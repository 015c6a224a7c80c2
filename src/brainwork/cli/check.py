"""``brainwork check``: the quality bar on the command line.

Syncs the vault into its store, runs :func:`brainwork.analysis.findings.check`
and prints one finding a line like a linter (``path:line: code message``; a
path holding a control character, quote or backslash is double-quoted with
escapes, as git quotes paths) or a JSON list. Exit status: 0 clean, 1 findings remain, 2 on error (a bad
vault, a busy store, an unknown code, or a bug, whose traceback is printed).
"""

from __future__ import annotations

import re
import sys
import traceback

import click

from brainwork.analysis.finding import CODES, DESCRIPTIONS, Finding
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


#: What makes a path need quoting in a ``path:line:`` line: anything that
#: breaks or hides the line (C0/C1 controls, tab, DEL, Unicode line and
#: paragraph separators, bidi controls), and the quote and backslash, so a
#: quoted path is told apart from one that merely starts with a quote.
_QUOTE_PATH = re.compile(r'[\x00-\x1f\x7f-\x9f"\\\u2028\u2029\u202a-\u202e\u2066-\u2069]')
#: Line breaks in a message, shown as escapes to keep one finding a line.
_BREAKS = str.maketrans({"\n": "\\n", "\r": "\\r", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def _text_path(path: str) -> str:
    """``path`` as it is, or, when it holds a character of
    :data:`_QUOTE_PATH`, double-quoted with backslash escapes (``\\``,
    ``\\"``, ``\\n``, ``\\t``, and the rest as the CLI shows any control
    character: ``\\x1b``, ``\\u2028``), the way git quotes paths: the
    ``path:line:`` line stays one line and the quoted name, a Python string
    literal, reads back to the exact name."""
    if not _QUOTE_PATH.search(path):
        return path
    from brainwork.display import printable

    body = path.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return '"' + printable(body).translate(_BREAKS) + '"'


def _text_line(f: Finding) -> str:
    """The text-format line of finding ``f``: ``path:line: code message``,
    the path quoted when needed (:func:`_text_path`) and line breaks in the
    message escaped, so every finding is exactly one line."""
    return f"{_text_path(f.path)}:{f.line}: {f.code} {f.message.translate(_BREAKS)}"


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
            echo(_text_line(f) + (" (dismissed)" if f.dismissed else "") + (f"  [{f.key}]" if show_keys else ""))
        if findings and interactive():
            counts = ", ".join(f"{c} {n}" for c, n in summary(findings).items())
            echo(f"{len(findings)} findings: {counts}", err=True)
    sys.exit(1 if any(not f.dismissed for f in findings) else 0)


COMMANDS = [check_cmd]
