"""Duplicates across naming conventions: ``Site Roadmap.md`` and
``site-roadmap.md`` with similar bodies are found (names compare equal once
case and punctuation are folded)."""

from __future__ import annotations

from brainwork.analysis.findings import check
from brainwork.config import load_config
from brainwork.index.sync import sync

BODY = ("The site roadmap for 2027: migrate the blog to the new CMS, ship the pricing page redesign, "
        "and retire the legacy search service by March.\n")


def test_title_case_and_slug_file_names_are_compared(make_vault, store, tmp_path) -> None:
    vault = make_vault({
        "Site Roadmap.md": "# Site Roadmap\r\n" + BODY.replace("\n", "\r\n"),
        "web/site-roadmap.md": BODY.replace("March", "April") + "Owner: web team.\n",
        "site_roadmap_2019.md": "# Old plan\nSomething else entirely about hiring and budgets for the office move.\n",
    })
    config = load_config(vault, tmp_path / "store")
    sync(config, store)
    pairs = {(f.page, f.evidence["names"]) for f in check(config, store, ["duplicate"])}
    assert pairs == {("Site Roadmap", 1.0)}
