"""Rename: link rewriting in every form, undo restores every byte, other links
keep their targets (unit cases and a hypothesis property over small vaults)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brainwork.config import load_config
from brainwork.errors import UnsafePath, UserError
from brainwork.ops import changeset as cs
from brainwork.ops.rename import plan_rename, rename
from brainwork.store import Store, graph
from brainwork.vault.edit import frontmatter_fields
from brainwork.vault.parse import page_id

from ops_helpers import resolved_links, snapshot, text_outside_links

OTHER = (
    "---\n"
    "related: \"[[Old Note]]\"\n"
    "used:\n"
    "  - '[[notes/Old Note|the tool]]'\n"
    "---\n"
    "Forms: [[Old Note]], [[old note|label]], ![[Old Note#Head]], [[Old Note.md]], [[Old Note#^blk]],\n"
    "[md](../notes/Old%20Note.md#Intro), [abs](notes/Old%20Note.md), [angle](<../notes/Old Note.md>),\n"
    "[[Old Title Alias]] and table [[Old Note\\|esc]] and `[[Old Note]]` in code.\n"
    "```\n[[Old Note]] in a fence\n```\n"
    "Others: [[B]] [[Missing]].\n"
)


@pytest.fixture
def vault(make_vault):
    return make_vault({
        "notes/Old Note.md": "---\naliases: [Old Title Alias]\n---\n# Heading\nSelf [[Old Note#Intro]] and [b](../other/B.md)\n",
        "other/B.md": OTHER,
        "other/C.md": "\ufeffCRLF page\r\nsee [[Old Note]]\r\n",
        "img.png": b"\x89PNG",
    })


def test_rename_rewrites_every_form_and_undo_restores(env, vault) -> None:
    config, store = env
    before = snapshot(vault)
    result = rename(config, store, "Old Note", "New Name", keep_alias=True, add_title=True)
    plan = result.plan
    assert plan.new_path == "notes/New Name.md" and plan.new_id == "notes/New Name"
    b = (vault / "other/B.md").read_text()
    assert b == (
        "---\n"
        "related: \"[[New Name]]\"\n"
        "used:\n"
        "  - '[[notes/New Name|the tool]]'\n"
        "---\n"
        "Forms: [[New Name]], [[New Name|label]], ![[New Name#Head]], [[New Name.md]], [[New Name#^blk]],\n"
        "[md](../notes/New%20Name.md#Intro), [abs](notes/New%20Name.md), [angle](<../notes/New Name.md>),\n"
        "[[Old Title Alias]] and table [[New Name\\|esc]] and `[[Old Note]]` in code.\n"
        "```\n[[Old Note]] in a fence\n```\n"
        "Others: [[B]] [[Missing]].\n"
    )
    assert (vault / "other/C.md").read_bytes() == "\ufeffCRLF page\r\nsee [[New Name]]\r\n".encode()
    assert not (vault / "notes/Old Note.md").exists()
    page = (vault / "notes/New Name.md").read_text()
    fields = frontmatter_fields(page)
    assert fields["title"] == "New Name"  # the H1 says "Heading", so a title key is added
    # old title (from the H1) and old file name kept as aliases, in the list's flow style
    assert fields["aliases"] == ["Old Title Alias", "Heading", "Old Note"]
    assert "aliases: [Old Title Alias, Heading, Old Note]\n" in page
    assert "Self [[New Name#Intro]] and [b](../other/B.md)" in page
    assert graph.get_page(store, "notes/New Name").title == "New Name"
    assert graph.get_page(store, "notes/Old Note") is None
    incoming = graph.page_edges(store, "notes/New Name").in_
    assert {e.other for e in incoming} == {"other/B", "other/C"}
    assert result.operation.kind == "rename" and result.operation.details["links_rewritten"] == plan.links_rewritten == 13

    cs.undo(config, store)
    assert snapshot(vault) == before
    assert graph.get_page(store, "notes/Old Note") is not None
    cs.redo(config, store)
    assert (vault / "other/B.md").read_text().startswith('---\nrelated: "[[New Name]]"')


def test_title_only_rename_of_slug_page_keeps_path_and_name_links(make_vault, store, tmp_path) -> None:
    vault = make_vault({
        "renew-tls.md": "---\ntitle: Renew TLS cert\ntype: task\n---\nbody\n",
        "x.md": "[[renew-tls]] [[Renew TLS cert]] [[RENEW TLS CERT|shout]] [r](renew-tls.md)\n",
    })
    config = load_config(vault, tmp_path / "store")
    result = rename(config, store, "Renew TLS cert", "Certificate renewal")
    assert result.plan.new_path == "renew-tls.md"
    # the new name as typed, whatever case the old link used
    assert (vault / "x.md").read_text() == "[[renew-tls]] [[Certificate renewal]] [[Certificate renewal|shout]] [r](renew-tls.md)\n"
    assert (vault / "renew-tls.md").read_text() == (
        "---\ntitle: Certificate renewal\ntype: task\n---\nbody\n"  # no alias unless asked
    )


def test_path_only_rename_moves_and_keeps_relative_links_working(make_vault, store, tmp_path) -> None:
    vault = make_vault({
        "a/Page.md": "Links [[Sibling]] and [s](Sibling.md) and [[a/Sibling]]\n",
        "a/Sibling.md": "back [[Page]] [p](./Page.md)\n",
        "b/Sibling.md": "another sibling\n",
    })
    config = load_config(vault, tmp_path / "store")
    before = snapshot(vault)
    result = rename(config, store, "a/Page", None, "b/Page")
    assert result.plan.new_path == "b/Page.md"
    # From b/ the bare "Sibling" would now mean b/Sibling: rewritten to stay on a/Sibling.
    # Same file name, so no alias and no title key; only link targets change.
    assert (vault / "b/Page.md").read_text() == "Links [[a/Sibling]] and [s](../a/Sibling.md) and [[a/Sibling]]\n"
    # A bare name that is still unique stays bare; a relative Markdown link stays relative.
    assert (vault / "a/Sibling.md").read_text() == "back [[Page]] [p](../b/Page.md)\n"
    links = resolved_links(vault)
    assert [t for _, t in links["b/Page.md"]] == ["a/Sibling"] * 3
    cs.undo(config, store)
    assert snapshot(vault) == before


def test_rename_refuses_when_other_links_would_change(make_vault, store, tmp_path) -> None:
    vault = make_vault({
        "Alpha.md": "# Alpha\n",
        "Beta.md": "---\ntitle: Gamma\n---\nbody\n",
        "x.md": "[[Gamma]] [[Alpha]]\n",
    })
    config = load_config(vault, tmp_path / "store")
    before = snapshot(vault)
    # A file named Gamma.md would capture [[Gamma]], which means Beta today.
    with pytest.raises(UserError, match=r"refusing: 1 other link would change target: x\.md:1 \[\[Gamma\]\]"):
        rename(config, store, "Alpha", "Gamma")
    assert snapshot(vault) == before


@pytest.mark.parametrize(
    "title,path,error",
    [
        ("", None, UserError), ("bad [[x]]", None, UserError), ("a|b", None, UserError), ("a#b", None, UserError),
        ("ok", "../escape", UnsafePath), ("ok", "/abs/path", UnsafePath), ("ok", "nul\x00x", UnsafePath),
        ("ok", "CON", UnsafePath), ("ok", ".hidden/x", UnsafePath), ("ok", "a/../../x", UnsafePath),
        ("ok", "Other", UserError), ("ok", "sub/we[ird]", UserError), ("Heading", "notes/Old Note", UserError),
    ],
)
def test_hostile_or_bad_names_rejected(env, vault, title, path, error) -> None:
    config, store = env
    (vault / "Other.md").write_text("x\n")
    before = snapshot(vault)
    with pytest.raises(error):
        rename(config, store, "Old Note", title, path)
    assert snapshot(vault) == before


def test_file_name_from_title_is_made_safe(env, vault) -> None:
    config, store = env
    result = rename(config, store, "Old Note", 'Rule: a/b "quoted"?', add_title=True)
    assert result.plan.new_path == "notes/Rule - a - b - quoted.md"
    assert frontmatter_fields((vault / result.plan.new_path).read_text())["title"] == 'Rule: a/b "quoted"?'
    assert '[[Rule - a - b - quoted]]' in (vault / "other/C.md").read_text()


def test_operations_see_agent_changes_first(env, vault) -> None:
    config, store = env
    (vault / "late.md").write_text("written by the agent after the last index: [[Old Note]]\n")
    rename(config, store, "Old Note", "Renamed")
    assert "[[Renamed]]" in (vault / "late.md").read_text()


def test_plan_writes_nothing(env, vault) -> None:
    config, store = env
    before = snapshot(vault)
    plan = plan_rename(config, store, "Old Note", "Planned")
    assert plan.links_rewritten == 13 and snapshot(vault) == before
    assert plan.to_json()["edits"][0]["path"] == "notes/Old Note.md"


# -- property: rename then undo is byte-identical; other links keep targets ----------
NAMES = ["Alpha", "Beta", "Gamma Ray", "delta", "Café"]
FOLDERS = ["", "sub/", "sub/deep/"]


def _link_forms(src_folder: str, folder: str, name: str, title: str | None, alias: str | None) -> list[str]:
    import posixpath

    rel = posixpath.relpath(folder + name, src_folder.rstrip("/") or ".")
    forms = [
        f"[[{name}]]", f"[[{name}|label]]", f"[[{name}#Head]]", f"![[{name}]]", f"[[{folder}{name}]]",
        f"[[{name}.md]]", f"[[{name.lower()}]]", f"[t]({quote(folder + name)}.md)", f"[t](<{folder}{name}.md>)",
        f"[t]({quote(rel)}.md#x)", f"`[[{name}]]`",
    ]
    if title:
        forms.append(f"[[{title}]]")
    if alias:
        forms.append(f"[[{alias}|a]]")
    return forms


@st.composite
def vault_specs(draw):
    slots = draw(st.lists(
        st.tuples(st.sampled_from(FOLDERS), st.sampled_from(NAMES)), min_size=2, max_size=5,
        unique_by=lambda t: (t[0] + t[1]).casefold(),
    ))
    meta = [
        (draw(st.sampled_from([None, "Project X", "Alpha", "The Beta"])), draw(st.sampled_from([None, "AX", "Gamma Ray", "beta"])))
        for _ in slots
    ]
    files: dict[str, bytes] = {}
    for i, (folder, name) in enumerate(slots):
        links = []
        for _ in range(draw(st.integers(0, 6))):
            j = draw(st.integers(0, len(slots)))
            if j == len(slots):
                links.append(draw(st.sampled_from(["[[Nowhere]]", "[[Omega]]", "[x](missing.md)"])))
                continue
            f2, n2 = slots[j]
            links.append(draw(st.sampled_from(_link_forms(folder, f2, n2, *meta[j]))))
        title, alias = meta[i]
        fm = []
        if title:
            fm.append(f"title: {title}")
        if alias:
            fm.append(f"aliases: [{alias}]")
        if links and draw(st.booleans()):
            fm.append(f'related: "{links[0]}"' if "`" not in links[0] and '"' not in links[0] else "related: x")
        head = ("---\n" + "\n".join(fm) + "\n---\n") if fm else ""
        text = head + f"# {name}\n\n" + " and ".join(links) + "\n"
        if draw(st.booleans()):
            text = text.replace("\n", "\r\n")
        data = text.encode("utf-8")
        if draw(st.booleans()):
            data = b"\xef\xbb\xbf" + data
        files[folder + name + ".md"] = data
    k = draw(st.integers(0, len(slots) - 1))
    new_title = draw(st.sampled_from([None, "Omega", "New Thing", "Beta", "gamma ray", "Zeta Café"]))
    new_path = draw(st.sampled_from([None, None, "moved/Omega", "sub/Beta", "Omega", "sub/deep/Zed"]))
    if new_title is None and new_path is None:
        new_title = "Omega"
    return files, slots[k][0] + slots[k][1] + ".md", new_title, new_path


def test_property_rename_then_undo(tmp_path) -> None:
    root = tmp_path / "v"
    root.mkdir()
    config = load_config(root, tmp_path / "store")
    store = Store(config.store)
    outcomes: list[str] = []

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(vault_specs())
    def check(spec) -> None:
        files, victim, new_title, new_path = spec
        shutil.rmtree(root)
        root.mkdir()
        for rel, data in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
        before = snapshot(root)
        links_before = resolved_links(root)
        old_id = page_id(victim)
        try:
            result = rename(config, store, old_id, new_title, new_path)
        except UserError:
            assert snapshot(root) == before  # a refused rename writes nothing
            outcomes.append("refused")
            return
        outcomes.append("renamed")
        new_id = result.plan.new_id
        new_rel = result.plan.new_path
        links_after = resolved_links(root)
        for rel, items in links_before.items():
            rel_after = new_rel if rel == victim else rel
            after = links_after[rel_after]
            assert len(after) == len(items), rel
            for (raw, was), (raw2, now) in zip(items, after):
                if was == old_id:
                    assert now == new_id, (rel, raw, raw2)
                elif was is None:
                    assert now in (None, new_id) or rel == victim, (rel, raw, raw2, now)
                else:
                    assert now == was, (rel, raw, raw2, now)
            if rel != victim:  # only link targets changed in other files
                assert text_outside_links(snapshot(root)[rel_after], rel_after) == text_outside_links(before[rel], rel)
        cs.undo(config, store)
        assert snapshot(root) == before

    try:
        check()
    finally:
        store.close()
    assert outcomes.count("renamed") >= 10, outcomes  # the property was really exercised
