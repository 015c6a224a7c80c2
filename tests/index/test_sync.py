"""Vault -> store sync on the real Kùzu store (docs/architecture.md, "Sync")."""

from __future__ import annotations

import json
import os
import unicodedata
from pathlib import Path

import pytest

from brainwork.config import load_config
from brainwork.index.rows import page_row
from brainwork.index.sync import sync
from brainwork.store import Store, graph
from brainwork.vault.parse import parse_text

BASE = {
    "tasks/renew-cert.md": (
        "---\ntitle: Renew the certificate\ntype: task\noutcome: success\n"
        'used: "[[certbot]]"\ncited: ["[[runbook]]"]\n---\n'
        "# Renew\nSee [[Home]] and [[Missing page]] and ![[shot.png]].\n"
    ),
    "tools/certbot.md": "---\ntype: tool\nname: certbot\n---\n# certbot\n",
    "sources/runbook.md": "---\ntype: source\n---\n# Runbook\n[[renew-cert#Renew|back]]\n",
    "corrections/c1.md": (
        '---\ntype: correction\ncorrects: "[[renew-cert]]"\nstatus: open\n---\n'
        "Use the staging endpoint first. [[#Self]] [[c1]]\n"
    ),
    "Home.md": "# Home\n[[renew-cert]] [text](tools/certbot.md)\n",
    "img/shot.png": b"\x89PNG\r\n\x1a\n",
}


def bump(path: Path, text: str | bytes | None = None) -> None:
    """Rewrite (or touch) a file and make sure its mtime changes."""
    if text is not None:
        path.write_bytes(text.encode() if isinstance(text, str) else text)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


@pytest.fixture
def vault(make_vault):
    return make_vault(BASE)


@pytest.fixture
def cfg(vault, tmp_path):
    return load_config(vault, tmp_path / "st")


@pytest.fixture
def st(cfg):
    s = Store(cfg.store)
    yield s
    s.close()


def edges_of(store, table):
    return store.rows(
        f"MATCH (a:Page)-[r:{table}]->(b) RETURN a.id AS a, b.id AS b, r.file AS file, r.line AS line, "
        "r.place AS place ORDER BY a.id, b.id, r.line"
    )


def test_first_sync(cfg, st):
    rep = sync(cfg, st)
    assert rep.wrote and rep.pages == 5 and rep.attachments == 1
    assert sorted(rep.added) == sorted(["tasks/renew-cert", "tools/certbot", "sources/runbook", "corrections/c1", "Home", "img/shot.png"])
    assert rep.edges == {"used": 1, "cited": 1, "produced": 0, "corrected_by": 1, "promoted_to": 0, "supersedes": 0, "related": 5}
    assert rep.dead_links == 1 and rep.parse_errors == []
    # inverse key: corrects on the correction gives task -corrected_by-> correction
    assert edges_of(st, "CORRECTED_BY") == [
        {"a": "tasks/renew-cert", "b": "corrections/c1", "file": "corrections/c1", "line": 3, "place": "frontmatter"}
    ]
    assert edges_of(st, "USED") == [
        {"a": "tasks/renew-cert", "b": "tools/certbot", "file": "tasks/renew-cert", "line": 5, "place": "frontmatter"}
    ]
    dead = st.rows("MATCH (a:Page)-[r:RELATED]->(m:Missing) RETURN a.id AS a, m.id AS m, r.line AS line, r.target AS target")
    assert dead == [{"a": "tasks/renew-cert", "m": "missing page", "line": 9, "target": "Missing page"}]
    embed = st.rows("MATCH (a:Page)-[r:RELATED]->(b:Page {kind: 'attachment'}) RETURN a.id AS a, b.id AS b, r.embed AS e")
    assert embed == [{"a": "tasks/renew-cert", "b": "img/shot.png", "e": True}]
    c = graph.counts(st)
    assert c.pages == 5 and c.attachments == 1 and c.dead_links == 1
    assert c.edges == rep.edges
    assert c.types == {"task": 1, "tool": 1, "source": 1, "correction": 1, "": 1}
    page = graph.get_page(st, "tasks/renew-cert")
    assert page.title == "Renew the certificate" and page.type == "task"
    assert page.fields["outcome"] == "success" and page.body_line == 8


def _store_files(folder: Path) -> dict:
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()}


