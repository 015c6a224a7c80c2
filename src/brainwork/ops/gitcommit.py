"""Commit each operation and capture to the vault's git repository.

Opt-in (``[git] commit = true``, :class:`brainwork.config.GitSettings`);
built on dulwich (pure Python, no ``git`` binary). A commit holds exactly the
bytes the operation or capture wrote, on top of ``HEAD``'s tree, like
``git commit -- FILES``: the person's other changes and staged files are
never swept in, and only the committed files' index entries move. The store
folder goes into ``.git/info/exclude``, never a tracked file. A git failure
never fails or undoes the operation (it is complete when this runs): it is
one warning on the ``brainwork.ops.gitcommit`` logger and the files stay
uncommitted. Why each refusal, and the walkthrough: docs/architecture.md,
"Several machines: one memory through git".
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from pathlib import Path
from typing import Iterator, Mapping

from brainwork.config import Config

log = logging.getLogger(__name__)

#: Seconds a brainwork process waits for another one's commit to the same
#: repository (parallel captures commit one after another; each takes
#: milliseconds to tens of milliseconds).
LOCK_WAIT_SECONDS = 30.0
#: Seconds to retry writing the index when a git command took its lock
#: between our check and our write.
INDEX_RETRY_SECONDS = 2.0
#: Files named in a commit message's body, at most.
LISTED_FILES = 50
#: Files and folders in the git folder that mean an operation is half done:
#: a commit now would end or corrupt it.
IN_PROGRESS = {
    "MERGE_HEAD": "a merge",
    "CHERRY_PICK_HEAD": "a cherry-pick",
    "REVERT_HEAD": "a revert",
    "rebase-merge": "a rebase",
    "rebase-apply": "a rebase or am",
    "BISECT_LOG": "a bisect",
}


class Skip(Exception):
    """Why nothing was committed (one line, for the warning)."""


def commit_operation(config: Config, journal, changes) -> str | None:
    """Commit what one unit of work of :mod:`brainwork.ops.unit_of_work` wrote
    (``journal``: its :class:`~brainwork.ops.journal.JournalEntry`, naming
    the action and operation;
    ``changes``: its :class:`~brainwork.ops.journal.FileChange` list, whose
    ``after`` bytes are committed). Returns the commit id, or None (setting
    off, nothing written, or a failure already warned about). Never raises."""
    if not config.git.commit or not changes:
        return None
    return commit_files(config, operation_message(journal), {c.path: c.after for c in changes})


def commit_capture(config: Config, kind: str, type_: str, rel: str, data: bytes) -> str | None:
    """Commit one page a capture created (``brainwork: capture correction
    corrections/2026-...md``). Never raises; see :func:`commit_files`."""
    if not config.git.commit:
        return None
    return commit_files(config, f"brainwork: {kind} {type_} {rel}", {rel: data})


def operation_message(journal) -> str:
    """The commit message's first line for a journal entry: ``brainwork:
    SUMMARY`` for an operation (summaries start with their verb: ``rename
    'A' -> 'B': ...``), ``brainwork: undo #ID (SUMMARY)`` and ``redo`` for
    steps through the undo log."""
    get = journal.get if isinstance(journal, dict) else lambda key: getattr(journal, key, None)
    kind = str(get("kind") or "operation")
    summary = _one_line(str(get("summary") or kind))
    action = get("action")
    if action in ("undo", "redo"):
        return f"brainwork: {action} {kind} #{get('op_id')} ({summary})"
    if summary.split(" ", 1)[0] != kind.split("-", 1)[0]:
        summary = f"{kind}: {summary}"
    return f"brainwork: {summary}"


def commit_files(config: Config, message: str, files: Mapping[str, bytes | None]) -> str | None:
    """Commit ``files`` (vault-relative path -> bytes, None for a deleted
    file) on the current branch with ``message`` (first line; the files are
    listed below it). Returns the new commit's id (hex), or None when the
    setting is off, the files are already committed as they are, or
    something failed (then one warning line is logged). Never raises: the
    caller's work is done and must not be undone by git."""
    if not config.git.commit or not files:
        return None
    try:
        return _commit(config, message, files)
    except Skip as exc:
        log.warning("git: %s; %s not committed", exc, _what(files))
    except Exception as exc:  # noqa: BLE001 - any git failure (dulwich raises many kinds) is a warning, never the operation's failure
        log.warning("git: %s; %s not committed", _one_line(f"{type(exc).__name__}: {exc}"), _what(files))
    return None


# -- internals -----------------------------------------------------------------
def _one_line(text: str) -> str:
    return " ".join(text.split())


