"""The rename's resolvers derived from one built over the vault (and its page
lookup from the same snapshot) answer exactly as resolvers built from
scratch: property test over small vaults with clashing names, case-variant
ids and attachments."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from brainwork.errors import PageNotFound
from brainwork.ops.relink import VaultLinks
from brainwork.store import graph

IDS = ["A", "a", "sub/A", "sub/B", "B", "deep/x/B", "C", "Fig.png", "sub/Fig.png", "fig"]
NAMES = [None, "A", "B", "Omega", "omega", "sub/B", "fig.png", "zed"]
TARGETS = ["A", "a", "B", "b", "sub/A", "sub/b", "x/B", "C", "Omega", "zed", "Fig.png", "fig", "fig.png", "New", "new",
           "sub/New", "../A", "./B", "A.md", "Renamed", ""]


class _FakeStore:
    """What graph.find_page reads, from an index-state dict."""

    def __init__(self, state):
        self.state = state

    def execute(self, query, params=None):
        pages = {i: r for i, r in self.state.items() if r["kind"] == "page"}
        if params:
            return [[params["id"]]] if params["id"] in pages else []
        return [[i, r["title"], r["aliases"]] for i, r in sorted(pages.items())]


@st.composite
def snapshot(draw):
    ids = draw(st.lists(st.sampled_from(IDS), min_size=1, unique=True))
    state = {}
    for i in ids:
        page = not i.endswith(".png")
        state[i] = {
            "path": i + ".md" if page else i, "kind": "page" if page else "attachment",
            "title": draw(st.sampled_from(NAMES)) if page else None,
            "aliases": [a for a in draw(st.lists(st.sampled_from(NAMES), max_size=2)) if a] if page else [],
            "links": "[]", "hash": "", "size": 0, "mtime_ns": 0,
        }
    return state


@settings(max_examples=300, deadline=None)
@given(snapshot(), st.data())
def test_renamed_resolver_equals_rebuilt(state, data) -> None:
    vl = VaultLinks(state)
    pages = vl.page_ids()
    if not pages:
        return
    pid = data.draw(st.sampled_from(pages))
    new_id = data.draw(st.sampled_from([pid, "New", "sub/New", "Renamed", "deep/Renamed"]))
    if any(p.casefold() == new_id.casefold() and p != pid for p in state):
        return  # refused by plan_rename
    names = [n for n in data.draw(st.lists(st.sampled_from(NAMES + ["Renamed"]), max_size=3))]
    before = vl.resolver()
    derived = vl.renamed(before, pid, new_id, names)
    rebuilt = vl.resolver(rename={pid: new_id}, names={new_id: names})
    for target in TARGETS:
        for source in (None, "sub/Q", "deep/x/Q", "Q"):
            assert derived.resolve(target, source) == rebuilt.resolve(target, source), (target, source)
    # the resolver it was derived from is left as it was
    again = vl.resolver()
    for target in TARGETS:
        assert before.resolve(target) == again.resolve(target)


@settings(max_examples=300, deadline=None)
@given(snapshot(), st.sampled_from(TARGETS))
def test_find_page_from_snapshot_equals_store_lookup(state, name) -> None:
    store = _FakeStore(state)
    vl = VaultLinks(state)
    try:
        want = graph.find_page(store, name)
    except PageNotFound:
        want = PageNotFound
    try:
        got = vl.find_page(store, vl.resolver(), name)
    except PageNotFound:
        got = PageNotFound
    assert got == want
