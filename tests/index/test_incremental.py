"""sync_paths (the partial sync after an operation) leaves the store exactly as
a full re-index would: property test over random vaults and random changes."""

from __future__ import annotations

import shutil

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brainwork.config import load_config
from brainwork.index.incremental import sync_paths
from brainwork.index.sync import sync
from brainwork.store import Store

NAMES = ["Alpha", "Beta", "Gamma", "sub/Alpha", "sub/Delta", "deep/x/Beta"]
TITLES = [None, "Alpha", "Omega", "The Beta"]
ALIASES = [None, "AX", "Gamma", "zed"]
TARGETS = ["Alpha", "Beta", "Gamma", "Delta", "sub/Alpha", "Omega", "AX", "zed", "The Beta", "Nowhere", "beta.md", "../Gamma"]


def dump(store: Store) -> dict:
    pages = {
        r["id"]: r for r in store.rows(
            "MATCH (p:Page) OPTIONAL MATCH (b:PageBody {id: p.id}) "
            "RETURN p.id AS id, p.path AS path, p.kind AS kind, p.title AS title, p.type AS type, "
            "p.aliases AS aliases, p.tags AS tags, p.hash AS hash, p.size AS size, b.links AS links, b.body AS body, "
            "p.fields AS fields, p.body_line AS body_line"
        )
    }
    edges = sorted(
        tuple(r) for r in store.execute(
            "MATCH (a:Page)-[r]->(b) RETURN label(r), a.id, b.id, label(b), r.file, r.line, r.place, r.target, "
            "r.label, r.heading, r.embed, r.ambiguous"
        )
    )
    missing = sorted(r[0] for r in store.execute("MATCH (m:Missing) RETURN m.id"))
    errors = sorted(tuple(r) for r in store.execute("MATCH (e:ParseError) RETURN e.path, e.line, e.message"))
    return {"pages": pages, "edges": edges, "missing": missing, "errors": errors}


@st.composite
def page_text(draw) -> str:
    title, alias = draw(st.sampled_from(TITLES)), draw(st.sampled_from(ALIASES))
    links = draw(st.lists(st.sampled_from(TARGETS), max_size=4))
    fm = []
    if title:
        fm.append(f"title: {title}")
    if alias:
        fm.append(f"aliases: [{alias}]")
    if links and draw(st.booleans()):
        fm.append(f'corrects: "[[{links[0]}]]"')
    if draw(st.integers(0, 9)) == 0:
        fm.append("tags: [unclosed")
    head = "---\n" + "\n".join(fm) + "\n---\n" if fm else ""
    return head + "text " + " ".join(f"[[{t}]]" for t in links) + "\n"


@st.composite
def scenario(draw):
    initial = {n + ".md": draw(page_text()) for n in draw(st.sets(st.sampled_from(NAMES), min_size=1))}
    changes: dict[str, str | None] = {}
    for n in draw(st.sets(st.sampled_from(NAMES), min_size=1, max_size=4)):
        rel = n + ".md"
        kind = draw(st.sampled_from(("remove", "rewrite", "append", "insert"))) if rel in initial else "rewrite"
        if kind == "remove":
            changes[rel] = None
        elif kind == "append":  # words only: links and names as they were
            changes[rel] = initial[rel] + "more words\n"
        elif kind == "insert":  # words before the links: their offsets move, their lines do not
            changes[rel] = initial[rel].replace("text ", "text and more ", 1)
        else:
            changes[rel] = draw(page_text())
    return initial, changes


def test_partial_sync_equals_full_reindex(tmp_path) -> None:
    root = tmp_path / "v"
    root.mkdir()
    config = load_config(root, tmp_path / "inc")
    full_config = load_config(root, tmp_path / "full")
    inc, full = Store(config.store), Store(full_config.store)

    @settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(scenario())
    def check(sc) -> None:
        initial, changes = sc
        shutil.rmtree(root)
        root.mkdir()
        for rel, text in initial.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        sync(config, inc)
        for rel, text in changes.items():
            if text is None:
                (root / rel).unlink()
            else:
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(text)
        sync_paths(config, inc, list(changes))
        sync(full_config, full, force=True)
        got, want = dump(inc), dump(full)
        assert got["pages"] == want["pages"]
        assert got["edges"] == want["edges"]
        assert got["missing"] == want["missing"]
        assert got["errors"] == want["errors"]

    try:
        check()
    finally:
        inc.close()
        full.close()


def test_sync_after_edits_equals_full_reindex(tmp_path) -> None:
    """``sync`` (scan + change detection) writes a few changed files as a
    partial sync; after each of two rounds of random edits, removals and
    additions the store equals a forced full re-index of the same vault."""
    root = tmp_path / "v"
    root.mkdir()
    config = load_config(root, tmp_path / "inc")
    full_config = load_config(root, tmp_path / "full")
    inc, full = Store(config.store), Store(full_config.store)

    def write(files: dict[str, str | None]) -> None:
        for rel, text in files.items():
            if text is None:
                (root / rel).unlink(missing_ok=True)
            else:
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(text)

    # derandomize: the same 20 scenarios on every run. One run in three full suites
    # crashed inside Kùzu (SIGSEGV in a keyed edge read after many in-place
    # updates on one store, docs/architecture.md "Kùzu 0.11.3 behaviour");
    # 25 seeds tried by hand did not reproduce it.
    @settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(scenario(), scenario())
    def check(first, second) -> None:
        initial, changes = first
        shutil.rmtree(root)
        root.mkdir()
        write(initial)
        sync(config, inc)  # itself partial from the second example on
        for round_ in (changes, second[1]):
            write(round_)
            sync(config, inc)
            sync(full_config, full, force=True)
            got, want = dump(inc), dump(full)
            assert got["pages"] == want["pages"]
            assert got["edges"] == want["edges"]
            assert got["missing"] == want["missing"]
            assert got["errors"] == want["errors"]

    try:
        check()
    finally:
        inc.close()
        full.close()
