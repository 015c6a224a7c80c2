"""``[git] commit = true``: each operation and capture is one commit of only
its files (:mod:`brainwork.ops.gitcommit`), on real repositories made with
dulwich in tmp folders, with the real store.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from dulwich import porcelain
from dulwich.repo import Repo

from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.learn.capture import capture
from brainwork.ops import changeset as cs
from brainwork.ops import gitcommit
from brainwork.ops.rename import rename
from brainwork.store import Store

BRAINWORK = [sys.executable, "-c", "from brainwork.cli import main; main()"]
GIT_ON = "[git]\ncommit = true\n"
PAGES = {
    "Old Note.md": "# Old Note\n\nThe note.\n",
    "b.md": "# B\n\nSee [[Old Note]].\n",
    "c.md": "# C\n\nUnrelated.\n",
}


@pytest.fixture(autouse=True)
def no_global_git(tmp_path, monkeypatch):
    """Only the repository's own config counts: no ~/.gitconfig, no
    /etc/gitconfig, no identity from the environment."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL",
                "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(var, raising=False)


def _identity(path: Path, name: bytes = b"Ada Tester", email: bytes = b"ada@example.org") -> None:
    repo = Repo(str(path))
    cfg = repo.get_config()
    cfg.set((b"user",), b"name", name)
    cfg.set((b"user",), b"email", email)
    cfg.write_to_path()
    repo.close()


def git_vault(make_vault, files=PAGES, toml: str | None = GIT_ON, identity: bool = True) -> Path:
    """A vault that is a git repository with every page committed."""
    files = dict(files)
    if toml is not None:
        files["brainwork.toml"] = toml
    vault = make_vault(files)
    porcelain.init(str(vault))
    if identity:
        _identity(vault)
    porcelain.add(str(vault), [str(vault / p) for p in files])
    porcelain.commit(str(vault), message=b"the vault", author=b"Ada Tester <ada@example.org>",
                     committer=b"Ada Tester <ada@example.org>")
    return vault


def head(vault: Path) -> bytes:
    with Repo(str(vault)) as repo:
        return repo.head()


def commit_of(vault: Path, sha: bytes | None = None):
    with Repo(str(vault)) as repo:
        return repo[sha or repo.head()]


def files_at(vault: Path, sha: bytes | None = None) -> dict[str, bytes]:
    """``{path: bytes}`` of the commit's tree."""
    with Repo(str(vault)) as repo:
        commit = repo[sha or repo.head()]
        out = {}
        for entry in repo.object_store.iter_tree_contents(commit.tree):
            out[entry.path.decode()] = repo[entry.sha].data
        return out


def changed_in(vault: Path, sha: bytes | None = None) -> set[str]:
    """Paths the commit changed against its parent."""
    commit = commit_of(vault, sha)
    now = files_at(vault, commit.id)
    before = files_at(vault, commit.parents[0]) if commit.parents else {}
    return {p for p in set(now) | set(before) if now.get(p) != before.get(p)}


def status(vault: Path):
    cwd = os.getcwd()
    os.chdir(vault)  # dulwich reports untracked paths relative to the current folder
    try:
        return porcelain.status(str(vault))
    finally:
        os.chdir(cwd)


@pytest.fixture
def opened(request):
    stores = []

    def open_(vault: Path):
        config = load_config(vault)
        store = Store(config.store)
        stores.append(store)
        sync(config, store)
        return config, store

    yield open_
    for s in stores:
        s.close()


