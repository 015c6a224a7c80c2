"""Curation commands: ``rename``, ``merge``, ``split``, ``undo``, ``redo``,
``log`` and the quick fixes ``set-type``, ``retarget``, ``unlink``,
``create-page``, ``dismiss``, ``undismiss`` (docs/operations.md).

Every command opens the store through :func:`open_store`, which first
finishes an operation a crash interrupted. User errors print one line and
exit 2 (the group's handler).
"""

from __future__ import annotations

import sys

import click

from brainwork.cli.common import confirm, echo, echo_json, open_store, vault_options
from brainwork.config import Config
from brainwork.wording import counted


def _op_json(op) -> dict:
    return {
        "id": op.id, "kind": op.kind, "summary": op.summary, "created": op.created, "state": op.state,
        "reversible": op.reversible, "paths": op.paths, "details": op.details,
    }


@click.command("rename")
@click.argument("page")
@click.argument("new_title")
@click.option("--path", "new_path", default=None, help="New vault-relative file path (.md optional).")
@click.option("--keep-alias/--no-keep-alias", default=None,
              help="Add the old title and file name to the page's aliases (default: [rename] keep_alias, off).")
@click.option("--add-title/--no-add-title", default=None,
              help="Write a title: key if the page has none (default: [rename] add_title, off).")
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@vault_options
def rename_cmd(
    config: Config, page: str, new_title: str, new_path: str | None, keep_alias: bool | None,
    add_title: bool | None, dry_run: bool, as_json: bool,
) -> None:
    """Rename PAGE to NEW_TITLE (and optionally move it to --path), rewriting
    every link to it. The page's own text stays as it was apart from links to
    itself unless --keep-alias / --add-title. Undo with `brainwork undo`."""
    from brainwork.ops.rename import plan_rename, rename

    flags = {"keep_alias": keep_alias, "add_title": add_title}
    with open_store(config) as store:
        if dry_run:
            plan = plan_rename(config, store, page, new_title, new_path, **flags)
            op = None
        else:
            result = rename(config, store, page, new_title, new_path, **flags)
            plan, op = result.plan, result.operation
    if as_json:
        echo_json({**plan.to_json(), "operation": _op_json(op) if op else None, "dry_run": dry_run})
        return
    echo(("would " if dry_run else "") + plan.summary())
    for e in plan.edits:
        echo(f"  {e.path}:{e.line}: {e.old} -> {e.new}")
    for r in plan.revived:
        echo(f"  {r.path}:{r.line}: dead link [[{r.target}]] now resolves to {r.after}")
    if op:
        echo(f"done (operation #{op.id}); undo with `brainwork undo`")


@click.command("merge")
@click.argument("source")
@click.argument("target")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@click.option("--prefer", type=click.Choice(["target", "source"]), default="target", show_default=True,
              help="Whose value wins when both pages set a field differently.")
@click.option("--json", "as_json", is_flag=True, help="Print the plan (and result) as JSON.")
@vault_options
def merge_cmd(config: Config, source: str, target: str, yes: bool, prefer: str, as_json: bool) -> None:
    """Merge page SOURCE into page TARGET. SOURCE is removed and every link to
    it now points at TARGET. A merge CANNOT be undone: the plan is shown and
    must be confirmed (or --yes)."""
    from brainwork.ops.merge import merge, plan_merge

    with open_store(config) as store:
        plan = plan_merge(config, store, source, target, prefer=prefer)
        if not as_json:
            echo(plan.describe())
        if not yes:
            if as_json:
                echo_json({**plan.to_json(), "applied": False})
                echo("brainwork: not applied; add --yes to merge", err=True)
                sys.exit(1)
            try:
                ok = confirm("Merge? This cannot be undone")
            except click.Abort:  # no answer (stdin closed, e.g. a script): click said only "Aborted!"
                echo("", err=True)
                echo("brainwork: merge cancelled (no answer; add --yes to merge); nothing was changed", err=True)
                sys.exit(1)
            if not ok:
                echo("merge cancelled; nothing was changed", err=True)
                sys.exit(1)
        result = merge(config, store, plan)
    if as_json:
        echo_json({**plan.to_json(), "applied": True, "operation": _op_json(result.operation)})
        return
    echo(f"merged {plan.source} into {plan.target}: {counted(plan.links_rewritten, 'link')} redirected, "
               f"{counted(len(plan.pages_touched), 'file')} touched")


