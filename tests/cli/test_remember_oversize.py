"""``brainwork remember --page P`` refuses a page whose file is over
``max_file_bytes`` the way every other page edit does (set-type, retarget):
the index never parsed it, and appending a note would rewrite all of it.
Real subprocesses on a vault made in the test."""

from __future__ import annotations

import pytest

LIMIT = 4096  # max_file_bytes of the test vault (bytes): the oversize page needs only a little more


@pytest.fixture
def vault(make_vault):
    return make_vault({
        "brainwork.toml": f"[thresholds]\nmax_file_bytes = {LIMIT}\n",
        "Alpha.md": "---\ntype: topic\n---\n# Alpha\n",
        "huge.md": "---\ntitle: Huge\n---\nsee [[Alpha]]\n" + "word " * (LIMIT // 5 + 1),
    })


def test_remember_on_a_file_over_the_limit_says_it_is_too_large(vault, tmp_path, bw):
    before = (vault / "huge.md").read_bytes()
    r = bw(vault, tmp_path / "store", "remember", "the cache needs a warm-up", "--page", "huge")
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.strip() == (f"brainwork: error: huge.md: file is {len(before):,} bytes, over the "
                                f"{LIMIT:,}-byte limit; too large to edit"), r.stderr
    assert (vault / "huge.md").read_bytes() == before
    log = bw(vault, tmp_path / "store", "log")
    assert log.stdout.strip() == "the undo log is empty", log.stdout


def test_remember_on_a_page_under_the_limit_still_appends(vault, tmp_path, bw):
    r = bw(vault, tmp_path / "store", "remember", "the cache needs a warm-up", "--page", "Alpha")
    assert r.returncode == 0, r.stderr
    text = (vault / "Alpha.md").read_text()
    assert "\n## Notes\n\n- " in text and text.endswith(": the cache needs a warm-up\n"), text
