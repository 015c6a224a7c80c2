"""VaultWatcher and names that are not valid UTF-8: watching goes on.

watchfiles ends its watch on any event for such a name (with inotify even
reading the file, or its own start-up walk listing such a folder). These
tests make real files with such names in a real vault and watch it with the
real watcher: the name is said once, as bytes, and later changes elsewhere
still arrive, by polling while the name exists and by inotify once it is
gone. Waits have deadlines; no fixed sleeps decide anything.
"""

from __future__ import annotations

import os
import queue
import time
from pathlib import Path

import pytest

from brainwork.config import load_config
from brainwork.index.watch import EVERYWHERE, POLL_MS, UndecodableName, VaultWatcher, _unescape_rust

WAIT = 10.0  # seconds: deadline for a batch on a busy machine (a poll is 1 s)


class Seen:
    """Batches, warnings and errors from the watcher's thread."""

    def __init__(self) -> None:
        self.batches: queue.Queue[list[str]] = queue.Queue()
        self.warnings: queue.Queue[UndecodableName] = queue.Queue()
        self.errors: queue.Queue[BaseException] = queue.Queue()

    def until(self, path: str) -> list[list[str]]:
        """The batches up to the first that names ``path`` (AssertionError
        if none does within WAIT)."""
        got: list[list[str]] = []
        end = time.monotonic() + WAIT
        while True:
            try:
                batch = self.batches.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"{path} not within {WAIT} s; batches: {got}") from None
            got.append(batch)
            if path in batch:
                return got


def wait_for(condition, what: str) -> None:
    end = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"not within {WAIT} s: {what}")
        time.sleep(0.05)


@pytest.fixture
def vault(make_vault) -> Path:
    return make_vault({"notes/a.md": "# A\n", "topics/t.md": "# T\n"})


@pytest.fixture
def bad_name(vault):
    """``bad_name(b"topics/caf\\xe9.md", folder=False) -> bytes`` (absolute):
    makes the file (or folder) with that non-UTF-8 name; skips where the file
    system refuses such names."""

    def make(rel: bytes, folder: bool = False) -> bytes:
        path = os.fsencode(vault) + b"/" + rel
        try:
            if folder:
                os.mkdir(path)
            else:
                with open(path, "wb") as f:
                    f.write(b"---\ntitle: x\n---\n")
        except OSError as exc:
            pytest.skip(f"this file system refuses non-UTF-8 names: {exc}")
        return path

    return make


@pytest.fixture
def watching(vault):
    started: list[VaultWatcher] = []

    def start() -> tuple[VaultWatcher, Seen]:
        seen = Seen()
        w = VaultWatcher(
            load_config(vault), seen.batches.put, on_error=seen.errors.put, on_warning=seen.warnings.put
        )
        w.start()
        started.append(w)
        assert w.ready.wait(WAIT)
        return w, seen

    yield start
    for w in started:
        w.stop()
        assert not w.is_running


def test_a_new_file_with_such_a_name_is_said_once_and_watching_goes_on(vault, watching, bad_name) -> None:
    w, seen = watching()
    bad = bad_name(b"topics/caf\xe9.md")
    warning = seen.warnings.get(timeout=WAIT)
    assert warning.path == b"topics/caf\xe9.md"
    assert "b'topics/caf\\xe9.md'" in str(warning)
    assert w.polling
    # The restarted watch asks for a sync of everything (what the ended
    # watch dropped); changes elsewhere then arrive by name.
    seen.until(EVERYWHERE)
    (vault / "notes" / "b.md").write_text("# B\n")
    seen.until("notes/b.md")
    # Reading it: nothing (polling sees no reads). Writing it again ends the
    # polling watch: restarted, not said again.
    with open(bad, "rb") as f:
        f.read()
    (vault / "notes" / "c.md").write_text("# C\n")
    assert not any(EVERYWHERE in batch for batch in seen.until("notes/c.md"))  # no restart
    with open(bad, "ab") as f:
        f.write(b"more\n")
    seen.until(EVERYWHERE)
    (vault / "notes" / "c2.md").write_text("# C2\n")
    seen.until("notes/c2.md")
    # Removed: back to inotify; a page written then still arrives.
    os.unlink(bad)
    wait_for(lambda: not w.polling, "polling ends with the name")
    seen.until(EVERYWHERE)  # from polling to inotify
    (vault / "notes" / "d.md").write_text("# D\n")
    seen.until("notes/d.md")
    assert seen.warnings.empty()
    assert seen.errors.empty()
    assert w.is_running


