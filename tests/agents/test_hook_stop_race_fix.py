"""Two Stop hooks of one session run at once (real ``brainwork hook stop``
subprocesses started together): the second waits for the first and finds
its page, so the session has one task page and each push-back turn one
proposed correction, as a single stop leaves it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
BRAINWORK = str(Path(sys.executable).with_name("brainwork"))
TRIES = 6


def _session_pages(vault: Path, folder: str, sid: str) -> list[Path]:
    pattern = re.compile(rf'^session:[ \t]*["\']?{re.escape(sid)}["\']?[ \t]*$', re.M)
    return [p for p in sorted((vault / folder).glob("*.md")) if pattern.search(p.read_text(encoding="utf-8"))]


def _start_stop(vault: Path, sid: str, transcript: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k not in ("BRAINWORK_VAULT", "BRAINWORK_EMBEDDER")}
    p = subprocess.Popen([BRAINWORK, "hook", "stop", "--vault", str(vault)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    p.stdin.write(json.dumps({"session_id": sid, "transcript_path": str(transcript), "hook_event_name": "Stop"}))
    p.stdin.close()  # both are started before either reads its stdin to the end
    return p


def test_concurrent_stops_of_one_session_write_one_page(sample_vault_copy: Path, tmp_path: Path):
    vault = sample_vault_copy
    transcript = tmp_path / "t.jsonl"
    shutil.copy(FIXTURES / "10-backfill.jsonl", transcript)  # has a push-back turn: a proposal too

    # what one stop alone leaves
    alone = _start_stop(vault, "race-alone", transcript)
    assert alone.wait(timeout=120) == 0, alone.stderr.read()
    one_tasks = len(_session_pages(vault, "tasks", "race-alone"))
    one_proposals = len(_session_pages(vault, "corrections", "race-alone"))
    assert one_tasks == 1 and one_proposals >= 1

    for n in range(TRIES):
        sid = f"race-{n}"
        procs = [_start_stop(vault, sid, transcript) for _ in range(2)]
        for p in procs:
            assert p.wait(timeout=120) == 0
            err = p.stderr.read()
            assert err == "", err
        assert len(_session_pages(vault, "tasks", sid)) == one_tasks, f"try {n}: duplicate task page"
        assert len(_session_pages(vault, "corrections", sid)) == one_proposals, f"try {n}: duplicate proposal"