def test_second_run_writes_nothing(cfg, st):
    sync(cfg, st)
    before = graph.counts(st)
    files = _store_files(cfg.store)
    rep = sync(cfg, st)
    assert not rep.wrote
    assert _store_files(cfg.store) == files  # not a byte: no WAL, same database file
    assert rep.added == rep.changed == rep.removed == [] and rep.moved == []
    assert rep.edges == before.edges and rep.dead_links == before.dead_links
    assert graph.counts(st) == before


def test_touched_but_identical_file_only_updates_mtime(cfg, st, vault):
    sync(cfg, st)
    bump(vault / "Home.md")
    rep = sync(cfg, st)
    assert rep.wrote and rep.changed == [] and rep.added == []
    assert sync(cfg, st).wrote is False  # the new mtime was stored


def test_changed_file_is_the_only_one_reparsed(cfg, st, vault):
    sync(cfg, st)
    bump(vault / "tools/certbot.md", "---\ntype: tool\nname: certbot\n---\n# certbot v2\n[[runbook]]\n")
    rep = sync(cfg, st)
    assert rep.changed == ["tools/certbot"] and rep.added == [] and rep.removed == []
    assert graph.get_page(st, "tools/certbot").title == "certbot v2"
    assert rep.edges["related"] == 6
    assert not sync(cfg, st).wrote


def test_deleted_file_is_removed_with_its_edges(cfg, st, vault):
    sync(cfg, st)
    (vault / "corrections/c1.md").unlink()
    rep = sync(cfg, st)
    assert rep.removed == ["corrections/c1"]
    assert graph.get_page(st, "corrections/c1") is None
    assert rep.edges["corrected_by"] == 0 and edges_of(st, "CORRECTED_BY") == []


def test_moved_file_is_recognised(cfg, st, vault):
    sync(cfg, st)
    (vault / "archive").mkdir()
    os.replace(vault / "tools/certbot.md", vault / "archive/certbot.md")
    rep = sync(cfg, st)
    assert rep.moved == [("tools/certbot", "archive/certbot")]
    assert rep.removed == ["tools/certbot"] and rep.added == ["archive/certbot"]
    # [[certbot]] now resolves to the new path
    assert edges_of(st, "USED")[0]["b"] == "archive/certbot"
    # the Markdown link [text](tools/certbot.md) is now dead
    assert rep.dead_links == 2


def test_adding_a_page_revives_a_dead_link(cfg, st, vault):
    sync(cfg, st)
    (vault / "Missing page.md").write_text("# Now here\n")
    rep = sync(cfg, st)
    assert rep.added == ["Missing page"] and rep.dead_links == 0
    assert st.scalar("MATCH (m:Missing) RETURN count(m)") == 0
    assert graph.page_edges(st, "Missing page").in_[0].other == "tasks/renew-cert"
    # and deleting it kills the link again
    (vault / "Missing page.md").unlink()
    assert sync(cfg, st).dead_links == 1


def test_changed_aliases_re_resolve_other_pages(cfg, st, vault):
    (vault / "Home.md").write_text("# Home\n[[Cert tool]]\n")
    rep = sync(cfg, st)
    assert rep.dead_links == 2
    bump(vault / "tools/certbot.md", "---\ntype: tool\naliases: [Cert tool]\n---\n# certbot\n")
    rep = sync(cfg, st)
    assert rep.changed == ["tools/certbot"] and rep.dead_links == 1


def test_ambiguous_links_are_counted_and_flagged(make_vault, tmp_path):
    v = make_vault({"a/Dup.md": "x", "b/Dup.md": "y", "Home.md": "[[Dup]] [[a/Dup]]"})
    cfg = load_config(v, tmp_path / "amb")
    with Store(cfg.store) as s:
        rep = sync(cfg, s)
        assert rep.ambiguous_links == 1
        rows = s.rows("MATCH (h:Page {id: 'Home'})-[r:RELATED]->(b:Page) RETURN b.id AS b, r.ambiguous AS amb ORDER BY r.target")
        # "Dup" fits a/Dup and b/Dup: the first by path, flagged; "a/Dup" is exact
        assert rows == [{"b": "a/Dup", "amb": True}, {"b": "a/Dup", "amb": False}]