def test_reading_such_a_file_does_not_end_the_watch(vault, bad_name, watching) -> None:
    # The name is there before the watch starts; with inotify, merely
    # opening it (as a sync reading the vault does) ended watchfiles' watch.
    bad = bad_name(b"caf\xe9.md")
    w, seen = watching()
    with open(bad, "rb") as f:
        f.read()
    assert seen.warnings.get(timeout=WAIT).path == b"caf\xe9.md"
    seen.until(EVERYWHERE)
    restarts = w.restarts
    for i in range(3):  # each read would restart (and sync) again with inotify
        with open(bad, "rb") as f:
            f.read()
        (vault / f"after-read-{i}.md").write_text("x")
        assert not any(EVERYWHERE in batch for batch in seen.until(f"after-read-{i}.md"))
    assert w.restarts == restarts
    assert seen.errors.empty()


def test_a_folder_with_such_a_name_is_said_once(vault, bad_name, watching) -> None:
    # inotify's start-up walk lists the folder, which already ends the watch.
    folder = bad_name(b"proj\xff", folder=True)
    with open(folder + b"/inner.md", "wb") as f:
        f.write(b"# inner\n")
    w, seen = watching()
    assert seen.warnings.get(timeout=WAIT).path == b"proj\xff"
    seen.until(EVERYWHERE)
    (vault / "notes" / "b.md").write_text("# B\n")
    seen.until("notes/b.md")
    # A file inside it changing ends the polling watch too: restarted, no new warning.
    with open(folder + b"/inner.md", "ab") as f:
        f.write(b"edited\n")
    seen.until(EVERYWHERE)  # the restart after the inner file changed
    (vault / "notes" / "c.md").write_text("# C\n")
    seen.until("notes/c.md")
    assert seen.warnings.empty()
    assert seen.errors.empty()


def test_such_a_name_the_index_never_reads_is_not_said(vault, bad_name, watching) -> None:
    (vault / ".obsidian").mkdir()
    w, seen = watching()
    bad_name(b".obsidian/caf\xe9.json")
    seen.until(EVERYWHERE)  # the restart
    (vault / "notes" / "b.md").write_text("# B\n")
    seen.until("notes/b.md")
    assert seen.warnings.empty()
    assert seen.errors.empty()


def test_a_name_with_quotes_backslashes_and_valid_accents_comes_back_byte_for_byte(
    vault, bad_name, watching
) -> None:
    # The path is read back from watchfiles' message (Rust's Debug form).
    rel = b'odd "q" \\ \t \xc3\xa9 \xe9\x01.md'
    _, seen = watching()
    bad_name(rel)
    assert seen.warnings.get(timeout=WAIT).path == rel


def test_rust_debug_form_unescapes() -> None:
    assert _unescape_rust(r"/v/caf\xE9.md") == b"/v/caf\xe9.md"
    assert _unescape_rust('/v/\\"a\\" \\\\ \\t\\n\\0\\\'') == b'/v/"a" \\ \t\n\0\''
    assert _unescape_rust(r"/v/\u{200b}é") == "/v/\u200bé".encode()
    assert _unescape_rust(r"/v/\q") is None
    assert POLL_MS <= 2_000  # a capture shows within a couple of seconds
