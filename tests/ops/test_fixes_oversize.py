"""Retarget and unlink on a file over ``max_file_bytes`` refuse the way
set-type does: the index never parsed it, so "no link to X" would be a
guess; the message names the file, its size and the limit (real
subprocesses on a vault made in the test)."""

from __future__ import annotations

import pytest

LIMIT = 4096  # max_file_bytes of the test vault (bytes): the oversize page needs only a little more


@pytest.fixture
def vault(make_vault):
    return make_vault({
        "brainwork.toml": f"[thresholds]\nmax_file_bytes = {LIMIT}\n",
        "Alpha.md": "# Alpha\n",
        "Beta.md": "# Beta\n",
        "huge.md": "---\ntitle: Huge\n---\nsee [[Alpha]]\n" + "word " * (LIMIT // 5 + 1),
    })


@pytest.mark.parametrize("args", [("retarget", "huge", "Alpha", "Beta"), ("retarget", "huge", "Alpha", "Beta", "--line", "4"),
                                  ("unlink", "huge", "Alpha"), ("set-type", "huge", "topic")])
def test_an_edit_of_a_file_over_the_limit_says_it_is_too_large(vault, tmp_path, bw, args):
    before = (vault / "huge.md").read_bytes()
    r = bw(vault, tmp_path / "store", *args)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == (f"brainwork: error: huge.md: file is {len(before):,} bytes, over the "
                                f"{LIMIT:,}-byte limit; too large to edit"), r.stderr
    assert (vault / "huge.md").read_bytes() == before


def test_a_file_at_the_limit_is_still_edited(vault, tmp_path, bw):
    head = "---\ntitle: Huge\n---\nsee [[Alpha]]\n"
    (vault / "huge.md").write_text(head + "w" * (LIMIT - len(head) - 1) + "\n")
    assert (vault / "huge.md").stat().st_size == LIMIT
    r = bw(vault, tmp_path / "store", "retarget", "huge", "Alpha", "Beta")
    assert r.returncode == 0, r.stderr
    assert (vault / "huge.md").read_text().startswith("---\ntitle: Huge\n---\nsee [[Beta]]\n")
    assert (vault / "huge.md").stat().st_size == LIMIT - 1


def test_a_page_whose_file_cannot_be_read_is_named(vault, tmp_path):
    """The store still lists the page (no sync in between), but its file is
    now a folder: the planner says which file, not a traceback."""
    from brainwork.config import load_config
    from brainwork.errors import UserError
    from brainwork.index.sync import sync
    from brainwork.ops.fixes import plan_set_type
    from brainwork.store.db import Store

    config = load_config(vault, store=tmp_path / "store")
    with Store(config.store) as store:
        sync(config, store)
        (vault / "Beta.md").unlink()
        (vault / "Beta.md").mkdir()
        with pytest.raises(UserError, match=r"^Beta\.md: cannot read \(Is a directory\); cannot edit$"):
            plan_set_type(config, store, "Beta", "topic", refresh=False)
