"""Planning a split builds the resolver over all pages once (and once more
for the vault with the new pages), however many links the page holds:
building one reads every page's names, so once per link made a dry run of
a big hub page take half a minute on a 6,500-note vault."""

from __future__ import annotations

import pytest

from brainwork.ops.split import plan_split
from brainwork.vault import resolve

LINKS = 60


@pytest.fixture
def vault(make_vault):
    hub = "# Hub\n\n## Plugins\n\n" + "\n".join(f"- [[P{i}]]" for i in range(LINKS // 2))
    hub += "\n\n## Themes\n\n" + "\n".join(f"- [[P{i}|theme {i}]]" for i in range(LINKS // 2, LINKS)) + "\n"
    files = {"Hub.md": hub}
    files.update({f"p/P{i}.md": f"# P{i}\n[[Hub]]\n" for i in range(LINKS)})
    return make_vault(files)


def test_plan_split_builds_two_resolvers_whatever_the_link_count(env, monkeypatch) -> None:
    config, store = env
    built = []
    real_init = resolve.Resolver.__init__

    def counting_init(self, *args, **kwargs):
        built.append(1)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(resolve.Resolver, "__init__", counting_init)
    plan = plan_split(config, store, "Hub", refresh=False)
    assert [s.path for s in plan.sections] == ["Hub - Plugins.md", "Hub - Themes.md"]
    # Before and after the split; the page's 60 links add none.
    assert len(built) == 2
    # The links still go where they went: every section keeps its targets.
    assert all(f"[[P{i}" in "".join(s.text for s in plan.sections) for i in range(LINKS))
