"""Real input: rename the most linked page of a COPY of obsidian-help-en and
undo it; every file's hash comes back (the original corpus is read-only)."""

from __future__ import annotations

import shutil

from brainwork.config import load_config
from brainwork.ops import changeset as cs
from brainwork.ops.rename import rename
from brainwork.store import Store

from ops_helpers import hashes, resolved_links


def test_rename_heavily_linked_page_and_undo(obsidian_help, tmp_path) -> None:
    vault = tmp_path / "obsidian-help-en"
    shutil.copytree(obsidian_help, vault, ignore=shutil.ignore_patterns(".brainwork"),
                    copy_function=shutil.copyfile)  # the corpus is read-only; the copy is not
    # copytree gives folders the corpus's bits (r-x): a rename adds and
    # removes names in them, which a folder without its write bit refuses.
    for folder in [vault, *(p for p in vault.rglob("*") if p.is_dir())]:
        folder.chmod(0o755)
    config = load_config(vault, tmp_path / "store")
    before = hashes(vault)
    links_before = resolved_links(vault)
    old = "User interface/Settings"  # 147 links from 64 files (the most linked page)
    with Store(config.store) as store:
        result = rename(config, store, old, "Preferences")
        plan = result.plan
        assert plan.new_path == "User interface/Preferences.md"
        assert plan.links_rewritten == 149 and len({e.path for e in plan.edits}) == 65
        assert all(e.new.startswith(("[[Preferences", "![[Preferences")) for e in plan.edits)
        links_after = resolved_links(vault)
        for rel, items in links_before.items():
            rel2 = plan.new_path if rel == plan.old_path else rel
            for (raw, was), (_, now) in zip(items, links_after[rel2], strict=True):
                assert now == ("User interface/Preferences" if was == old else was), (rel, raw)
        assert hashes(vault) != before
        cs.undo(config, store)
    assert hashes(vault) == before
