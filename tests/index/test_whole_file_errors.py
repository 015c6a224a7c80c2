"""A parse error about a whole file is recorded on line 1 (lines are 1-based;
``check`` and an editor's ``file:line`` point there). Here a file that
cannot be read: one removed between the scan and the read (the sync's first
progress call comes in between); a real file, a real store. Names that are
not UTF-8 and second files with one page id: tests/index/test_sync.py."""

from __future__ import annotations

from brainwork.config import load_config
from brainwork.index.sync import sync
from brainwork.store import Store, graph


def test_a_file_gone_between_scan_and_read_is_an_error_on_line_1(make_vault, tmp_path):
    v = make_vault({"a.md": "# A\n\n[[b]]\n", "b.md": "# B\n"})
    cfg = load_config(v, tmp_path / "store")

    def remove_b(_done: int, _total: int, phase: str) -> None:
        if phase == "scanning":  # after the scan listed b.md, before it is read
            (v / "b.md").unlink(missing_ok=True)

    with Store(cfg.store) as s:
        report = sync(cfg, s, remove_b)
        assert [(e.path, e.line) for e in report.parse_errors] == [("b.md", 1)]
        assert report.parse_errors[0].message.startswith("cannot read: ")
        assert [(e.path, e.line) for e in graph.parse_errors(s)] == [("b.md", 1)]
        report = sync(cfg, s)  # the file is gone: so is its error
        assert report.parse_errors == [] and graph.get_page(s, "b") is None

