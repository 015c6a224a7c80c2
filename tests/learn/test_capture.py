"""Capture: one new page per record, typed edges, safe names, clear errors."""

from __future__ import annotations

import json
from datetime import date

import pytest
from click.testing import CliRunner

from brainwork.cli import cli
from brainwork.errors import PageNotFound, UserError
from brainwork.learn.capture import CAPTURE_TYPES, FOLDERS, capture
from brainwork.ops import changeset
from brainwork.store import graph
from brainwork.vault.parse import parse_file

DAY = date(2026, 11, 2)
TASK = "tasks/2026-09-02-renew-cert-billing-api"

RECORDS = {
    "task": ({"request": "Renew the payments cert", "summary": "Renewed it", "outcome": "success",
              "used": ["certbot", "tools/openssl"], "cited": "sources/letsencrypt-chain-of-trust"},
             {"used": ["tools/certbot", "tools/openssl"], "cited": ["sources/letsencrypt-chain-of-trust"]}),
    "correction": ({"task": TASK, "wrong": "Served cert.pem", "correct": "Serve fullchain.pem", "why": "Java clients fail"},
                   {"corrects": [TASK]}),
    "source": ({"ref": "https://example.org/tls", "reliability": "held-up", "cited_by": TASK}, {"cited_by": [TASK]}),
    "tool": ({"name": "step-cli", "right_choice": "yes", "used_by": [TASK]}, {"used_by": [TASK]}),
    "decision": ({"choice": "Use DNS-01 everywhere", "reasoning": "wildcards", "produced_by": TASK}, {"produced_by": [TASK]}),
    "artifact": ({"location": "s3://runbooks/cert.md", "kind": "runbook", "title": "Cert runbook v2", "produced_by": TASK},
                 {"produced_by": [TASK]}),
}


@pytest.mark.parametrize("type_", CAPTURE_TYPES)
def test_capture_every_type(sample_config, sample_store, type_):
    data, links = RECORDS[type_]
    res = capture(sample_config, sample_store, type_, data, today=DAY)
    assert res.path.startswith(FOLDERS[type_] + "/") and res.path == res.id + ".md"
    assert res.links == links and res.operation > 0
    page = parse_file(sample_config.vault, res.path)
    assert not page.errors and page.type == type_
    f = page.fields
    assert f["created"] == "2026-11-02" and f["source"] == "agent"
    for key, value in data.items():
        if key in ("task", "used", "cited", "cited_by", "used_by", "produced_by", "title"):
            continue
        assert f[key] == ("true" if value == "yes" else value)
    if type_ in ("task", "correction"):
        assert res.id.split("/", 1)[1].startswith("2026-11-02-")
    if type_ == "correction":
        assert f["status"] == "open" and f["corrects"] == f"[[{TASK}]]"
    # indexed, with typed edges in the store
    assert graph.get_page(sample_store, res.id).type == type_
    edges = graph.page_edges(sample_store, res.id)
    got = {(e.edge, e.other) for e in edges.out + edges.in_}
    expected_edge = {"corrects": "corrected_by", "cited_by": "cited", "used_by": "used", "produced_by": "produced"}
    for key, ids in links.items():
        for pid in ids:
            assert (expected_edge.get(key, key), pid) in got


def test_correction_needs_wrong_correct_why(sample_config, sample_store):
    with pytest.raises(UserError, match="missing: correct, why"):
        capture(sample_config, sample_store, "correction", {"task": TASK, "wrong": "x"})
    with pytest.raises(UserError, match="missing: wrong"):
        capture(sample_config, sample_store, "correction", {"wrong": "  ", "correct": "c", "why": "y"})
    assert not list((sample_config.vault / "corrections").glob(f"{date.today().isoformat()}-*"))


def test_bad_records_are_clear_errors(sample_config, sample_store):
    s, c = sample_store, sample_config
    with pytest.raises(PageNotFound, match="nosuchtask"):
        capture(c, s, "correction", {"task": "nosuchtask", "wrong": "w", "correct": "c", "why": "y"})
    with pytest.raises(UserError, match="unknown field"):
        capture(c, s, "task", {"request": "r", "colour": "red"})
    with pytest.raises(UserError, match="outcome must be one of"):
        capture(c, s, "task", {"request": "r", "outcome": "meh"})
    with pytest.raises(UserError, match="right_choice"):
        capture(c, s, "tool", {"name": "x", "right_choice": "maybe"})
    with pytest.raises(UserError, match="title"):
        capture(c, s, "artifact", {"kind": "doc"})
    with pytest.raises(UserError, match="cannot capture"):
        capture(c, s, "rule", {"rule": "x"})
    with pytest.raises(UserError, match="starts open"):
        capture(c, s, "correction", {"wrong": "w", "correct": "c", "why": "y", "status": "promoted"})
    with pytest.raises(UserError, match="created"):
        capture(c, s, "task", {"request": "r", "created": "yesterday"})


