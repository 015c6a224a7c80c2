"""VaultWatcher: which changes reach the callback, one batch per burst,
errors, stopping. Real file system events (inotify here), no fixed sleeps:
each test waits for a batch with a deadline, and proves that nothing else
was reported by writing a sentinel file and seeing it arrive alone."""

from __future__ import annotations

import queue
import shutil
from pathlib import Path

import pytest

from brainwork.config import load_config
from brainwork.index.watch import VaultWatcher

WAIT = 10.0  # seconds: deadline for a batch on a busy machine


@pytest.fixture
def vault(make_vault) -> Path:
    return make_vault(
        {
            "brainwork.toml": '[ignore]\nfolders = ["templates", "archive/old"]\n',
            "notes/a.md": "# A\n",
            "templates/t.md": "# T\n",
            "archive/old/o.md": "# O\n",
            "archive/kept.md": "# K\n",
        }
    )


class Batches:
    """Collects batches from the watcher's thread."""

    def __init__(self) -> None:
        self.queue: queue.Queue[list[str]] = queue.Queue()
        self.errors: queue.Queue[BaseException] = queue.Queue()

    def __call__(self, paths: list[str]) -> None:
        self.queue.put(paths)

    def next(self) -> list[str]:
        try:
            return self.queue.get(timeout=WAIT)
        except queue.Empty:
            raise AssertionError(f"no batch within {WAIT} s") from None


@pytest.fixture
def running(vault):
    """``running(config=None, **kwargs) -> (watcher, batches)``; stopped after the test."""
    started: list[VaultWatcher] = []

    def start(config=None, **kwargs):
        batches = Batches()
        w = VaultWatcher(config or load_config(vault), batches, on_error=batches.errors.put, **kwargs)
        w.start()
        started.append(w)
        assert w.ready.wait(WAIT)
        return w, batches

    yield start
    for w in started:
        w.stop()


def test_relative_keeps_what_the_scanner_indexes(vault, tmp_path) -> None:
    w = VaultWatcher(load_config(vault), lambda paths: None)
    root = str(vault)
    assert w.relative(f"{root}/notes/a.md") == "notes/a.md"
    assert w.relative(f"{root}/archive/kept.md") == "archive/kept.md"
    assert w.relative(f"{root}/archive") == "archive"  # a folder: moved or deleted as a whole
    assert w.relative(f"{root}/picture.png") == "picture.png"  # attachments are indexed too
    assert w.relative(f"{root}/templatesque.md") == "templatesque.md"  # not the ignored folder
    for skipped in (
        root,  # the vault itself
        f"{root}/.brainwork/graph.kuzu",  # the store
        f"{root}/.brainwork",
        f"{root}/.git/index",  # hidden folders
        f"{root}/notes/.a.md.swp",  # hidden files: editors' swap files
        f"{root}/notes/.bw-x1y2.tmp",  # atomic_write's temporary file
        f"{root}/templates/t.md",  # [ignore] folders
        f"{root}/templates",
        f"{root}/archive/old/o.md",
        f"{root}/brainwork.toml",  # configuration, not content
        f"{root}x/notes/a.md",  # a sibling folder whose name starts like the vault's
        str(tmp_path / "elsewhere.md"),
    ):
        assert w.relative(skipped) is None, skipped
    # brainwork.toml is only special at the root
    assert w.relative(f"{root}/notes/brainwork.toml") == "notes/brainwork.toml"


def test_a_store_inside_the_vault_under_a_visible_name_is_skipped(vault) -> None:
    w = VaultWatcher(load_config(vault, store=vault / "graphdb"), lambda paths: None)
    assert w.relative(f"{vault}/graphdb/graph.kuzu") is None
    assert w.relative(f"{vault}/graphdb") is None
    assert w.relative(f"{vault}/graphdb-notes.md") == "graphdb-notes.md"


