"""``brainwork remember``: an insight lands on the nearest thing page as an
undoable dated note, or a new thing page is proposed (and created on ask)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from brainwork.learn.remember import append_note, proposed_title


def _run(vault: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("brainwork")
    res = subprocess.run([str(exe), *args, "--vault", str(vault)], capture_output=True, text=True, timeout=300)
    if check:
        assert res.returncode == 0, res.stderr
    return res


def test_attach_to_the_nearest_thing_page_then_undo(exported_template, tmp_path):
    import shutil

    vault = tmp_path / "vault"
    shutil.copytree(exported_template, vault)
    page = vault / "systems" / "ci-runners.md"
    before = page.read_bytes()
    insight = ("The self-hosted build machines run out of disk every few weeks because of the Docker layer cache; "
               "prune it first when jobs die oddly.")
    out = json.loads(_run(vault, "remember", "--json", insight).stdout)
    assert out["action"] == "attached" and out["page"] == "systems/ci-runners"
    assert out["similarity"] >= out["threshold"] and out["operation"]
    text = page.read_text(encoding="utf-8")
    assert text.startswith(before.decode("utf-8").rstrip("\n"))
    assert "\n## Notes\n\n- " in text and text.rstrip().endswith(insight)
    # a second insight goes under the same heading
    _run(vault, "remember", "--page", "CI runners", "Runner labels changed to acme-linux-v2 in November.")
    text = page.read_text(encoding="utf-8")
    assert text.count("## Notes") == 1 and text.rstrip().endswith("acme-linux-v2 in November.")
    _run(vault, "undo")
    _run(vault, "undo")
    assert page.read_bytes() == before


def test_propose_then_create_a_thing_page(exported_template, tmp_path):
    import shutil

    vault = tmp_path / "vault"
    shutil.copytree(exported_template, vault)
    insight = "The office coffee machine descales itself on Mondays at nine."
    files_before = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md") if ".brainwork" not in p.parts)
    res = _run(vault, "remember", insight)
    assert "proposed: new topic page" in res.stdout and "--create" in res.stdout
    files_after = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md") if ".brainwork" not in p.parts)
    assert files_after == files_before  # a proposal writes nothing
    out = json.loads(_run(vault, "remember", "--json", "--create", insight).stdout)
    assert out["action"] == "created" and out["type"] == "topic"
    assert out["title"] == "Office coffee machine"
    created = vault / out["path"]
    text = created.read_text(encoding="utf-8")
    assert "type: topic" in text and "## Notes" in text and insight in text
    _run(vault, "undo")
    assert not created.exists()


def test_titles_name_things_and_notes_append():
    assert proposed_title("The staging Redis needs a restart after a password rotation.") == "Staging Redis"
    assert proposed_title("On 2026-10-01 the nightly export failed") != ""
    assert "2026" not in proposed_title("On 2026-10-01 the nightly export failed")
    text = "---\ntitle: X\n---\nBody.\n\n## Notes\n\n- 2026-01-01: old\n\n## Later\ntext\n"
    out = append_note(text, "- 2026-02-02: new")
    assert out == "---\ntitle: X\n---\nBody.\n\n## Notes\n\n- 2026-01-01: old\n- 2026-02-02: new\n\n## Later\ntext\n"
    assert append_note("Body.", "- d: n") == "Body.\n\n## Notes\n\n- d: n\n"
