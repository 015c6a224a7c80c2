"""Split and the quick fixes (set type, retarget, unlink, create page,
dismiss): each is one undo step that restores every byte."""

from __future__ import annotations

import pytest

from brainwork.errors import UnsafePath, UserError
from brainwork.ops import changeset as cs
from brainwork.ops import fixes
from brainwork.ops.split import plan_split, split_page
from brainwork.store import graph
from brainwork.vault.edit import frontmatter_fields

from ops_helpers import resolved_links, snapshot

BIG = """---
type: topic
---
Intro text [[Other]].

## Setup: steps

Do this [[Other#x]].

```
## not a heading
```

## Usage
Use it.
### Sub
more
"""


@pytest.fixture
def vault(make_vault):
    return make_vault({
        "topics/Big.md": BIG,
        "topics/Other.md": "# Other\n[[Big#Usage]] and [[Nowhere|a missing page]] and [[Nowhere]].\n",
        "notes/Untyped.md": "---\ntitle: Untyped\n---\nbody [[Other]]\n",
        "notes/fm.md": '---\nrelated:\n  - "[[Nowhere]]"\n  - "[[Other]]"\nused: "[[Ghost]]"\n---\ntext\n',
    })


def test_split_at_level_two_headings_and_undo(env, vault) -> None:
    config, store = env
    before = snapshot(vault)
    result = split_page(config, store, "Big")
    paths = [s.path for s in result.plan.sections]
    assert paths == ["topics/Big - Setup - steps.md", "topics/Big - Usage.md"]
    assert (vault / "topics/Big.md").read_text() == (
        "---\ntype: topic\n---\nIntro text [[Other]].\n\n"
        "## Setup: steps\n\nMoved to [[Big - Setup - steps]].\n\n"
        "## Usage\n\nMoved to [[Big - Usage]].\n"
    )
    usage = (vault / "topics/Big - Usage.md").read_text()
    assert usage == '---\ntype: topic\nrelated: "[[Big]]"\n---\n# Usage\n\nUse it.\n### Sub\nmore\n'
    setup = (vault / "topics/Big - Setup - steps.md").read_text()
    assert frontmatter_fields(setup)["title"] == "Big - Setup: steps"
    assert "## not a heading" in setup  # the fenced line went with its section, unsplit
    links = resolved_links(vault)
    assert [t for _, t in links["topics/Big.md"]] == ["topics/Other", "topics/Big - Setup - steps", "topics/Big - Usage"]
    assert links["topics/Other.md"][0] == ("[[Big#Usage]]", "topics/Big")  # still lands on the kept heading
    assert graph.get_page(store, "topics/Big - Usage") is not None
    cs.undo(config, store)
    assert snapshot(vault) == before


def test_split_needs_headings(env) -> None:
    config, store = env
    with pytest.raises(UserError, match="no '## ' headings"):
        plan_split(config, store, "Other")


def test_set_type(env, vault) -> None:
    config, store = env
    before = snapshot(vault)
    op = fixes.set_type(config, store, "Untyped", "topic")
    assert (vault / "notes/Untyped.md").read_text() == "---\ntitle: Untyped\ntype: topic\n---\nbody [[Other]]\n"
    assert op.details == {"page": "notes/Untyped", "old": None, "new": "topic"}
    assert graph.get_page(store, "notes/Untyped").type == "topic"
    with pytest.raises(UserError, match="unknown type 'meeting'"):
        fixes.set_type(config, store, "Untyped", "meeting")
    cs.undo(config, store)
    assert snapshot(vault) == before


def test_retarget_dead_link_keeps_label(env, vault) -> None:
    config, store = env
    before = snapshot(vault)
    fixes.retarget_link(config, store, "topics/Other", "Nowhere", "Untyped", line=2)
    assert (vault / "topics/Other.md").read_text() == "# Other\n[[Big#Usage]] and [[Untyped|a missing page]] and [[Untyped]].\n"
    cs.undo(config, store)
    assert snapshot(vault) == before
    with pytest.raises(UserError, match="no link to 'Elsewhere'"):
        fixes.retarget_link(config, store, "topics/Other", "Elsewhere", "Untyped")


def test_unlink_body_and_frontmatter(env, vault) -> None:
    config, store = env
    before = snapshot(vault)
    fixes.remove_link(config, store, "topics/Other", "Nowhere")
    assert (vault / "topics/Other.md").read_text() == "# Other\n[[Big#Usage]] and a missing page and Nowhere.\n"
    fixes.remove_link(config, store, "notes/fm", "Nowhere")
    fixes.remove_link(config, store, "notes/fm", "Ghost")
    assert (vault / "notes/fm.md").read_text() == '---\nrelated:\n  - "[[Other]]"\n---\ntext\n'
    assert graph.counts(store).dead_links == 0
    for _ in range(3):
        cs.undo(config, store)
    assert snapshot(vault) == before


def test_create_page_for_dead_link(env, vault) -> None:
    config, store = env
    before = snapshot(vault)
    op = fixes.create_page(config, store, "Nowhere", type_="topic", from_page="topics/Other")
    assert op.details == {"path": "topics/Nowhere.md", "page": "topics/Nowhere", "revived": 3}
    assert (vault / "topics/Nowhere.md").read_text() == "---\ntype: topic\n---\n# Nowhere\n"
    assert all(t == "topics/Nowhere" for raw, t in resolved_links(vault)["topics/Other.md"] if "Nowhere" in raw)
    with pytest.raises(UserError, match="already exists"):
        fixes.create_page(config, store, "Nowhere", from_page="topics/Other")
    cs.undo(config, store)
    assert snapshot(vault) == before


@pytest.mark.parametrize("target", ["../../etc/evil", "/../etc/passwd", "a/../../x", "CON/x", "nul\x00", ".hidden/x", "we[ird]"])
def test_create_page_rejects_hostile_targets(env, vault, target) -> None:
    config, store = env
    before = snapshot(vault)
    with pytest.raises((UnsafePath, UserError)):
        fixes.create_page(config, store, target)
    assert snapshot(vault) == before


def test_dismiss_is_undoable(env) -> None:
    from brainwork.store import dismissals

    config, store = env
    fixes.dismiss(config, store, "stub:notes/Untyped", "not the same thing")
    assert "stub:notes/Untyped" in dismissals.dismissed_keys(store)
    op = cs.undo(config, store)
    assert op.kind == "dismiss" and "stub:notes/Untyped" not in dismissals.dismissed_keys(store)
    cs.redo(config, store)
    assert "stub:notes/Untyped" in dismissals.dismissed_keys(store)
    fixes.undismiss(config, store, "stub:notes/Untyped")
    assert "stub:notes/Untyped" not in dismissals.dismissed_keys(store)
    cs.undo(config, store)
    assert {d.key: d.reason for d in dismissals.dismissals(store)} == {"stub:notes/Untyped": "not the same thing"}
    with pytest.raises(UserError):
        fixes.dismiss(config, store, "")