def test_each_operation_is_one_commit_of_only_its_files(make_vault, opened):
    vault = git_vault(make_vault)
    # the person's own work in progress: an edit, a staged new page, an untracked one
    (vault / "c.md").write_text("# C\n\nUnrelated, edited by hand.\n", encoding="utf-8")
    (vault / "d.md").write_text("# D\n\nStaged by hand.\n", encoding="utf-8")
    porcelain.add(str(vault), [str(vault / "d.md")])
    (vault / "e.md").write_text("# E\n\nNot in git.\n", encoding="utf-8")
    config, store = opened(vault)
    first = head(vault)

    rename(config, store, "Old Note", "New Name")

    commit = commit_of(vault)
    assert commit.parents == [first]
    subject = commit.message.decode().splitlines()[0]
    assert subject == "brainwork: rename Old Note.md -> New Name.md: 1 link in 1 file", subject
    assert "wrote New Name.md" in commit.message.decode() and "deleted Old Note.md" in commit.message.decode()
    assert commit.author == b"Ada Tester <ada@example.org>"
    assert changed_in(vault) == {"Old Note.md", "New Name.md", "b.md"}
    tree = files_at(vault)
    assert tree["New Name.md"] == (vault / "New Name.md").read_bytes()
    assert tree["b.md"] == (vault / "b.md").read_bytes() and b"[[New Name]]" in tree["b.md"]
    assert tree["c.md"] == PAGES["c.md"].encode() and "d.md" not in tree  # their work is not swept in
    assert not any(p.startswith(".brainwork") for p in tree)

    st = status(vault)
    assert st.staged == {"add": [b"d.md"], "delete": [], "modify": []}  # still staged, still theirs to commit
    assert st.unstaged == [b"c.md"]
    assert sorted(st.untracked) == [b"e.md"]  # the store is ignored through .git/info/exclude
    assert "/.brainwork/" in (vault / ".git" / "info" / "exclude").read_text().splitlines()
    assert not (vault / ".gitignore").exists()


def test_undo_and_redo_commit_too(make_vault, opened):
    vault = git_vault(make_vault)
    config, store = opened(vault)
    original = files_at(vault)
    rename(config, store, "Old Note", "New Name")
    renamed = files_at(vault)

    op = cs.undo(config, store)
    subject = commit_of(vault).message.decode().splitlines()[0]
    assert subject == f"brainwork: undo rename #{op.id} ({op.summary})"
    assert files_at(vault) == original

    cs.redo(config, store)
    assert commit_of(vault).message.decode().startswith(f"brainwork: redo rename #{op.id} (")
    assert files_at(vault) == renamed
    assert len(list(Repo(str(vault)).get_walker())) == 4


def test_a_capture_is_committed_alone(make_vault):
    vault = git_vault(make_vault)
    (vault / "c.md").write_text("edited, uncommitted\n", encoding="utf-8")
    config = load_config(vault)
    result = capture(config, None, "correction", {"wrong": "Checked the local file", "correct": "Check the served chain",
                                                  "why": "Clients see the served chain"})
    subject = commit_of(vault).message.decode().splitlines()[0]
    assert subject == f"brainwork: capture correction {result.path}"
    assert result.path.startswith("corrections/") and result.path.endswith(".md")
    assert changed_in(vault) == {result.path}
    assert files_at(vault)[result.path] == (vault / result.path).read_bytes()


def test_git_is_off_by_default(make_vault, opened):
    vault = git_vault(make_vault, toml=None)
    config, store = opened(vault)
    assert config.git.commit is False
    first = head(vault)
    rename(config, store, "Old Note", "New Name")
    capture(config, None, "task", {"request": "A task, not committed"})
    assert head(vault) == first
    assert "/.brainwork/" not in (vault / ".git" / "info" / "exclude").read_text()


def test_bad_git_setting_is_a_clear_error(make_vault):
    from brainwork.errors import UserError

    vault = make_vault({"a.md": "# A\n", "brainwork.toml": '[git]\ncommit = "yes"\n'})
    with pytest.raises(UserError, match=r"brainwork.toml: \[git\] commit must be true or false"):
        load_config(vault)


def _detach(vault: Path) -> None:
    with Repo(str(vault)) as repo:
        sha = repo.head()
        (vault / ".git" / "HEAD").write_bytes(sha + b"\n")


def _lock_index(vault: Path) -> None:
    (vault / ".git" / "index.lock").write_bytes(b"")


def _no_identity(vault: Path) -> None:
    with Repo(str(vault)) as repo:
        cfg = repo.get_config()
        del cfg[(b"user",)]
        cfg.write_to_path()


