"""brainwork's own writes do not create findings: a captured record keeps its
text in frontmatter and is not a stub; a page created for a dead link is not
reported as a stub."""

from __future__ import annotations

from brainwork.analysis.findings import check
from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.learn.capture import capture
from brainwork.ops import changeset as cs
from brainwork.ops.fixes import create_page


def test_captured_records_and_created_pages_are_not_stubs(make_vault, store, tmp_path) -> None:
    vault = make_vault({"notes/Hub.md": "# Hub\n" + "Plenty of text here about things. " * 10 + "\nSee [[Missing Page]].\r\n"})
    config = load_config(vault, tmp_path / "store")
    task = capture(config, store, "task", {
        "request": "Renew the TLS certificate of the billing API before it expires on Friday",
        "summary": "Used certbot with the DNS challenge; the old cert was replaced and nginx reloaded",
        "outcome": "success",
    })
    short = capture(config, store, "task", {"request": "Ping", "outcome": "success"})
    created = create_page(config, store, "Missing Page", from_page="notes/Hub")
    sync(config, store)
    stubs = {f.page for f in check(config, store, ["stub"])}
    assert task.id not in stubs and created.details["page"] not in stubs
    # A record's content is its fields: a terse one is complete, not a stub.
    assert short.id not in stubs
    cs.undo(config, store)  # undoing the creation brings the dismissal back too
    assert not (vault / "notes/Missing Page.md").exists()