def test_bad_files_are_parse_errors_and_the_rest_indexes(make_vault, tmp_path):
    v = make_vault(
        {
            "good.md": "# Good\n[[latin]] [[bin]] [[big]] [[yaml]]\n",
            "latin.md": "# caf\xe9\n".encode("latin-1"),
            "bin.md": b"\x00\x01\x02",
            "big.md": b"# big\n" + b"x" * 5000,
            "yaml.md": "---\ntitle: ok\ntags: [a\n---\n",
            "brainwork.toml": "[thresholds]\nmax_file_bytes = 4096\n",
        }
    )
    cfg = load_config(v, tmp_path / "bad")
    with Store(cfg.store) as s:
        rep = sync(cfg, s)
        assert rep.pages == 5 and rep.dead_links == 0 and rep.edges["related"] == 4
        errs = {(e.path, e.line) for e in rep.parse_errors}
        assert errs == {("latin.md", 1), ("bin.md", 1), ("big.md", 1), ("yaml.md", 3)}
        assert graph.get_page(s, "big").title == "big"
        assert not sync(cfg, s).wrote  # errors are not rewritten on every run
        # fixing a file clears its error
        bump(v / "yaml.md", "---\ntitle: ok\ntags: [a]\n---\n")
        rep = sync(cfg, s)
        assert {e.path for e in rep.parse_errors} == {"latin.md", "bin.md", "big.md"}
        (v / "bin.md").unlink()
        rep = sync(cfg, s)
        assert {e.path for e in rep.parse_errors} == {"latin.md", "big.md"}


def test_names_equal_after_nfc_are_reported_once(make_vault, tmp_path):
    nfc = unicodedata.normalize("NFC", "café.md")
    nfd = unicodedata.normalize("NFD", "café.md")
    v = make_vault({nfc: "one", nfd: "two"})
    if len(os.listdir(v)) != 2:
        pytest.skip("file system normalises names")
    cfg = load_config(v, tmp_path / "nfc")
    with Store(cfg.store) as s:
        rep = sync(cfg, s)
        # The second file is skipped: one page, as the store (and stats) count it.
        assert rep.pages == 1 and len(rep.parse_errors) == 1
        assert rep.pages == graph.counts(s).pages
        assert "same page id" in rep.parse_errors[0].message and rep.parse_errors[0].line == 1
        for _ in range(2):
            rep = sync(cfg, s)
            assert not rep.wrote and len(rep.parse_errors) == 1


def test_full_reindex_of_an_existing_store(cfg, st):
    first = sync(cfg, st)
    rep = sync(cfg, st, force=True)
    # Every file re-read and rewritten, none of them different from the store.
    assert rep.wrote and rep.added == [] and rep.changed == [] and len(rep.reread) == 6
    assert rep.edges == first.edges and rep.dead_links == first.dead_links


def test_hidden_folders_store_and_ignored_folders_are_skipped(make_vault, tmp_path):
    v = make_vault(
        {
            "a.md": "[[b]]",
            ".obsidian/x.md": "[[a]]",
            ".trash/b.md": "gone",
            "templates/t.md": "[[a]]",
            "brainwork.toml": '[ignore]\nfolders = ["templates"]\n',
        }
    )
    cfg = load_config(v)  # store inside the vault: .brainwork/
    with Store(cfg.store) as s:
        rep = sync(cfg, s)
        assert rep.pages == 1 and rep.attachments == 0  # brainwork.toml is configuration, not content
        assert rep.dead_links == 1
        assert (v / ".brainwork").is_dir()
        assert not sync(cfg, s).wrote


