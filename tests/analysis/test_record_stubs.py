"""Stubs and records: a captured record (its text in its frontmatter
fields, by design) is not a stub; a stub's line is a line of the file and
its count is the body's text only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from brainwork.analysis.findings import check
from brainwork.config import load_config
from brainwork.index.sync import sync

BRAINWORK = str(Path(sys.executable).with_name("brainwork"))


def _brainwork(vault, *args: str, stdin: str | None = None) -> str:
    out = subprocess.run([BRAINWORK, "--vault", str(vault), *args], input=stdin,
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_the_readme_captures_are_not_stubs(make_vault, store, tmp_path) -> None:
    vault = make_vault({"Home.md": "# Home\n\nWhere the agent's memory starts.\n"})
    task = _brainwork(vault, "capture", "task", "--title", "Renew TLS cert for api", "--request", "...",
                      "--outcome", "success")
    fix = _brainwork(vault, "capture", "correction", "--task", task, "--wrong", "Checked only the leaf",
                     "--correct", "Check the chain the server presents", "--why", "Old clients fail")
    config = load_config(vault, tmp_path / "store")
    sync(config, store)
    stubs = {f.page: f for f in check(config, store, ["stub"])}
    assert task not in stubs and fix not in stubs, [f.to_text() for f in stubs.values()]


def test_a_stub_names_a_line_of_the_file_and_counts_the_body_only(make_vault, store, tmp_path) -> None:
    vault = make_vault({
        # a record with no text in its fields, and no body: ends at the closing fence
        "tasks/empty.md": "---\ntype: task\noutcome: success\n---\n",
        "tasks/no-newline.md": "---\ntype: task\noutcome: success\n---",
        # frontmatter text of a page that is no record is not body text
        "notes/fields-only.md": "---\ntitle: Fields only\nabout: " + "words in the frontmatter " * 10 + "\n---\n",
        "notes/short.md": "---\ntitle: Short\n---\n\nJust a line.\n",
        "notes/crlf.md": "---\r\ntitle: CRLF\r\n---\r\n",
    })
    config = load_config(vault, tmp_path / "store")
    sync(config, store)
    stubs = {f.page: f for f in check(config, store, ["stub"])}
    assert {p: (f.line, f.evidence["chars"]) for p, f in stubs.items()} == {
        "tasks/empty": (4, 0), "tasks/no-newline": (4, 0), "notes/fields-only": (4, 0),
        "notes/short": (4, len("Just a line.")), "notes/crlf": (3, 0)}
    for page, f in stubs.items():
        lines = (vault / f.path).read_text().splitlines()
        assert 1 <= f.line <= len(lines), (page, f.line, len(lines))
