"""Duplicates across naming conventions: ``Site Roadmap.md`` and
``site-roadmap.md`` with similar bodies are found (names compare equal once
case and punctuation are folded)."""

from __future__ import annotations

import os
import unicodedata

import pytest

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



@pytest.mark.parametrize("first,second", [
    ("SiteRoadmap.md", "notes/site_roadmap.md"),      # camel case and snake case
    ("Site Roadmap.md", "Site-Roadmap.md"),           # spaces and hyphens, one folder
    ("SITE ROADMAP.md", "web/site.roadmap.md"),       # upper case and dots
    (unicodedata.normalize("NFD", "Café Roadmap.md"), "web/café-roadmap.md"),  # NFD on disk, NFC slug
])
def test_other_conventions(make_vault, store, tmp_path, first, second) -> None:
    vault = make_vault({})
    for name, body in ((first, BODY), (second, BODY.replace("March", "April") + "Owner: web team.\n")):
        path = os.path.join(os.fsencode(str(vault)), os.fsencode(name))  # the bytes as given (NFD stays NFD)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(body.encode("utf-8"))
    config = load_config(vault, tmp_path / "store")
    sync(config, store)
    found = check(config, store, ["duplicate"])
    assert len(found) == 1, [f.to_text() for f in found]
    assert found[0].evidence["names"] >= 0.95, found[0].evidence
    assert found[0].path in {first, second}  # named by its file on disk
