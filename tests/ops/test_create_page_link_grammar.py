"""create-page reads a path-like dead link as links resolve
(docs/vault-format.md): a leading ``/`` from the vault root, ``./`` and
``../`` from the linking page's folder; a path out of the vault is refused."""

from __future__ import annotations

import pytest

from brainwork.errors import UnsafePath, UserError
from brainwork.ops import changeset as cs
from brainwork.ops import fixes
from ops_helpers import resolved_links, snapshot

LINKS = "[[/abs/path]] and [[./Near]] and [[../Up]] and [[/Other]]\n"


@pytest.fixture
def vault(make_vault):
    return make_vault({
        "topics/deep/Linker.md": "# Linker\n" + LINKS,
        "Other.md": "# Other at the root\n",
        "topics/deep/Other.md": "# Other next to the linker\n",
    })


@pytest.mark.parametrize(("target", "path"), [
    ("/abs/path", "abs/path.md"),
    ("./Near", "topics/deep/Near.md"),
    ("../Up", "topics/Up.md"),
])
def test_the_new_page_is_where_the_link_points(env, vault, target, path) -> None:
    config, store = env
    before = snapshot(vault)
    op = fixes.create_page(config, store, target, from_page="topics/deep/Linker")
    assert op.details["path"] == path and op.details["revived"] == 1
    assert (vault / path).exists()
    links = dict(resolved_links(vault)["topics/deep/Linker.md"])
    assert links[f"[[{target}]]"] == path[:-3]
    cs.undo(config, store)
    assert snapshot(vault) == before


def test_without_the_linking_page_a_relative_path_is_from_the_root(env, vault) -> None:
    config, store = env
    assert fixes.create_page(config, store, "./Near").details["path"] == "Near.md"


@pytest.mark.parametrize("target", ["/../etc/passwd", "../../../etc/passwd", "./../../../x", "/abs/../../x"])
def test_a_path_out_of_the_vault_is_refused(env, vault, target) -> None:
    config, store = env
    before = snapshot(vault)
    with pytest.raises((UnsafePath, UserError)):
        fixes.create_page(config, store, target, from_page="topics/deep/Linker")
    assert snapshot(vault) == before
