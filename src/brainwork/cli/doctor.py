"""``brainwork doctor``: is the store right about the vault, and what fixes it.

Checks, without changing anything: the store can be read in full (in a child
process: a damaged Kùzu file can crash its reader), its schema version, its
pages against the vault's files (counts, and the stored content hash of up to
200 random unchanged pages against their bytes), its edges against its
pages' links, and what the write path leaves behind when a process is killed
(the operation journal, created-page records, ``.bw-*.tmp`` files, the
owner's socket with no owner). One line per problem with the command that
fixes it. Exit 0 healthy, 1 problems, 2 usage error or not a vault.

With a live owner (the workbench, ``brainwork serve``) the command runs
there, on the owner's open store. Without one it never opens the store
before a child has read it, so a damaged store is reported, not crashed on.
"""

from __future__ import annotations

import os
import sys
import time

import click

from brainwork.cli.common import echo, echo_json, require_vault, served, vault_options
from brainwork.config import Config
from brainwork.index.doctor import HASH_SAMPLE, Problem, StoreCheck, run
from brainwork.wording import counted


def _leftovers(config: Config, owner_alive: bool) -> list[Problem]:
    """What killed processes leave in the store folder and the vault."""
    from brainwork.ops import journal
    from brainwork.ops.files import STALE_TEMP_SECONDS
    from brainwork.service import owner

    CREATED_DIR = journal.CREATED_DIR
    JOURNAL = journal.JOURNAL

    problems: list[Problem] = []
    journal = config.store / JOURNAL
    if journal.exists():
        problems.append(Problem(
            "journal", f"an interrupted operation's journal is left ({journal}): it is finished or rolled back "
                       "when a command next opens the store", "brainwork index"))
    try:
        records = [e.name for e in os.scandir(config.store / CREATED_DIR)
                   if e.name.endswith(".bin") and not e.name.startswith(".")]
    except (FileNotFoundError, NotADirectoryError):
        records = []
    if records:
        problems.append(Problem(
            "created", f"{counted(len(records), 'page')} created without the store wait to be indexed and put in the undo log "
                       f"({config.store / CREATED_DIR})", "brainwork index"))
    sock = owner.socket_path(config)
    if not owner_alive and (sock.exists() or sock.is_symlink()):
        problems.append(Problem(
            "stale-socket", f"the owner's socket {sock} is left but no workbench or `brainwork serve` answers on it",
            f"rm '{sock}'"))
    from brainwork.index.rebuild import EXPORT_PREFIX, NEW_PREFIX

    for side in sorted([*config.store.glob(NEW_PREFIX + "*"), *config.store.glob(EXPORT_PREFIX + "*")]):
        if side.name.startswith(NEW_PREFIX) and (side / "graph.kuzu").exists() and not (config.store / "graph.kuzu").exists():
            problems.append(Problem(
                "rebuild-interrupted", f"a rebuild stopped between moving the old store aside and putting the new one "
                                       f"({side}) in its place", f"mv '{side}'/graph.kuzu* '{config.store}'/"))
        else:
            problems.append(Problem(
                "rebuild-leftover", f"an interrupted `brainwork index --rebuild` left {side} (the store it started "
                                    "from is still in place; run the rebuild again afterwards if it was damaged)",
                f"rm -r '{side}'"))
    now = time.time()
    temps = []
    store_dir = os.path.realpath(config.store)
    for folder, dirs, files in os.walk(config.vault):
        dirs[:] = [d for d in dirs if os.path.realpath(os.path.join(folder, d)) != store_dir]
        for name in files:
            if name.startswith(".bw-") and name.endswith(".tmp"):
                path = os.path.join(folder, name)
                try:
                    if now - os.lstat(path).st_mtime >= STALE_TEMP_SECONDS:
                        temps.append(path)
                except OSError:
                    pass
    if temps:
        problems.append(Problem(
            "temp-files", f"{counted(len(temps), 'temp file')} left by a killed write (e.g. {temps[0]}); no vault page is in them",
            f"find '{config.vault}' -name '.bw-*.tmp' -mmin +{int(STALE_TEMP_SECONDS // 60)} -delete"))
    return problems


def _summary(check: StoreCheck) -> str | None:
    if check.store_pages is None:
        return None
    return (
        f"store: schema {check.schema_version}; pages {check.store_pages} (vault {check.vault_pages}), "
        f"attachments {check.store_attachments} (vault {check.vault_attachments}); "
        f"edges {check.stored_edges} (links give {check.expected_edges}), dead links {check.stored_dead_links} "
        f"(links give {check.expected_dead_links}); hashes: {check.hashes_checked} checked, {check.hashes_differ} differ"
    )


def _fix_text(fix: str) -> str:
    return f"`{fix}`" if fix.split(" ", 1)[0] in ("brainwork", "rm", "find", "mv") else fix


@click.command("doctor")
@click.option("--json", "as_json", is_flag=True, help="Print what was checked and found as JSON.")
@click.option("--sample", type=click.IntRange(min=0), default=HASH_SAMPLE, show_default=True,
              help="Pages whose stored content hash is compared with their file.")
@vault_options
def doctor_cmd(config: Config, as_json: bool, sample: int) -> None:
    """Check the store against the vault (readable, schema, page counts, a
    sample of content hashes, edges, leftovers of killed processes). One line
    per problem with the command that fixes it. Exit 0 healthy, 1 problems."""
    here = served()
    if here is not None:
        problems = _leftovers(config, owner_alive=True)
        with here.handle.use() as store:  # reads only: beside the owner's other readers
            check = run(config, store, sample)
    else:
        require_vault(config)
        problems = _leftovers(config, owner_alive=False)
        check = run(config, None, sample)
    problems = check.problems + problems
    if as_json:
        echo_json({
            "healthy": not problems,
            "vault": str(config.vault), "store": str(config.store),
            "checked": check.figures(),
            "problems": [p.to_json() for p in problems],
        })
    else:
        line = _summary(check)
        if line:
            echo(line)
        for p in problems:
            echo(f"{p.code}: {p.message}; fix: {_fix_text(p.fix)}")
        echo("healthy" if not problems else counted(len(problems), "problem"))
    sys.exit(1 if problems else 0)


COMMANDS = [doctor_cmd]
