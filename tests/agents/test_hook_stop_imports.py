"""The stop hook on one session's transcript stays clear of pyarrow (and,
with no candidate turn to embed, of numpy): its secret scan covers a few
kilobytes, under the size from which the gate runs through Arrow
(thresholds.SECRET_GATE_ARROW_MIN_CHARS); importing them would cost every
agent turn more than the scan itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"

#: ``brainwork hook stop`` in this process, then whether the secret scan ran
#: and the heavy modules left in sys.modules, on stderr.
DRIVER = (
    "import sys; sys.argv = ['brainwork', 'hook', 'stop', '--vault', sys.argv[1]]\n"
    "from brainwork.cli import main\n"
    "try:\n    main()\nexcept SystemExit:\n    pass\n"
    "scanned = 'brainwork.analysis.secrets' in sys.modules\n"
    "heavy = sorted(m for m in ('numpy', 'pyarrow') if m in sys.modules)\n"
    "print('SCANNED', scanned, 'HEAVY', ','.join(heavy), file=sys.stderr)\n"
)


def stop_in_new_process(vault: Path, transcript: Path, session: str) -> str:
    """stderr of the driver after the stop hook on ``transcript``."""
    payload = json.dumps({"session_id": session, "transcript_path": str(transcript)})
    env = {k: v for k, v in os.environ.items() if k not in ("BRAINWORK_VAULT", "BRAINWORK_EMBEDDER")}
    r = subprocess.run([sys.executable, "-c", DRIVER, str(vault)], input=payload, capture_output=True,
                       text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stderr


def test_stop_hook_on_a_one_prompt_session_imports_neither_numpy_nor_pyarrow(sample_vault_copy, tmp_path):
    # One prompt, one tool call and the answer (11-list-prs up to its first reply): no later turn to embed.
    lines = (FIXTURES / "11-list-prs.jsonl").read_text(encoding="utf-8").splitlines()
    transcript = tmp_path / "one-prompt.jsonl"
    transcript.write_text("\n".join(lines[:5] + lines[6:7]) + "\n", encoding="utf-8")
    before = set((sample_vault_copy / "tasks").glob("*.md"))
    err = stop_in_new_process(sample_vault_copy, transcript, "imports-1")
    written = set((sample_vault_copy / "tasks").glob("*.md")) - before
    assert len(written) == 1 and "open PRs" in written.pop().read_text(encoding="utf-8")  # the task page ...
    assert "SCANNED True HEAVY \n" in err, err  # ... scanned for secrets first, without numpy or pyarrow


def test_stop_hook_on_a_fixture_transcript_leaves_pyarrow_out(sample_vault_copy):
    transcript = FIXTURES / "04-blog-post.jsonl"
    assert transcript.stat().st_size < 16_000
    err = stop_in_new_process(sample_vault_copy, transcript, "imports-2")
    assert "SCANNED True" in err and "pyarrow" not in err.rsplit("HEAVY", 1)[-1], err
    # its push-back candidates are judged by the rules alone (no model export
    # in this store): the encoder is asked before numpy is imported
    assert "numpy" not in err.rsplit("HEAVY", 1)[-1], err
