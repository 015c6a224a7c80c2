"""``brainwork doctor``, the store-against-vault part: can the store be read,
is its schema this brainwork's, do its pages match the vault's files (counts
and a sample of content hashes), do its edges match its pages' links.

Every check gives :class:`Problem` records (what was found and the command
that fixes it) and the figures it compared (:class:`StoreCheck`). The
leftover files of the write path (journals, created-page records, temp files,
the owner's socket) are checked by :mod:`brainwork.cli.doctor`, which knows
those layers.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path

from brainwork.config import Config
from brainwork.index.scan import scan_vault
from brainwork.index.sync import SyncReport, _resolve_links
from brainwork.store import Store, graph, schema
from brainwork.store.integrity import held_elsewhere, probe, seal_state
from brainwork.wording import counted

#: Pages whose stored hash is compared with their file's bytes.
HASH_SAMPLE = 200


@dataclass(frozen=True)
class Problem:
    """One thing wrong: ``code`` (stable, for scripts), ``message`` (what
    was found, one line) and ``fix`` (the command that fixes it)."""

    code: str
    message: str
    fix: str

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class StoreCheck:
    """The figures the checks compared (None where a check could not run)."""

    readable: bool | None = None
    schema_version: str | None = None
    vault_pages: int | None = None
    vault_attachments: int | None = None
    store_pages: int | None = None
    store_attachments: int | None = None
    stored_edges: int | None = None
    expected_edges: int | None = None
    stored_dead_links: int | None = None
    expected_dead_links: int | None = None
    hashes_checked: int = 0
    hashes_differ: int = 0
    problems: list[Problem] = field(default_factory=list)

    def figures(self) -> dict:
        d = asdict(self)
        d.pop("problems")
        return d


def probe_store(config: Config, check: StoreCheck) -> bool:
    """Read the whole store in a child process (a damaged store may crash
    its reader). False when it cannot be read (a problem is added) or is
    held by another process."""
    db = config.store / "graph.kuzu"
    if not db.exists() or seal_state(db) == "none":
        check.problems.append(Problem("no-store", f"no store at {config.store} yet", "brainwork index"))
        return False
    if seal_state(db) == "truncated":
        check.readable = False
        check.problems.append(Problem(
            "damaged", f"{db} is empty but held a store when it was last closed", "brainwork index --rebuild"))
        return False
    if held_elsewhere(db):
        check.problems.append(Problem(
            "busy", f"another brainwork process holds {db} (a command still running, or one that does not answer)",
            "wait for it to finish or stop it, then run `brainwork doctor` again"))
        return False
    result = probe(config.store)
    if result.busy:
        check.problems.append(Problem("busy", f"another brainwork process holds {db}",
                                      "wait for it to finish, then run `brainwork doctor` again"))
        return False
    check.readable = result.ok
    if not result.ok:
        check.problems.append(Problem("damaged", f"the store {db} cannot be read: {result.reason}",
                                      "brainwork index --rebuild"))
    return result.ok


def compare(config: Config, store: Store, check: StoreCheck, sample: int = HASH_SAMPLE,
            seed: int | None = None) -> None:
    """The checks that read the (readable) store: schema version, pages
    against files, a sample of hashes, edges against the stored links."""
    problems = check.problems
    version = store.meta("schema_version")
    check.schema_version = version
    if version != schema.SCHEMA_VERSION:
        problems.append(Problem(
            "schema", f"the store has schema version {version or 'none'}, this brainwork uses {schema.SCHEMA_VERSION}",
            "brainwork index"))
    files = scan_vault(config.vault, config.ignore_folders, config.store)
    on_disk = {f.rel: f for f in files}
    check.vault_pages = sum(1 for f in files if f.is_markdown)
    check.vault_attachments = len(files) - check.vault_pages
    state = graph.index_state(store)
    check.store_pages = sum(1 for r in state.values() if r["kind"] == "page")
    check.store_attachments = len(state) - check.store_pages
    stored_paths = {r["path"] for r in state.values()}
    new = [rel for rel in on_disk if rel not in stored_paths]
    gone = [r["path"] for r in state.values() if r["path"] not in on_disk]
    changed = [r["path"] for r in state.values() if r["path"] in on_disk
               and (on_disk[r["path"]].size, on_disk[r["path"]].mtime_ns) != (r["size"], r["mtime_ns"])]
    if new or gone or changed:
        parts = [f"{len(x)} {w}" for x, w in ((new, "new"), (changed, "changed"), (gone, "removed")) if x]
        example = (new or changed or gone)[0]
        problems.append(Problem(
            "out-of-date", f"the store is behind the vault: {counted(len(new) + len(changed) + len(gone), 'file')} "
                           f"since the last index ({', '.join(parts)}; e.g. {example})",
            "brainwork index"))
    # Pages whose size and time match: their stored hash must be their bytes'.
    same = [r for r in state.values() if r["kind"] == "page" and r["hash"] and r["path"] in on_disk
            and (on_disk[r["path"]].size, on_disk[r["path"]].mtime_ns) == (r["size"], r["mtime_ns"])]
    rng = random.Random(seed)
    picked = same if len(same) <= sample else rng.sample(same, sample)
    differ = []
    for r in picked:
        try:
            with open(config.vault / r["path"], "rb") as fh:
                digest = hashlib.file_digest(fh, "sha256").hexdigest()
        except OSError:
            continue
        check.hashes_checked += 1
        if digest != r["hash"]:
            differ.append(r["path"])
    check.hashes_differ = len(differ)
    if differ:
        problems.append(Problem(
            "hash", f"{len(differ)} of {check.hashes_checked} sampled pages differ from their files although size "
                    f"and time match (e.g. {differ[0]}): the store's copy is wrong",
            "brainwork index --full"))
    # Edges against the links the pages hold (what a full re-resolution gives).
    expected = SyncReport()
    _resolve_links(set(state), {}, state, expected, None, 0)
    stored = graph.edge_counts(store)
    check.stored_edges, check.expected_edges = sum(stored.edges.values()), sum(expected.edges.values())
    check.stored_dead_links, check.expected_dead_links = stored.dead_links, expected.dead_links
    if stored.edges != expected.edges or stored.dead_links != expected.dead_links:
        problems.append(Problem(
            "edges", f"the store holds {check.stored_edges} edges and {stored.dead_links} dead links, its pages' links "
                     f"give {check.expected_edges} and {expected.dead_links}",
            "brainwork index --full"))


def run(config: Config, store: Store | None = None, sample: int = HASH_SAMPLE) -> StoreCheck:
    """Every store check. ``store``: the store already open (inside its
    owner, which has it open and working); otherwise it is probed in a child
    and then opened here."""
    check = StoreCheck()
    if store is not None:
        check.readable = True
        compare(config, store, check, sample)
        return check
    if not probe_store(config, check):
        return check
    with Store(config.store, read_only=True, verify=False) as opened:
        compare(config, opened, check, sample)
    return check


def store_folder_files(config: Config) -> list[Path]:
    """Old database files a rebuild kept aside (``graph.kuzu.before-rebuild-*``)."""
    return sorted(config.store.glob("graph.kuzu.before-rebuild-*"))
