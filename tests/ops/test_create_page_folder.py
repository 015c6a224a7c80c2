"""create-page's ``folder`` is a folder inside the vault, relative to its
root: an absolute folder or one with ``..`` segments is an
``UnsafePath`` error and nothing is written (docs/operations.md, Safety),
where a leading ``/`` used to be stripped and the page made inside the
vault under that path."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from brainwork.cli import cli
from brainwork.errors import UnsafePath
from brainwork.ops import fixes
from ops_helpers import snapshot


@pytest.fixture
def vault(make_vault):
    return make_vault({"a.md": "# a\nsee [[Ghost]]\n", "topics/t.md": "# t\n"})


@pytest.mark.parametrize("folder", ["/tmp/abs", "/topics", "../out", "topics/../..", "C:/x"])
def test_an_absolute_or_dotted_folder_is_refused(env, vault, folder) -> None:
    config, store = env
    before = snapshot(vault)
    with pytest.raises(UnsafePath):
        fixes.create_page(config, store, "Ghost", folder=folder)
    assert snapshot(vault) == before


@pytest.mark.parametrize(("folder", "path"), [("topics", "topics/Ghost.md"), ("topics/", "topics/Ghost.md"),
                                              ("new/sub", "new/sub/Ghost.md")])
def test_a_relative_folder_holds_the_new_page(env, vault, folder, path) -> None:
    config, store = env
    op = fixes.create_page(config, store, "Ghost", folder=folder)
    assert op.details["path"] == path and (vault / path).exists()


def test_the_command_line_names_the_absolute_folder(vault, tmp_path) -> None:
    r = CliRunner().invoke(cli, ["--vault", str(vault), "--store", str(tmp_path / "s"),
                                 "create-page", "Ghost", "--folder", "/tmp/abs"])
    assert r.exit_code == 2, r.output
    assert "absolute path not allowed: '/tmp/abs'" in r.output
    assert not (vault / "tmp").exists()
