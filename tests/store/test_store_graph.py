"""Reading the page graph: pages, edges both ways, neighbourhoods, lookup."""

from __future__ import annotations

import pytest

from brainwork.config import load_config
from brainwork.errors import PageNotFound
from brainwork.index.sync import sync
from brainwork.store import Store, graph

VAULT = {
    "tasks/renew-cert.md": (
        "---\ntitle: Renew the certificate\ntype: task\n"
        'used: "[[certbot]]"\n---\n'
        "See [[Home]] twice [[Home|again]] and [[Nowhere]].\n"
    ),
    "tools/certbot.md": "---\ntype: tool\naliases: [Let's Encrypt client]\n---\n# certbot\n[[runbook]]\n",
    "sources/runbook.md": "---\ntype: source\ntitle: The Runbook\n---\n",
    "corrections/c1.md": '---\ntype: correction\ncorrects: "[[renew-cert]]"\n---\n',
    "Home.md": "# Home\n",
    "pic.png": b"",
}


@pytest.fixture(scope="module")
def st(tmp_path_factory):
    root = tmp_path_factory.mktemp("graphvault")
    for rel, content in VAULT.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(content.encode() if isinstance(content, str) else content)
    cfg = load_config(root, tmp_path_factory.mktemp("graphstore"))
    s = Store(cfg.store)
    sync(cfg, s)
    yield s
    s.close()


def test_page_edges_both_ways(st):
    e = graph.page_edges(st, "tasks/renew-cert")
    out = [(x.edge, x.other, x.dead, x.line, x.place) for x in e.out]
    assert out == [
        ("used", "tools/certbot", False, 4, "frontmatter"),
        ("corrected_by", "corrections/c1", False, 3, "frontmatter"),
        ("related", "Home", False, 6, "body"),
        ("related", "Home", False, 6, "body"),
        ("related", "nowhere", True, 6, "body"),
    ]
    dead = e.out[-1]
    assert dead.title == "Nowhere" and dead.target == "Nowhere" and dead.type is None
    corr = e.out[1]
    assert corr.file == "corrections/c1"  # written on the correction page
    assert e.in_ == []
    e = graph.page_edges(st, "corrections/c1")
    assert e.out == []
    assert [(x.edge, x.other, x.file) for x in e.in_] == [("corrected_by", "tasks/renew-cert", "corrections/c1")]
    e = graph.page_edges(st, "Home")
    assert [(x.edge, x.other, x.title, x.type) for x in e.in_] == [
        ("related", "tasks/renew-cert", "Renew the certificate", "task")
    ] * 2


def test_neighbourhood_one_and_two_hops(st):
    one = graph.neighbourhood(st, "tools/certbot")
    assert {(r.edge, r.direction, r.id, r.hop, r.count) for r in one} == {
        ("used", "in", "tasks/renew-cert", 1, 1),
        ("related", "out", "sources/runbook", 1, 1),
    }
    two = graph.neighbourhood(st, "tools/certbot", hops=2)
    hop2 = {(r.edge, r.direction, r.id, r.via) for r in two if r.hop == 2}
    assert hop2 == {
        ("corrected_by", "out", "corrections/c1", "tasks/renew-cert"),
        ("related", "out", "Home", "tasks/renew-cert"),
        ("related", "out", "nowhere", "tasks/renew-cert"),
    }
    home = [r for r in two if r.id == "Home"][0]
    assert home.count == 2
    nowhere = [r for r in two if r.id == "nowhere"][0]
    assert nowhere.dead and nowhere.title == "Nowhere"  # the target as written; the id is normalised
    assert all(r.id != "tools/certbot" for r in two)


def test_list_pages(st):
    assert [p.id for p in graph.list_pages(st)] == [
        "Home", "corrections/c1", "sources/runbook", "tasks/renew-cert", "tools/certbot",
    ]
    assert [p.id for p in graph.list_pages(st, "tool")] == ["tools/certbot"]
    assert graph.list_pages(st, "nothing") == []
    assert "pic.png" in [p.id for p in graph.list_pages(st, include_attachments=True)]
    tool = graph.list_pages(st, "tool")[0]
    assert tool.aliases == ["Let's Encrypt client"] and tool.kind == "page"


@pytest.mark.parametrize(
    "name,expected",
    [
        ("tools/certbot", "tools/certbot"),
        ("tools/certbot.md", "tools/certbot"),
        ("certbot", "tools/certbot"),
        ("CERTBOT", "tools/certbot"),
        ("let's encrypt client", "tools/certbot"),
        ("The Runbook", "sources/runbook"),
        ("Renew the certificate", "tasks/renew-cert"),
    ],
)
def test_find_page(st, name, expected):
    assert graph.find_page(st, name) == expected


def test_find_page_not_found_suggests(st):
    with pytest.raises(PageNotFound) as exc:
        graph.find_page(st, "renew cert")
    msg = str(exc.value)
    assert msg.startswith("no page named 'renew cert'") and "tasks/renew-cert" in msg


def test_get_page(st):
    p = graph.get_page(st, "tools/certbot")
    assert p.fields == {"type": "tool", "aliases": ["Let's Encrypt client"]}
    assert p.title == "certbot" and p.body == "# certbot\n[[runbook]]\n" and not hasattr(p, "links")
    assert len(p.hash) == 64
    assert graph.get_page(st, "nope") is None
