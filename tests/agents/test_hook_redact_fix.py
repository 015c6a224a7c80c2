"""What a Stop hook writes holds no credential from the conversation: each
one the vault's secret scan finds is replaced by ``[redacted <kind>]``
(brainwork.agents.redact), ordinary text is kept byte for byte, and a real
``brainwork hook stop`` on a session that pasted keys writes its task page
and proposed correction with the keys taken out (it used to refuse the
whole record)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from brainwork.agents.redact import redact, redact_texts
from brainwork.analysis.secrets import scan_texts

BRAINWORK = str(Path(sys.executable).with_name("brainwork"))
AWS_KEY = "AKIAZ3MHTQ4JQYV5KW2P"
GITHUB_TOKEN = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
PASSWORD = "Hunter2Xy9z"


def _clean(text: str) -> bool:
    return not scan_texts([("x.md", text)])


@pytest.mark.parametrize(("text", "secret", "marker"), [
    (f"Deploy using AWS key {AWS_KEY} now", AWS_KEY, "[redacted aws access key]"),
    (f"push with {GITHUB_TOKEN}, then tag", GITHUB_TOKEN, "[redacted github token]"),
    (f"log in with password={PASSWORD} please", PASSWORD, "[redacted secret keyword]"),
    (f'db:\n  password: "{PASSWORD}"\n', PASSWORD, "[redacted secret keyword]"),
    (f"clone https://bob:{PASSWORD}@git.example.org/repo", PASSWORD, "[redacted basic auth credentials]"),
])
def test_a_secret_is_replaced_and_the_rest_kept(text, secret, marker):
    out = redact(text)
    assert secret not in out and marker in out
    assert out == text.replace(secret, marker)  # only the value changes
    assert _clean(out)


def test_several_secrets_on_lines_of_one_text():
    text = f"first line\r\nkey {AWS_KEY} and {GITHUB_TOKEN}\r\n\r\nOPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz123456\r\nbye"
    out = redact(text)
    assert out == ("first line\r\nkey [redacted aws access key] and [redacted github token]\r\n\r\n"
                   "OPENAI_API_KEY=[redacted openai token]\r\nbye")


def test_a_private_key_block_goes_whole():
    text = ("here it is:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2c\n"
            "qV7b9K2fQ8xZ1nW4pL6sT0yU3vR5\n-----END RSA PRIVATE KEY-----\nuse it")
    assert redact(text) == "here it is:\n[redacted private key]\nuse it"


@pytest.mark.parametrize("text", [
    "Renew the TLS certificate on api.example.com and check the full chain",
    "Run `git log 3f7868a9c1d2e4f5a6b7c8d9e0f1a2b3c4d5e6f7` and see keys/README.md",
    "the docs' example key AKIAIOSFODNN7EXAMPLE is a placeholder",  # documented placeholder: not a secret
    "password reset flow: users click the link\n\ttabs\tand  spaces\r\nkept",
    "", "é ü 👍 non-ASCII text",
])
def test_ordinary_text_is_untouched(text):
    assert redact(text) == text
    assert redact_texts([text, text]) == [text, text]


def _transcript(path: Path) -> None:
    def user(i, text):
        return {"type": "user", "sessionId": "red-1", "cwd": "/tmp", "uuid": f"u{i}",
                "message": {"role": "user", "content": text}, "timestamp": f"2026-11-20T10:0{i}:00.000Z"}

    def agent(i, text, command):
        return {"type": "assistant", "sessionId": "red-1", "uuid": f"a{i}", "timestamp": f"2026-11-20T10:0{i}:30.000Z",
                "message": {"role": "assistant", "content": [
                    {"type": "text", "text": text},
                    {"type": "tool_use", "id": f"toolu_{i}", "name": "Bash", "input": {"command": command}}]}}

    lines = [user(1, f"Deploy the api using AWS key {AWS_KEY} and password={PASSWORD}"),
             agent(1, "Deploying now.", f"./deploy.sh --key {AWS_KEY}"),
             user(2, f"No, that's wrong: you deployed to production instead of staging. Use the token {GITHUB_TOKEN} for staging."),
             agent(2, f"Sorry, redeployed to staging with {GITHUB_TOKEN}.", "./deploy.sh --env staging")]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")


def test_the_stop_hook_writes_the_session_without_its_keys(sample_vault_copy: Path, tmp_path: Path):
    vault = sample_vault_copy
    transcript = tmp_path / "t.jsonl"
    _transcript(transcript)
    env = {k: v for k, v in os.environ.items() if k not in ("BRAINWORK_VAULT", "BRAINWORK_EMBEDDER")}
    r = subprocess.run([BRAINWORK, "hook", "stop", "--vault", str(vault)], capture_output=True, text=True, env=env,
                       input=json.dumps({"session_id": "red-1", "transcript_path": str(transcript)}), timeout=120)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert "1 proposed correction" in r.stdout
    mine = re.compile(r'^session: "?red-1"?$', re.M)
    pages = [p for folder in ("tasks", "corrections") for p in (vault / folder).glob("*.md")
             if mine.search(p.read_text(encoding="utf-8"))]
    assert sorted(p.parent.name for p in pages) == ["corrections", "tasks"]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for secret in (AWS_KEY, GITHUB_TOKEN, PASSWORD):
            assert secret not in text and secret.lower() not in page.name, (page, text)
        assert "[redacted " in text and _clean(text), text
    task = next(p for p in pages if p.parent.name == "tasks").read_text(encoding="utf-8")
    assert 'request: "Deploy the api using AWS key [redacted aws access key] and password=[redacted secret keyword]"' in task
    assert 'summary: "Sorry, redeployed to staging with [redacted github token]."' in task