@pytest.mark.parametrize("break_it, says", [
    (_detach, "HEAD is detached"),
    (_lock_index, "the index is locked"),
    (_no_identity, "no identity"),
])
def test_a_git_failure_is_a_warning_and_the_operation_stands(make_vault, opened, caplog, break_it, says):
    vault = git_vault(make_vault)
    config, store = opened(vault)
    break_it(vault)
    first = head(vault)
    with caplog.at_level(logging.WARNING, logger="brainwork.ops.gitcommit"):
        op = rename(config, store, "Old Note", "New Name").operation
    assert (vault / "New Name.md").is_file() and not (vault / "Old Note.md").exists()
    assert cs.can_undo(store).id == op.id  # done and recorded as ever
    assert head(vault) == first
    warnings = [r.getMessage() for r in caplog.records if r.name == "brainwork.ops.gitcommit"]
    assert len(warnings) == 1 and "\n" not in warnings[0]
    assert warnings[0].startswith("git: ") and says in warnings[0] and warnings[0].endswith("3 files not committed")


def test_the_command_line_prints_the_warning_and_succeeds(make_vault):
    vault = git_vault(make_vault)
    _detach(vault)
    env = {**os.environ, "BRAINWORK_STORE_WAIT": "60"}
    out = subprocess.run([*BRAINWORK, "--vault", str(vault), "rename", "Old Note", "New Name"],
                         capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stderr.splitlines() if "git:" in line]
    assert lines == ["brainwork: warning: git: HEAD is detached (check out a branch); 3 files not committed"]
    assert (vault / "New Name.md").is_file()


def test_a_vault_in_no_repository_warns(make_vault, caplog):
    vault = make_vault({"a.md": "# A\n", "brainwork.toml": GIT_ON})
    config = load_config(vault)
    with caplog.at_level(logging.WARNING, logger="brainwork.ops.gitcommit"):
        capture(config, None, "task", {"request": "No repository here"})
    assert any("in no git repository" in r.getMessage() for r in caplog.records)


def test_a_vault_in_a_subfolder_and_a_first_commit(make_vault):
    """The vault may be a folder inside the repository, and the branch may
    have no commit yet."""
    root = make_vault({"code/readme.txt": "not the vault\n", "notes/a.md": "# A\n", "notes/brainwork.toml": GIT_ON})
    porcelain.init(str(root))
    _identity(root)
    config = load_config(root / "notes")
    result = capture(config, None, "task", {"request": "First ever commit"})
    commit = commit_of(root)
    assert commit.parents == []
    assert set(files_at(root)) == {f"notes/{result.path}"}
    assert "/notes/.brainwork/" in (root / ".git" / "info" / "exclude").read_text().splitlines()


def test_merge_in_progress_is_left_alone(make_vault, caplog):
    vault = git_vault(make_vault)
    (vault / ".git" / "MERGE_HEAD").write_bytes(head(vault) + b"\n")
    first = head(vault)
    with caplog.at_level(logging.WARNING, logger="brainwork.ops.gitcommit"):
        capture(load_config(vault), None, "task", {"request": "During a merge"})
    assert head(vault) == first
    assert any("a merge is in progress" in r.getMessage() for r in caplog.records)


def test_commit_files_is_idempotent(make_vault):
    vault = git_vault(make_vault)
    config = load_config(vault)
    assert gitcommit.commit_files(config, "brainwork: nothing new", {"c.md": PAGES["c.md"].encode()}) is None
    assert commit_of(vault).message == b"the vault"


def _wait_for(predicate, seconds: float):
    import time

    deadline = time.monotonic() + seconds
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(0.2)


