"""Link resolution (docs/vault-format.md "Resolution")."""

from __future__ import annotations

import unicodedata

import pytest

from brainwork.vault.resolve import Resolver, norm

PAGES = [
    "Home",
    "Projects/Alpha",
    "Projects/Beta",
    "Archive/Projects/Alpha",
    "Obsidian Sync/Security and privacy",
    "Obsidian Publish/Security and privacy",
    "notes/Café",
    "deep/a/b/Leaf",
    "Same Name",
    "A Folder/Same Name",
    "A Folder/Sub/Same Name",
]
ATTACHMENTS = ["Attachments/Figure 1.png", "Attachments/doc.pdf", "img/Figure 1.png.bak"]
NAMES = {"Home": ["Home", "Start page"], "Projects/Beta": ["The Beta Project", "B"]}


@pytest.fixture(scope="module")
def r() -> Resolver:
    return Resolver(PAGES, ATTACHMENTS, NAMES)


@pytest.mark.parametrize(
    "target,expected",
    [
        ("Home", "Home"),
        ("home", "Home"),  # case-insensitive
        ("HOME.MD", "Home"),  # .md optional, any case
        ("Home.md", "Home"),
        ("Projects/Beta", "Projects/Beta"),  # vault-relative path
        ("projects/beta.md", "Projects/Beta"),
        ("Beta", "Projects/Beta"),  # file name
        ("b/Leaf", "deep/a/b/Leaf"),  # path suffix
        ("a/b/Leaf", "deep/a/b/Leaf"),
        ("Leaf", "deep/a/b/Leaf"),
        ("/Projects/Beta", "Projects/Beta"),  # leading slash = vault root
        ("./Home", "Home"),
        ("Figure 1.png", "Attachments/Figure 1.png"),  # attachments by full name
        ("attachments/doc.pdf", "Attachments/doc.pdf"),
        ("Start page", "Home"),  # alias fallback
        ("the beta project", "Projects/Beta"),  # title fallback
        ("Projects\\Beta", "Projects/Beta"),  # Windows separators
    ],
)
def test_resolves(r, target, expected):
    res = r.resolve(target)
    assert res.page == expected and not res.ambiguous


def test_unicode_nfc(r):
    nfd = unicodedata.normalize("NFD", "Café")
    assert nfd != "Café"
    assert r.resolve(nfd).page == "notes/Café"
    assert r.resolve("CAFÉ").page == "notes/Café"
    # pages stored under an NFD id are found by NFC targets too
    r2 = Resolver([unicodedata.normalize("NFD", "x/Café")])
    assert r2.resolve("café").page == unicodedata.normalize("NFD", "x/Café")
    assert norm("Straße") == norm("STRASSE")  # casefold, not lower


@pytest.mark.parametrize("target", ["Figure 1", "doc", "Nothing here", "Beta.png", "jects/Beta"])
def test_dead(r, target):
    assert r.resolve(target).page is None


def test_ambiguous_name_is_deterministic_and_reported(r):
    res = r.resolve("Alpha")  # Projects/Alpha and Archive/Projects/Alpha
    assert res.ambiguous
    assert res.page == "Projects/Alpha"  # fewest folders, then shortest, then alphabetical
    assert res.candidates == ("Projects/Alpha", "Archive/Projects/Alpha")
    assert Resolver(list(reversed(PAGES)), ATTACHMENTS, NAMES).resolve("Alpha") == res
    res = r.resolve("Security and privacy")
    assert res.ambiguous and res.page == "Obsidian Sync/Security and privacy"
    # a suffix that narrows it down is not ambiguous
    res = r.resolve("Archive/Projects/Alpha")
    assert res.page == "Archive/Projects/Alpha" and not res.ambiguous


def test_same_folder_first_like_obsidian(r):
    """A bare name written next to a note of that name means that note, even
    when another folder has one (the help vault relies on it)."""
    for folder in ("Obsidian Sync", "Obsidian Publish"):
        res = r.resolve("Security and privacy", f"{folder}/Some page")
        assert res.page == f"{folder}/Security and privacy" and not res.ambiguous
    # From elsewhere it stays ambiguous.
    assert r.resolve("Security and privacy", "Home").ambiguous


def test_relative_before_vault_root(r):
    assert r.resolve("Same Name", "A Folder/x").page == "A Folder/Same Name"
    assert r.resolve("Same Name", "Home").page == "Same Name"
    assert r.resolve("/Same Name", "A Folder/x").page == "Same Name"
    assert r.resolve("Sub/Same Name", "A Folder/x").page == "A Folder/Sub/Same Name"
    assert r.resolve("A Folder/Same Name", "A Folder/x").page == "A Folder/Same Name"


def test_relative_markdown_paths(r):
    assert r.resolve("../Projects/Beta.md", "Projects/Alpha").page == "Projects/Beta"
    assert r.resolve("Beta.md", "Projects/Alpha").page == "Projects/Beta"
    assert r.resolve("./Beta.md", "Projects/Alpha").page == "Projects/Beta"
    assert r.resolve("../../Home.md", "deep/a/Leafy").page == "Home"  # climbs to the root, no further
    assert r.resolve("../../../Home", "deep/a/b/Leaf").page == "Home"
    assert r.resolve("../Home.md", "Projects/Alpha").page == "Home"
    # relative resolution can be switched off
    assert r.resolve("./Beta.md", "Projects/Alpha", relative=False).page == "Projects/Beta"


@pytest.mark.parametrize(
    "target",
    [
        "../../etc/passwd",
        "../../../../../../etc/passwd.md",
        "/etc/passwd",
        "/etc/passwd.md",
        "C:/Windows/win.ini",
        "\x00",
        "Home\x00.png",
        "",
        "   ",
        "~/.ssh/id_rsa",
        "/" + "a/" * 200 + "x",
    ],
)
def test_hostile_targets_resolve_to_nothing(r, target):
    assert r.resolve(target).page is None
    assert r.resolve(target, "Projects/Alpha").page is None


def test_climbing_out_of_the_vault_resolves_to_nothing(r):
    assert r.resolve("../Home").page is None
    assert r.resolve("../Home", "Top level page").page is None
    assert r.resolve("../../Home", "Projects/Alpha").page is None
    assert r.resolve("../Home", "Projects/Alpha").page == "Home"  # still inside


def test_resolution_never_touches_the_file_system(tmp_path):
    """An absolute path to a real file outside the vault, or one inside the
    vault that was not indexed, resolves to nothing: the resolver only knows
    the names it was given."""
    real = tmp_path / "secret.md"
    real.write_text("# secret\n")
    r = Resolver(["Home"])
    assert r.resolve(str(real)).page is None
    assert r.resolve(str(real.with_suffix(""))).page is None
    assert r.resolve("secret").page is None
