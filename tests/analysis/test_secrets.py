"""The secret scan: detect-secrets through a gate that must lose nothing.

Example credentials are assembled at run time from random characters, so no
credential-shaped string is stored in this file.
"""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest

from brainwork.analysis.secrets import full_scan, mask, scan_texts

_rng = random.Random(20260729)


def rnd(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


HEX = "0123456789abcdef"
LOWER = string.ascii_lowercase + string.digits

#: One line per detect-secrets plugin family (and the assignment forms).
EXAMPLES: dict[str, str] = {
    "aws key id": "aws_access_key_id = " + "AKIA" + rnd(16, string.ascii_uppercase + string.digits),
    "aws secret": 'aws_secret_access_key = "' + rnd(40) + '"',
    "artifactory": "artifactory token: " + "AKC" + rnd(12),
    "azure": "DefaultEndpointsProtocol=https;AccountKey=" + rnd(86) + "==",
    "basic auth": "clone https://bob:" + rnd(10) + "@git.example.com/repo.git",
    "cloudant": "cloudant_password = " + rnd(64, HEX),
    "discord": "bot: " + "M" + rnd(23) + "." + rnd(6) + "." + rnd(27),
    "github": "token " + "gh" + "p_" + rnd(36),
    "gitlab": "use " + "gl" + "pat-" + rnd(20),
    "base64 entropy": 'blob = "' + rnd(44) + '"',
    "hex entropy": "commit '" + rnd(16, HEX) + "'",
    "ibm iam": "ibm_cloud_iam_api_key: " + rnd(44),
    "ibm cos": "ibm_cos_secret_access_key: " + rnd(48, HEX),
    "jwt": "auth: " + "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" + "." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0" + "." + rnd(43),
    "keyword": 'db password = "' + rnd(12) + '"',
    "mailchimp": "mc " + rnd(32, LOWER) + "-us12",
    "npm": "//registry.npmjs.org/:_authToken=" + "npm_" + rnd(36),
    "openai": "sk-" + rnd(20) + "T3Blbk" + "FJ" + rnd(20),
    "private key": "-----BEGIN RSA " + "PRIVATE KEY-----",
    "pypi": "pypi-AgEIcHlwaS5vcmc" + rnd(80),
    "sendgrid": "SG." + rnd(22) + "." + rnd(43),
    "slack": "xox" + "b-" + "123456789012-123456789012-" + rnd(24, LOWER),
    "softlayer": "softlayer_api_key = " + rnd(64, LOWER),
    "softlayer url": "see https://api.softlayer.com/soap/v3/" + rnd(64, LOWER),
    "cloudant url": "db https://admin:" + rnd(64, HEX) + "@acct.cloudant.com",
    "keyword compare": 'if "' + rnd(14) + '" == password:',
    "keyword semicolon": "const secretValue \"" + rnd(14) + '";',
    "square": "sq0" + "csp-" + rnd(43),
    "stripe": "sk_" + "live_" + rnd(24),
    "telegram": "bot 1102015432:" + rnd(35),
    "twilio": "AC" + rnd(32, LOWER),
}

PROSE = "An ordinary line of prose with a key idea, a token of thanks and don't-forget notes.\n"


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_gate_keeps_every_plugin_example(name):
    text = PROSE + EXAMPLES[name] + "\n" + PROSE
    full = full_scan("note.md", text)
    assert full, f"detect-secrets itself finds nothing in the {name!r} example"
    gated = scan_texts([("note.md", text)], extra=False)["note.md"]
    assert [h.line for h in gated] == sorted({line for line, _ in full}) == [2]
    assert set(gated[0].kinds) == {kind for _, kind in full}


def test_no_finding_in_prose_and_specific_kind_wins():
    assert scan_texts([("a.md", PROSE * 50)]) == {}
    stripe = "sk_" + "live_" + rnd(24)
    (hit,) = scan_texts([("a.md", f'api_key = "{stripe}"\n')])["a.md"]
    assert hit.kind == "Stripe Access Key"  # not the generic keyword or entropy detectors
    assert "Secret Keyword" in hit.kinds
    assert stripe not in repr(hit)


def test_mask_never_reveals_more_than_a_quarter():
    assert mask("AKIAIOSFODNN7EXAMPLE") == "AKIA…(20 chars)"
    assert mask("hunter2") == "h…(7 chars)"
    assert mask("abc") == "…(3 chars)"


def test_gate_equals_full_scan_on_real_pages(repo_root: Path, obsidian_help: Path):
    """Every Markdown file of sample_vault/ and the Obsidian help vault: the
    gated scan reports exactly the lines and kinds the ungated scan does
    (none at all on these vaults, verified by the ungated scan)."""
    files = [(p, repo_root / "sample_vault") for p in sorted((repo_root / "sample_vault").rglob("*.md"))]
    files += [(p, obsidian_help) for p in sorted(obsidian_help.rglob("*.md"))]
    assert len(files) > 300
    for path, root in files:
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8").lstrip("\ufeff")
        full = full_scan(rel, text)
        gated = scan_texts([(rel, text)], extra=False).get(rel, [])
        assert sorted((h.line, k) for h in gated for k in h.kinds) == full, rel


def test_text_whose_lower_case_changes_length_is_still_gated():
    # "İ".lower() is two characters, so the gate falls back to case-insensitive patterns
    text = "İstanbul office notes\n" + EXAMPLES["keyword"] + "\n" + EXAMPLES["softlayer url"].upper() + "\n"
    assert "İ".lower() != "i" and len(text.lower()) != len(text)
    hits = scan_texts([("a.md", text)], extra=False)["a.md"]
    assert [h.line for h in hits] == [line for line in (2, 3) if any(l == line for l, _ in full_scan("a.md", text))]
    assert 2 in [h.line for h in hits]