def test_symlinks_are_not_followed(make_vault, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# secret\n")
    v = make_vault({"a.md": "[[secret]]"})
    os.symlink(outside / "secret.md", v / "secret.md")
    os.symlink(outside, v / "linked")
    cfg = load_config(v, tmp_path / "sym")
    with Store(cfg.store) as s:
        rep = sync(cfg, s)
        assert rep.pages == 1 and rep.dead_links == 1


# -- the store is never half-written -------------------------------------------
def test_failed_apply_leaves_the_old_state(cfg, st, vault):
    sync(cfg, st)
    before = graph.counts(st)
    old_home = graph.get_page(st, "Home")
    row = page_row(parse_text("Home.md", b"# New home\n"))
    with pytest.raises(RuntimeError):
        # delete Home, insert it twice: the COPY fails on the duplicate key
        # after the delete and the edge wipe have run
        graph.apply_sync(
            st,
            delete_ids=["Home"],
            pages=[row, row],
            touched=[],
            edges={t: [] for t in ("USED", "CITED", "PRODUCED", "CORRECTED_BY", "PROMOTED_TO", "SUPERSEDES", "RELATED")},
            missing=[],
            clear_error_paths=[],
            errors=[{"path": "x.md", "line": 1, "message": "m"}],
        )
    assert graph.counts(st) == before
    assert graph.get_page(st, "Home") == old_home
    # and the store still works afterwards
    bump(vault / "Home.md", "# Home again\n")
    assert sync(cfg, st).changed == ["Home"]


def test_failed_edge_copy_rolls_back_pages_too(cfg, st, vault):
    sync(cfg, st)
    before = graph.counts(st)
    bad_edge = {
        "from": "Home", "to": "no-such-page", "file": "Home", "line": 1, "place": "body", "target": "x",
        "label": None, "heading": None, "embed": False, "ambiguous": False, "dead": False,
    }
    new = page_row(parse_text("New.md", b"# New\n"))
    with pytest.raises(RuntimeError):
        graph.apply_sync(
            st, delete_ids=[], pages=[new], touched=[], edges={"RELATED": [bad_edge]}, missing=[],
            clear_error_paths=[], errors=[],
        )
    assert graph.get_page(st, "New") is None
    assert graph.counts(st) == before


def test_store_survives_reopen(cfg):
    with Store(cfg.store) as s:
        first = sync(cfg, s)
    with Store(cfg.store) as s:
        rep = sync(cfg, s)
        assert not rep.wrote and rep.edges == first.edges


def test_progress_callback(cfg, st):
    calls = []
    sync(cfg, st, progress=lambda d, t, phase: calls.append((d, t, phase)))
    phases = [c[2] for c in calls]
    assert phases[0] == "scanning" and "writing" in phases
    assert all(t == 6 for _, t, _ in calls)


def test_links_json_round_trip_keeps_resolution(cfg, st, vault):
    """Unchanged pages are re-resolved from the links stored in the Page row."""
    sync(cfg, st)
    stored = json.loads(st.scalar("MATCH (b:PageBody {id: 'tasks/renew-cert'}) RETURN b.links"))
    assert len(stored) == 5
    (vault / "unrelated.md").write_text("x")
    rep = sync(cfg, st)
    assert rep.added == ["unrelated"] and rep.edges["used"] == 1 and rep.edges["cited"] == 1


def test_sync_of_a_slow_mtime_file_system_notices_same_size_edits(cfg, st, vault):
    """Same size, same mtime (coarse clocks) cannot be seen; same size and a
    new mtime is re-hashed and re-parsed."""
    sync(cfg, st)
    path = vault / "tools/certbot.md"
    text = path.read_text()
    bump(path, text.replace("certbot\n---", "certbox\n---"))
    rep = sync(cfg, st)
    assert rep.changed == ["tools/certbot"]


def test_sample_vault_indexes_cleanly(sample_vault_copy, tmp_path):
    cfg = load_config(sample_vault_copy, tmp_path / "sample-store")
    with Store(cfg.store) as s:
        rep = sync(cfg, s)
        assert rep.pages > 0 and rep.parse_errors == []
        assert sum(rep.edges.values()) > rep.pages  # a linked graph, not a pile of files
        assert not sync(cfg, s).wrote


def test_a_file_name_that_is_not_utf8_is_a_parse_error_and_the_rest_indexes(cfg, st, vault):
    """A Latin-1 tool wrote ``café.md`` as the bytes ``caf\\xe9.md``: Python
    hands the name over with a lone surrogate, which Kùzu cannot store. The
    file is skipped and named (its bytes escaped); every other page indexes,
    and renaming the file fixes it."""
    os.makedirs(vault / "topics", exist_ok=True)
    bad = os.path.join(os.fsencode(vault), b"topics", b"caf\xe9.md")
    with open(bad, "wb") as fh:
        fh.write(b"---\ntitle: x\n---\n[[Home]]\n")
    report = sync(cfg, st)
    assert [(e.path, e.line) for e in report.parse_errors] == [("topics/caf\\xe9.md", 1)]
    assert "not UTF-8" in report.parse_errors[0].message
    assert graph.get_page(st, "Home") is not None
    assert graph.get_page(st, "tasks/renew-cert") is not None
    assert not sync(cfg, st).wrote  # the same error is not rewritten
    os.rename(bad, os.path.join(os.fsencode(vault), b"topics", "café.md".encode()))
    report = sync(cfg, st)
    assert report.parse_errors == [] and graph.get_page(st, "topics/café") is not None
