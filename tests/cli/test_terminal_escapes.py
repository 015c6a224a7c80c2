"""Vault text never reaches the terminal as control sequences: ``show`` and
``check`` text output shows them escaped; JSON output keeps every value
exact."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from brainwork.display import json_safe, printable

TITLE = "Evil \x1b]0;owned\x07 title \x9b2J \u202egnp.exe"
NAME = "bad\x1b(0name"  # ESC ( 0: line-drawing character set


def _run(vault, store, *args):
    env = {**os.environ, "BRAINWORK_STORE_WAIT": "0"}
    return subprocess.run(
        [str(Path(sys.executable).parent / "brainwork"), *args, "--vault", str(vault), "--store", str(store)],
        capture_output=True, text=True, env=env, timeout=300,
    )


def test_printable_escapes_controls_and_keeps_layout() -> None:
    assert printable("a\x1b]0;x\x07b") == "a\\x1b]0;x\\x07b"
    assert printable("line\r\nnext\tcol\rover\x9b\u202e") == "line\nnext\tcol\\x0dover\\x9b\\u202e"
    assert json.loads(json_safe(json.dumps({"t": TITLE}, ensure_ascii=False))) == {"t": TITLE}
    assert not any(c in json_safe(json.dumps(TITLE, ensure_ascii=False)) for c in "\x1b\x07\x9b\u202e")


def test_show_and_check_escape_vault_text_json_stays_exact(make_vault, tmp_path) -> None:
    vault = make_vault({
        "Evil.md": f"---\ntitle: \"{TITLE.encode('unicode_escape').decode()}\"\nnote: \"x\\e[2Jy\"\n---\nsee [[{NAME}]] and [[Gone]]\r\n",
    })
    (vault / f"{NAME}.md").write_bytes(b"tiny\n")
    store = tmp_path / "store"
    shown = _run(vault, store, "show", "Evil")
    assert shown.returncode == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout and "\x9b" not in shown.stdout
    assert "\u202e" not in shown.stdout
    assert "Evil \\x1b]0;owned\\x07 title" in shown.stdout and "bad\\x1b(0name" in shown.stdout
    checked = _run(vault, store, "check")
    assert checked.returncode == 1, checked.stderr
    assert "\x1b" not in checked.stdout and "bad\\x1b(0name" in checked.stdout

    data = json.loads(_run(vault, store, "show", "Evil", "--json").stdout)
    assert data["title"] == TITLE  # exact
    assert any(e["other"] == NAME for e in data["edges"]["out"])
    raw = _run(vault, store, "check", "--format", "json").stdout
    assert "\x1b" not in raw and any(NAME in v for f in json.loads(raw) for v in f.values() if isinstance(v, str))