def test_changes_the_index_ignores_call_nothing(vault, running) -> None:
    _, batches = running()
    # Everything the index skips, then one page: the only batch is that page.
    (vault / ".brainwork").mkdir()
    (vault / ".brainwork" / "graph.kuzu").write_bytes(b"\0" * 100)
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "workspace.json").write_text("{}")
    (vault / "notes" / ".a.md.swp").write_text("swap")
    (vault / "templates" / "t.md").write_text("# T changed\n")
    (vault / "archive" / "old" / "new.md").write_text("# new\n")
    (vault / "brainwork.toml").write_text('[ignore]\nfolders = ["templates", "archive/old"]\n# edited\n')
    assert batches.queue.empty()
    (vault / "notes" / "b.md").write_text("# B\n")
    assert batches.next() == ["notes/b.md"]
    assert batches.errors.empty()


def test_modify_delete_and_folder_move_are_reported(vault, running) -> None:
    _, batches = running()
    (vault / "notes" / "a.md").write_text("# A again\n")
    assert batches.next() == ["notes/a.md"]
    (vault / "archive" / "kept.md").unlink()
    assert batches.next() == ["archive/kept.md"]
    (vault / "notes").rename(vault / "moved")
    got = batches.next()
    assert "notes" in got and "moved" in got, got


def test_a_burst_of_200_files_is_one_batch(vault, running) -> None:
    folder = vault / "burst"
    folder.mkdir()
    _, batches = running()
    for i in range(200):
        (folder / f"page-{i:03}.md").write_text(f"# Page {i}\n")
    assert batches.next() == sorted(f"burst/page-{i:03}.md" for i in range(200))
    # Nothing of the burst is left over: the next batch is the sentinel alone.
    (vault / "sentinel.md").write_text("# S\n")
    assert batches.next() == ["sentinel.md"]


def test_a_new_folder_is_reported_by_its_own_path(vault, running) -> None:
    # Files written into a folder just created may come before the watch on
    # that folder is in place (inotify); the folder's path is always there,
    # so a sync (or a scan of that folder) finds them.
    _, batches = running()
    (vault / "fresh").mkdir()
    for i in range(20):
        (vault / "fresh" / f"p{i}.md").write_text("x")
    got = batches.next()
    assert got[0] == "fresh" and set(got[1:]) <= {f"fresh/p{i}.md" for i in range(20)}


def test_a_failing_callback_is_reported_and_watching_goes_on(vault) -> None:
    errors: queue.Queue[BaseException] = queue.Queue()
    seen: queue.Queue[list[str]] = queue.Queue()

    def callback(paths: list[str]) -> None:
        seen.put(paths)
        if paths == ["one.md"]:
            raise RuntimeError("callback bug")

    w = VaultWatcher(load_config(vault), callback, on_error=errors.put)
    w.start()
    try:
        assert w.ready.wait(WAIT)
        (vault / "one.md").write_text("1")
        assert seen.get(timeout=WAIT) == ["one.md"]
        assert str(errors.get(timeout=WAIT)) == "callback bug"
        (vault / "two.md").write_text("2")
        assert seen.get(timeout=WAIT) == ["two.md"]
        assert w.is_running
    finally:
        w.stop()


def test_a_vault_that_vanished_is_an_error_not_a_hang(vault) -> None:
    config = load_config(vault)
    shutil.rmtree(vault)
    errors: queue.Queue[BaseException] = queue.Queue()
    w = VaultWatcher(config, lambda paths: None, on_error=errors.put)
    w.start()
    assert isinstance(errors.get(timeout=WAIT), OSError)
    w.stop()
    assert not w.is_running


def test_stop_ends_the_thread_and_start_twice_is_refused(vault, running) -> None:
    w, _ = running()
    assert w.is_running
    w.stop()
    assert not w.is_running  # stop() joined the thread
    w.stop()  # again: harmless
    with pytest.raises(RuntimeError):
        w.start()
    VaultWatcher(load_config(vault), lambda paths: None).stop()  # never started: harmless
