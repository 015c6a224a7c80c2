"""create-page makes the page a dead link names: a target no dead link
names (a typo, a page nobody links to yet) is refused, nothing written,
with the close dead-link targets suggested."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from brainwork.cli import cli
from brainwork.errors import UserError
from brainwork.ops import fixes
from ops_helpers import snapshot


@pytest.fixture
def vault(make_vault):
    return make_vault({
        "a.md": "# a\nsee [[Release checklist]] and [[Hub]]\n",
        "Hub.md": "# Hub\n[[Nowhere/deep]]\n",
    })


def test_a_target_no_dead_link_names_is_refused(env, vault) -> None:
    config, store = env
    before = snapshot(vault)
    with pytest.raises(UserError, match=r"^no dead link names \[\[nonexistent-target\]\], so nonexistent-target\.md "
                                        r"would revive none; nothing was created$"):
        fixes.create_page(config, store, "nonexistent-target")
    assert snapshot(vault) == before


def test_a_misspelt_target_gets_the_close_dead_links(env, vault) -> None:
    config, store = env
    with pytest.raises(UserError, match=r"; did you mean \[\[Release checklist\]\]\?; nothing was created$"):
        fixes.create_page(config, store, "Releese checklist")


def test_the_page_a_dead_link_names_is_still_created(env, vault) -> None:
    config, store = env
    op = fixes.create_page(config, store, "Release checklist")
    assert op.details == {"path": "Release checklist.md", "page": "Release checklist", "revived": 1}
    op = fixes.create_page(config, store, "Nowhere/deep")
    assert op.details["revived"] == 1


def test_the_command_line_refuses_with_exit_2(vault, tmp_path) -> None:
    r = CliRunner().invoke(cli, ["--vault", str(vault), "--store", str(tmp_path / "s"), "create-page", "release checklst"])
    assert r.exit_code == 2, r.output
    assert "no dead link names [[release checklst]]" in r.output and "did you mean [[Release checklist]]?" in r.output
    assert not (vault / "release checklst.md").exists()