def test_collisions_get_numbered_names(sample_config, sample_store):
    ids = [capture(sample_config, sample_store, "task", {"request": "Same title", "summary": f"run {i}"}, today=DAY).id
           for i in range(3)]
    assert ids == ["tasks/2026-11-02-same-title", "tasks/2026-11-02-same-title-2", "tasks/2026-11-02-same-title-3"]
    # an existing file differing only in case also counts
    (sample_config.vault / "tools" / "Hammer.md").write_text("# Hammer\n", encoding="utf-8")
    assert capture(sample_config, sample_store, "tool", {"name": "hammer", "title": "hammer"}).id == "tools/hammer-2"


def test_the_same_record_twice_is_one_page(sample_config, sample_store):
    """A hook that runs again after a crash sends the same record: it must
    not become a second page, nor a second undo entry."""
    record = {"request": "Same record", "summary": "done", "outcome": "success"}
    first = capture(sample_config, sample_store, "task", record, today=DAY)
    again = capture(sample_config, sample_store, "task", record, today=DAY)
    assert again.id == first.id
    assert first.operation and not again.operation
    assert sorted(p.name for p in (sample_config.vault / "tasks").glob("2026-11-02-same-record*")) == ["2026-11-02-same-record.md"]


@pytest.mark.parametrize(
    "title",
    [
        "../../etc/passwd",
        "CON",
        "a\nb: c\n---\ntype: rule\nstatus: active",
        '"quoted" [[link]] #tag: {x: [1]}',
        "Zürich — 東京 🚀 naïve",
        "!!!",
        "x" * 500,
        "\x00\x1b[31mred\x7f",
    ],
)
def test_hostile_titles_stay_inside_and_read_back(sample_config, sample_store, title):
    res = capture(sample_config, sample_store, "decision", {"title": title, "choice": "c", "reasoning": "r"})
    full = (sample_config.vault / res.path).resolve()
    assert sample_config.vault in full.parents and full.parent.name == "decisions"
    assert len(full.name.encode()) <= 200
    page = parse_file(sample_config.vault, res.path)
    assert not page.errors and page.type == "decision" and page.fields["choice"] == "c"
    assert "status" not in page.fields and "\n" not in page.title
    assert page.title == res.title
    assert all(ord(ch) >= 32 for ch in page.title)


def test_capture_is_undoable(sample_config, sample_store):
    res = capture(sample_config, sample_store, "task", {"request": "Undo me"}, today=DAY)
    assert (sample_config.vault / res.path).exists()
    op = changeset.undo(sample_config, sample_store)
    assert op.kind == "capture" and not (sample_config.vault / res.path).exists()
    assert graph.get_page(sample_store, res.id) is None


def test_cli_capture_options_and_json_stdin(sample_config):
    vault = str(sample_config.vault)
    runner = CliRunner()
    r = runner.invoke(cli, ["capture", "correction", "--vault", vault, "--task", TASK, "--wrong", "W",
                            "--correct", "C", "--why", "Y", "--tags", "tls, chain"])
    assert r.exit_code == 0, r.output
    pid = r.output.strip()
    assert pid.startswith("corrections/") and (sample_config.vault / f"{pid}.md").is_file()
    r = runner.invoke(cli, ["capture", "correction", "--vault", vault, "--wrong", "W", "--correct", "C"])
    assert r.exit_code == 2 and "missing: why" in r.output
    payload = {"request": "Fix the CI job", "outcome": "failed", "used": ["tools/gh-cli"], "tags": ["ci"]}
    r = runner.invoke(cli, ["capture", "task", "--vault", vault, "--json", "-", "--print-json"], input=json.dumps(payload))
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["links"] == {"used": ["tools/gh-cli"]} and out["type"] == "task"
    r = runner.invoke(cli, ["capture", "task", "--vault", vault, "--json", "-"], input="[1, 2]")
    assert r.exit_code == 2 and "one JSON object" in r.output
    r = runner.invoke(cli, ["capture", "task", "--vault", vault, "--json", "-"], input="{nope")
    assert r.exit_code == 2 and "not valid JSON" in r.output
