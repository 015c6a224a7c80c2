"""The quality bar's secret shapes beyond detect-secrets' Markdown rules:
frontmatter passwords, .env lines, sk- keys, bare high-entropy tokens; and
no finding for documented placeholders (AWS's ...EXAMPLE keys)."""

from __future__ import annotations

from brainwork.analysis.secret_patterns import is_placeholder
from brainwork.analysis.secrets import scan_texts
from brainwork.config import load_config
from brainwork.analysis.findings import check
from brainwork.index.sync import sync

SECRETS = (
    "---\r\ntitle: DB notes\r\npassword: hunter2isme\r\n---\r\n"  # line 3, CRLF
    "DB_PASSWORD=s3cr3tValue99\n"  # 5
    "STRIPE_SECRET=rk_live_abcdef123456\n"  # 6
    "OPENAI_API_KEY=sk-proj-abcDEF123456ghiJKL789mnoPQR\n"  # 7
    "a bare sk-abcdefghijklmnop1234567890AB key\n"  # 8
    "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n"  # 9
    "bare Zm9vYmFyYmF6cXV4cXV1eDEyMzQ1Njc4OTBhYmNkZWZnaA here\n"  # 10
)
PLACEHOLDERS = (
    "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n"
    'aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"\n'
    "password: <your-password>\ntoken: ${GITHUB_TOKEN}\nAPI_KEY=xxxxxxxxxxxx\n"
    "the key: use your head. Remember to rotate the secret: every month.\n"
    "commit 3f786850e387550fdab836ed7e6dc881de23001b, see https://example.com/channel/UCxNSTq2kmupdR6LD400FpvA\n"
)


def test_unquoted_shapes_are_found_with_their_lines() -> None:
    hits = scan_texts([("a.md", SECRETS)])["a.md"]
    assert [h.line for h in hits] == [3, 5, 6, 7, 8, 9, 10]
    kinds = {h.line: h.kind for h in hits}
    assert kinds[7] == kinds[8] == "OpenAI Token" and kinds[9] == "GitHub Token"
    assert all("hunter2" not in h.masked and "s3cr3t" not in h.masked for h in hits)


def test_documented_placeholders_are_not_secrets() -> None:
    assert scan_texts([("a.md", PLACEHOLDERS)]) == {}
    assert is_placeholder("AKIAIOSFODNN7EXAMPLE") and not is_placeholder("hunter2isme")


def test_check_reports_them_as_secret_findings(make_vault, store, tmp_path) -> None:
    vault = make_vault({"creds.md": SECRETS, "docs.md": PLACEHOLDERS, "x.md": "[[creds]] [[docs]]\n"})
    config = load_config(vault, tmp_path / "store")
    sync(config, store)
    found = [f for f in check(config, store, ["secret"])]
    assert {f.path for f in found} == {"creds.md"}
    assert len(found) == 7