@click.command("split")
@click.argument("page")
@click.option("--dry-run", is_flag=True, help="Show the new pages; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@vault_options
def split_cmd(config: Config, page: str, dry_run: bool, as_json: bool) -> None:
    """Split PAGE at its '## ' headings into linked pages (undoable)."""
    from brainwork.ops.split import plan_split, split_page

    with open_store(config) as store:
        if dry_run:
            plan, op = plan_split(config, store, page), None
        else:
            result = split_page(config, store, page)
            plan, op = result.plan, result.operation
    if as_json:
        echo_json({**plan.to_json(), "operation": _op_json(op) if op else None, "dry_run": dry_run})
        return
    echo(("would " if dry_run else "") + plan.summary())
    if op:
        echo(f"done (operation #{op.id}); undo with `brainwork undo`")


def _step(config: Config, action: str, as_json: bool) -> None:
    from brainwork.ops.undo import redo, undo

    with open_store(config) as store:
        op = (undo if action == "undo" else redo)(config, store)
    if as_json:
        echo_json(_op_json(op))
        return
    echo(f"{action} #{op.id} {op.kind}: {op.summary} ({counted(len(op.paths), 'file')})")


@click.command("undo")
@click.option("--json", "as_json", is_flag=True, help="Print the undone operation as JSON.")
@vault_options
def undo_cmd(config: Config, as_json: bool) -> None:
    """Undo the last operation (refuses if its files were changed since)."""
    _step(config, "undo", as_json)


@click.command("redo")
@click.option("--json", "as_json", is_flag=True, help="Print the redone operation as JSON.")
@vault_options
def redo_cmd(config: Config, as_json: bool) -> None:
    """Redo the last undone operation."""
    _step(config, "redo", as_json)


@click.command("log")
@click.option("--json", "as_json", is_flag=True, help="Print the undo log as JSON.")
@click.option("--limit", "-n", type=click.IntRange(min=1), default=None, metavar="N",
              help="Show at most N operations (default: all).")
@click.option("--diff", "with_diff", is_flag=True, help="Show each operation's changes as a diff.")
@vault_options
def log_cmd(config: Config, as_json: bool, limit: int | None, with_diff: bool) -> None:
    """List the undo log, newest first ('*' marks undone operations)."""
    from brainwork.ops.undo import history

    with open_store(config) as store:
        ops = history(store, limit, with_changes=with_diff)
    if as_json:
        rows = []
        for op in ops:
            row = _op_json(op)
            if with_diff:
                row["diff"] = dict(op.diff())
            rows.append(row)
        echo_json(rows)
        return
    if not ops:
        echo("the undo log is empty")
        return
    width = max(len(op.kind) for op in ops)
    for op in ops:
        mark = "*" if op.state == "undone" else " "
        echo(f"{mark}#{op.id:<4} {op.created}  {op.kind:<{width}}  {op.description}")
        if with_diff:
            for _, text in op.diff():
                echo(text.rstrip("\n"))


@click.command("set-type")
@click.argument("page")
@click.argument("type_", metavar="TYPE")
@vault_options
def set_type_cmd(config: Config, page: str, type_: str) -> None:
    """Set the type of PAGE (only its 'type:' line changes; undoable)."""
    from brainwork.ops.fixes import set_type

    with open_store(config) as store:
        op = set_type(config, store, page, type_)
    echo(f"{op.summary} (operation #{op.id})")


@click.command("retarget")
@click.argument("page")
@click.argument("target")
@click.argument("new_target")
@click.option("--line", type=int, default=None, help="Only the links on this line.")
@vault_options
def retarget_cmd(config: Config, page: str, target: str, new_target: str, line: int | None) -> None:
    """Point the links to TARGET on PAGE at NEW_TARGET (a page) instead (undoable)."""
    from brainwork.ops.fixes import retarget_link

    with open_store(config) as store:
        op = retarget_link(config, store, page, target, new_target, line)
    echo(f"{op.summary} (operation #{op.id})")


@click.command("unlink")
@click.argument("page")
@click.argument("target")
@click.option("--line", type=int, default=None, help="Only the links on this line.")
@vault_options
def unlink_cmd(config: Config, page: str, target: str, line: int | None) -> None:
    """Remove the (dead) links to TARGET on PAGE, keeping their text (undoable)."""
    from brainwork.ops.fixes import remove_link

    with open_store(config) as store:
        op = remove_link(config, store, page, target, line)
    echo(f"{op.summary} (operation #{op.id})")


@click.command("create-page")
@click.argument("target")
@click.option("--type", "type_", default=None, help="Type of the new page.")
@click.option("--from", "from_page", default=None, help="The page holding the dead link (the new page goes in its folder).")
@click.option("--folder", default=None, help="Folder for the new page (default: the --from page's, else the vault root).")
@vault_options
def create_page_cmd(config: Config, target: str, type_: str | None, from_page: str | None, folder: str | None) -> None:
    """Create the missing page a dead link to TARGET names (undoable)."""
    from brainwork.ops.fixes import create_page

    with open_store(config) as store:
        op = create_page(config, store, target, type_=type_, from_page=from_page, folder=folder)
    echo(f"{op.summary} (operation #{op.id})")


@click.command("dismiss")
@click.argument("key")
@click.option("--reason", default="", help="Why this finding is fine.")
@vault_options
def dismiss_cmd(config: Config, key: str, reason: str) -> None:
    """Dismiss the finding KEY (as `brainwork check --keys` shows it; undoable)."""
    from brainwork.ops.fixes import dismiss

    with open_store(config) as store:
        op = dismiss(config, store, key, reason)
    echo(f"{op.summary} (operation #{op.id})")


@click.command("undismiss")
@click.argument("key")
@vault_options
def undismiss_cmd(config: Config, key: str) -> None:
    """Bring back the dismissed finding KEY (undoable)."""
    from brainwork.ops.fixes import undismiss

    with open_store(config) as store:
        op = undismiss(config, store, key)
    echo(f"{op.summary} (operation #{op.id})")


COMMANDS = [
    rename_cmd, merge_cmd, split_cmd, undo_cmd, redo_cmd, log_cmd,
    set_type_cmd, retarget_cmd, unlink_cmd, create_page_cmd, dismiss_cmd, undismiss_cmd,
]