def _what(files: Mapping[str, bytes | None]) -> str:
    names = sorted(files)
    return names[0] if len(names) == 1 else f"{len(names)} files"


def _what_paths(paths) -> str:
    names = sorted(os.fsdecode(p) for p in paths)
    return names[0] if len(names) == 1 else f"{len(names)} files"


def _repo(config: Config):
    from dulwich.errors import NotGitRepository
    from dulwich.repo import Repo

    try:
        repo = Repo.discover(str(config.vault))
    except NotGitRepository:
        raise Skip(f"[git] commit is on but {config.vault} is in no git repository") from None
    if repo.bare:
        repo.close()
        raise Skip("the repository is bare")
    return repo


@contextlib.contextmanager
def _serialised(controldir: Path) -> Iterator[None]:
    """One brainwork commit at a time per repository, across processes (an
    advisory ``flock``, filelock's UnixFileLock, on a file beside git's own
    files; git itself ignores it)."""
    from filelock import FileLock, Timeout

    lock = FileLock(controldir / "brainwork-commit.lock", mode=0o600, thread_local=False)
    try:
        lock.acquire(timeout=LOCK_WAIT_SECONDS, poll_interval=0.01)
    except Timeout:
        raise Skip(f"another brainwork commit held the repository for {LOCK_WAIT_SECONDS:.0f} s") from None
    try:
        yield
    finally:
        lock.release()


def _identity(repo) -> bytes:
    """``Name <email>`` as git would take it, without guessing one from the
    host name (a shared memory's history should say who wrote it)."""
    stack = repo.get_config_stack()

    def setting(key: bytes) -> str | None:
        try:
            value = stack.get((b"user",), key)
        except KeyError:
            return None
        return value.decode("utf-8", "replace").strip() or None

    name = os.environ.get("GIT_AUTHOR_NAME") or setting(b"name")
    email = os.environ.get("GIT_AUTHOR_EMAIL") or setting(b"email") or os.environ.get("EMAIL")
    if not name or not email:
        raise Skip("no identity (set it with git config user.name and user.email)")
    return f"{name} <{email}>".encode("utf-8")


def _exclude_store(config: Config, worktree: Path, commondir: Path) -> None:
    """Write the store folder into this clone's ``info/exclude`` when it lies
    inside the work tree (once: an existing line is left as it is)."""
    store = config.store.resolve()
    if store != worktree and worktree not in store.parents:
        return
    line = "/" + store.relative_to(worktree).as_posix() + "/"
    exclude = commondir / "info" / "exclude"
    try:
        have = exclude.read_text(encoding="utf-8")
    except FileNotFoundError:
        have = ""
    if line in have.splitlines():
        return
    exclude.parent.mkdir(parents=True, exist_ok=True)
    with open(exclude, "a", encoding="utf-8") as fh:
        if have and not have.endswith("\n"):
            fh.write("\n")
        fh.write(f"# brainwork's store: derived from the vault, one per machine\n{line}\n")


def _commit(config: Config, message: str, files: Mapping[str, bytes | None]) -> str | None:
    repo = _repo(config)
    try:
        worktree = Path(repo.path).resolve()
        controldir = Path(repo.controldir())
        _exclude_store(config, worktree, Path(repo.commondir()))
        with _serialised(controldir):
            return _commit_locked(repo, config, worktree, controldir, message, files)
    finally:
        repo.close()


