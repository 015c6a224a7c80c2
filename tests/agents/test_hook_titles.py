"""The stop hook's page titles fit the diary-title check: a long request or
push-back becomes a title shorter than ``diary_title_chars`` (the proposal
prefix counted), cut after a whole word."""

from __future__ import annotations

import json
from pathlib import Path

from brainwork.agents import hooks
from brainwork.agents.transcript import read_transcript
from brainwork.config import load_config
from brainwork.learn.capture import PROPOSAL_TITLE_PREFIX

REQUEST = ("Backfill the region codes for every customer created before the new signup form went live, "
           "then check the counts against the billing export and report what changed")
PUSHBACK = ("no, you should have run the backfill script with --dry-run first and shown me the count before "
            "touching the production customers table")


def _transcript(path: Path) -> Path:
    lines = [
        {"type": "user", "message": {"role": "user", "content": REQUEST}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "Bash",
             "input": {"command": "python scripts/backfill_region.py --commit"}}]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "updated 18112 rows"}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Backfilled 18,112 customers."}]}},
        {"type": "user", "message": {"role": "user", "content": PUSHBACK}},
        {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "Sorry, I will."}]}},
    ]
    path.write_text("".join(json.dumps(m) + "\n" for m in lines), encoding="utf-8")
    return path


def test_page_title_is_shorter_than_the_limit_and_ends_on_a_word(sample_vault_copy):
    config = load_config(sample_vault_copy)
    limit = config.thresholds.diary_title_chars
    for prefix in ("", PROPOSAL_TITLE_PREFIX):
        title = hooks.page_title(REQUEST, config, prefix)
        assert title.startswith(prefix) and len(title) < limit, (len(title), title)
        kept = title[len(prefix):].removesuffix("…")
        assert title.endswith("…") and REQUEST.startswith(kept) and REQUEST[len(kept)] == " ", title
    assert hooks.page_title("Renew the billing certificate\nmore detail", config) == "Renew the billing certificate"
    assert hooks.page_title("\n  Fix CI  ", config, PROPOSAL_TITLE_PREFIX) == PROPOSAL_TITLE_PREFIX + "Fix CI"
    assert hooks.page_title("x" * 200, config) == "x" * (limit - 2) + "…"  # one long word: cut inside it


def test_hook_pages_pass_the_diary_title_check(sample_vault_copy, tmp_path):
    from brainwork.analysis.findings import check
    from brainwork.index.sync import sync
    from brainwork.store import Store, graph

    config = load_config(sample_vault_copy)
    result = hooks.capture_session(config, read_transcript(_transcript(tmp_path / "t.jsonl")), "sess-long")
    assert result.task and len(result.proposed) == 1
    pages = [result.task, *result.proposed]
    with Store(config.store) as store:
        sync(config, store)
        titles = {p: graph.get_page(store, p).title for p in pages}
        flagged = {f.page for f in check(config, store, ["diary-title"])}
    assert titles[result.task].startswith("Backfill the region codes") and titles[result.task].endswith("…")
    assert titles[result.proposed[0]].startswith(PROPOSAL_TITLE_PREFIX + "no, you should have run")
    assert all(len(t) < config.thresholds.diary_title_chars for t in titles.values()), titles
    assert not flagged & set(pages), sorted(flagged & set(pages))
