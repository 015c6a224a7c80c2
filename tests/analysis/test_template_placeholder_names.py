"""Pages made from one template: a first heading or an alias that is a
template placeholder (``# {{title}}``, ``<% tp.file.title %>``) is not a
name, so such pages are neither titled by it nor same-named through it."""

from __future__ import annotations

import pytest

from brainwork.analysis.duplicates import comparable_names
from brainwork.analysis.findings import check
from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.store import graph

#: A filled-in template body: what two pages made from it share.
BODY = ("Category: {{category}}\n\nPlugins and tools that belong here, one per line, each with a short "
        "description of what it does and a link to its repository.\n\n- first entry\n- second entry\n")


@pytest.mark.parametrize("heading", ["{{title}}", "<% tp.file.title %>", "Meeting {{date:YYYY-MM-DD}}",
                                     "<%* tR += tp.file.title %>"])
def test_a_placeholder_heading_leaves_the_file_name_as_title(make_vault, store, tmp_path, heading) -> None:
    vault = make_vault({"templates/Plugin Category.md": f"# {heading}\n\n{BODY}",
                        "Braces {in} title.md": "# Sets {a, b} and 5 <% 3\n\ntext\n"})
    config = load_config(vault, tmp_path / "store")
    sync(config, store)
    titles = {p.id: p.title for p in graph.list_pages(store)}
    assert titles["templates/Plugin Category"] == "Plugin Category"
    assert titles["Braces {in} title"] == "Sets {a, b} and 5 <% 3"  # braces and a lone '<%' are text


def test_template_pages_are_not_same_named_through_a_placeholder(make_vault, store, tmp_path) -> None:
    vault = make_vault({
        "templates/T - Plugin Category.md": f"# {{{{title}}}}\n\n{BODY}",
        "templates/T - Theme Category.md": f"# {{{{title}}}}\n\n{BODY.replace('tools', 'themes')}",
        # placeholders in frontmatter too: a title and an alias
        "templates/T - Website.md": f"---\ntitle: '<% tp.file.title %>'\naliases: ['{{{{title}}}}']\n---\n{BODY}",
    })
    config = load_config(vault, tmp_path / "store")
    sync(config, store)
    found = check(config, store, ["duplicate"])
    # The bodies are alike (one template), the names are not: no pair scores
    # names 1.00 through "{{title}}".
    assert all(f.evidence["names"] < 1.0 for f in found), [f.to_text() for f in found]
    assert not any(f.message.startswith("merge candidate") for f in found), [f.to_text() for f in found]


def test_comparable_names_drop_placeholders_only() -> None:
    assert comparable_names(["{{title}}", "<% tp.file.title %>", "", "Plugin Category", "a {b} c"]) == [
        "plugin category", "a  b  c"]