def _commit_locked(repo, config: Config, worktree: Path, controldir: Path, message: str,
                   files: Mapping[str, bytes | None]) -> str | None:
    from dulwich.file import FileLocked  # noqa: F401 - all of it imported before anything is written
    from dulwich.index import index_entry_from_stat  # noqa: F401
    from dulwich.objects import Blob, Commit, Tree
    from dulwich.object_store import commit_tree_changes

    for name, what in IN_PROGRESS.items():
        if (controldir / name).exists():
            raise Skip(f"{what} is in progress")
    head = repo.refs.read_ref(b"HEAD")
    if head is None or not head.startswith(b"ref: "):
        raise Skip("HEAD is detached (check out a branch)")
    branch = head[len(b"ref: "):].strip()
    try:
        split = repo.get_config_stack().get_boolean((b"core",), b"splitIndex", False)
    except (KeyError, ValueError):
        split = False
    if split:  # dulwich writes whole index files only
        raise Skip("core.splitIndex is on")
    if Path(repo.index_path() + ".lock").exists():
        raise Skip("the index is locked (another git command is running, or index.lock was left behind)")
    author = _identity(repo)

    parent = repo.refs.read_ref(branch)  # None on an unborn branch (a new repository)
    if parent is not None and parent.startswith(b"ref: "):
        raise Skip(f"{branch.decode('utf-8', 'replace')} is a symbolic reference")
    base = repo[repo[parent].tree] if parent is not None else Tree()
    if parent is None:
        repo.object_store.add_object(base)

    vault = config.vault.resolve()
    entries: list[tuple[bytes, int | None, bytes | None]] = []
    blobs: dict[bytes, Blob | None] = {}
    for rel, data in files.items():
        path = os.fsencode(os.path.relpath(vault / rel, worktree).replace(os.sep, "/"))
        if path.startswith(b"../"):
            raise Skip(f"{rel} lies outside the repository's work tree")
        if data is None:
            blobs[path] = None
            if _in_tree(repo, base, path):
                entries.append((path, None, None))
            continue
        blob = Blob.from_string(data)
        repo.object_store.add_object(blob)
        blobs[path] = blob
        entries.append((path, _mode_in_tree(repo, base, path) or 0o100644, blob.id))
    base_id = base.id
    # By id: given a Tree object, commit_tree_changes changes it in place.
    tree = commit_tree_changes(repo.object_store, base_id, entries) if entries else base_id
    if tree == base_id:
        return None  # already committed as it is (e.g. a capture the owner adopted)

    now = int(time.time())
    offset = time.localtime(now).tm_gmtoff
    commit = Commit()
    commit.tree = tree
    commit.parents = [parent] if parent is not None else []
    commit.author = commit.committer = author
    commit.author_time = commit.commit_time = now
    commit.author_timezone = commit.commit_timezone = offset
    commit.encoding = b"UTF-8"
    commit.message = _message(message, files).encode("utf-8")
    repo.object_store.add_object(commit)
    reflog = b"commit: " + message.splitlines()[0].encode("utf-8")
    if parent is None:
        moved = repo.refs.add_if_new(branch, commit.id, committer=author, message=reflog)
    else:
        moved = repo.refs.set_if_equals(branch, parent, commit.id, committer=author, message=reflog)
    if not moved:
        raise Skip(f"{branch.decode('utf-8', 'replace')} moved while committing")
    _update_index(repo, worktree, blobs)
    return commit.id.decode("ascii")


def _in_tree(repo, tree, path: bytes) -> bool:
    return _mode_in_tree(repo, tree, path) is not None


def _mode_in_tree(repo, tree, path: bytes) -> int | None:
    try:
        mode, _sha = tree.lookup_path(repo.object_store.__getitem__, path)
    except KeyError:
        return None
    return mode


def _message(first: str, files: Mapping[str, bytes | None]) -> str:
    names = sorted(files)
    listed = [f"{'deleted' if files[n] is None else 'wrote'} {n}" for n in names[:LISTED_FILES]]
    if len(names) > LISTED_FILES:
        listed.append(f"and {len(names) - LISTED_FILES} more")
    return _one_line(first) + "\n\n" + "\n".join(listed) + "\n"


def _update_index(repo, worktree: Path, blobs: Mapping[bytes, object]) -> None:
    """Point the committed files' index entries at the committed blobs;
    every other entry (what the person staged) is left as it is.

    An entry gets the file's stat only when the file on disk still holds the
    committed bytes; otherwise (changed again since) a zero stat, so git
    hashes it again and shows the change instead of trusting the stat."""
    from dulwich.file import FileLocked
    from dulwich.index import index_entry_from_stat

    deadline = time.monotonic() + INDEX_RETRY_SECONDS
    while True:
        index = repo.open_index()
        for path, blob in blobs.items():
            if blob is None:
                if path in index:
                    del index[path]
                continue
            full = worktree / os.fsdecode(path)
            mode = 0o100644
            if path in index:
                with contextlib.suppress(Exception):
                    mode = index.get_mode(path)
            try:
                before = os.lstat(full)
                same = full.read_bytes() == blob.data
                after = os.lstat(full)
                same = same and (before.st_mtime_ns, before.st_size) == (after.st_mtime_ns, after.st_size)
            except OSError:
                same, after = False, None
            if same:
                index[path] = index_entry_from_stat(after, blob.id, mode)
            else:
                index[path] = index_entry_from_stat(os.stat_result((mode, 0, 0, 0, 0, 0, 0, 0, 0, 0)), blob.id, mode)
        try:
            index.write()
            return
        except FileLocked:
            if time.monotonic() >= deadline:
                log.warning("git: committed, but the index stayed locked: git status shows %s as changed "
                            "until `git reset -q -- %s`", _what_paths(blobs), " ".join(os.fsdecode(p) for p in sorted(blobs)))
                return
            time.sleep(0.05)