def test_a_pull_is_followed_by_sync_and_a_conflict_is_a_parse_error(make_vault, tmp_path):
    """Two machines share one memory: B captures (committed there), A pulls
    while ``brainwork serve`` owns A's store; A's watcher syncs the pulled
    pages. A page left with git's conflict markers is a parse error naming
    the file and line, with nothing of either side lost."""
    import signal
    import time

    from brainwork.cli import served
    from brainwork.service import owner

    a = git_vault(make_vault)
    b = tmp_path / "machine-b"
    porcelain.clone(str(a), str(b), errstream=open(os.devnull, "wb"))
    _identity(b, b"Bo Other", b"bo@example.org")
    result = capture(load_config(b), None, "task", {"request": "Captured on the other machine"})
    (b / "c.md").write_text("# C\n\nEdited on the other machine.\n", encoding="utf-8")
    porcelain.add(str(b), [str(b / "c.md")])
    porcelain.commit(str(b), message=b"edit c", author=b"Bo Other <bo@example.org>", committer=b"Bo Other <bo@example.org>")

    config = load_config(a)
    log = open(tmp_path / "serve.log", "w", encoding="utf-8")
    proc = subprocess.Popen([*BRAINWORK, "--vault", str(a), "serve"], stdout=subprocess.DEVNULL, stderr=log,
                            start_new_session=True)
    try:
        assert _wait_for(lambda: owner.status(config) is not None or proc.poll() is not None, 120)
        assert proc.poll() is None, (tmp_path / "serve.log").read_text()
        page = result.path[: -len(".md")]
        assert served.call(config, ["show", page]).exit_code != 0  # not on this machine yet

        porcelain.pull(str(a), str(b), outstream=open(os.devnull, "wb"), errstream=open(os.devnull, "wb"))
        assert (a / result.path).is_file()
        shown = _wait_for(lambda: (r := served.call(config, ["show", page])).exit_code == 0 and r, 30)
        assert shown, "the pulled page was not synced"
        assert "Captured on the other machine" in shown.stdout
        st = owner.status(config)
        assert st is not None and st.pid == proc.pid  # the owner synced it; nobody ran index

        # what `git pull` leaves when both machines changed the same lines
        conflicted = ("# C\n\n<<<<<<< HEAD\nEdited on this machine. [[b]]\n=======\n"
                      "Edited on the other machine. [[Old Note]]\n>>>>>>> 1a2b3c4\n")
        (a / "c.md").write_text(conflicted, encoding="utf-8")

        def reported():
            r = served.call(config, ["check", "--code", "parse-error"])
            return "git merge conflict markers" in r.stdout and r.stdout

        out = _wait_for(reported, 30)
        assert out, "no parse error for the conflict"
        assert out.splitlines() == [
            "c.md:3: parse-error git merge conflict markers (<<<<<<< to >>>>>>> at line 7): keep what both sides "
            "wrote and delete the three marker lines"]
        shown = served.call(config, ["show", "c"]).stdout
        assert "b" in shown and "Old Note" in shown, shown  # both sides' links still count

        # a served command's git warning reaches its client, not the owner's stderr
        _detach(a)
        reply = served.call(config, ["rename", "b", "B renamed"])
        assert reply.exit_code == 0, reply.stderr
        assert "brainwork: warning: git: HEAD is detached (check out a branch); 3 files not committed" in reply.stderr.splitlines()
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        log.close()


def test_conflict_markers_are_a_parse_error_and_nothing_is_dropped():
    from brainwork.vault.parse import parse_text

    text = ("---\ntitle: Chain\n---\n# Chain\n\n<<<<<<< HEAD\nOurs, see [[Alpha]].\n=======\n"
            "Theirs, see [[Beta]].\n>>>>>>> 0a1b2c3 (their change)\nAfter.\n")
    page = parse_text("notes/chain.md", text.encode())
    assert [(e.path, e.line) for e in page.errors] == [("notes/chain.md", 6)]
    assert "at line 10" in page.errors[0].message
    assert page.title == "Chain" and {link.target for link in page.links} == {"Alpha", "Beta"}
    # a lone marker-like line (in a code block explaining git) is no conflict
    assert parse_text("n.md", b"# N\n\n```\n<<<<<<< HEAD\n```\n").errors == []


async def test_the_workbench_shows_a_git_warning(make_vault):
    """An operation run in the open workbench whose commit cannot be made
    is done, and the warning is a notification."""
    import asyncio

    from brainwork.tui.app import BrainworkApp

    vault = git_vault(make_vault)
    _detach(vault)
    app = BrainworkApp(load_config(vault), serve=False)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(600):
            if app.store.is_open and app.indexed:
                break
            await pilot.pause(0.1)
        app.operations.run("rename", lambda config, store: rename(config, store, "Old Note", "New Name"))

        def said() -> list[str]:
            return [n.message for n in app._notifications if n.title == "git"]

        for _ in range(600):
            if said():
                break
            await asyncio.sleep(0.1)
        assert said() == ["git: HEAD is detached (check out a branch); 3 files not committed"]
        assert (vault / "New Name.md").is_file()
