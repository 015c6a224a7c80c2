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


def test_plain_and_arrow_gates_give_the_same_findings(repo_root: Path):
    """The gate's two paths (one ``re`` pass per gate; RE2 through Arrow for
    ASCII text) on the same inputs: every plugin example alone and all of
    them in one page, pages without any secret, and sample_vault/'s pages
    scanned one by one and all at once. ``arrow_min_chars`` 0 sends every
    ASCII text through Arrow, a size above every text sends it through
    ``re``."""
    never = 1 << 40
    singles = [[(f"{name}.md", PROSE + line + "\n" + PROSE)] for name, line in sorted(EXAMPLES.items())]
    together = [("all.md", "\n".join(PROSE + line for line in EXAMPLES.values()))]
    pages = [(p.relative_to(repo_root).as_posix(), p.read_text(encoding="utf-8"))
             for p in sorted((repo_root / "sample_vault").rglob("*.md"))]
    salted = [(rel, text + "\n" + list(EXAMPLES.values())[i % len(EXAMPLES)] + "\n") for i, (rel, text) in enumerate(pages)]
    cases = singles + [together, [("prose.md", PROSE * 50)], [("empty.md", "")], pages, salted]
    cases += [[item] for item in salted[:40]]
    found: set[str] = set()
    for items in cases:
        for extra in (False, True):
            arrow = scan_texts(items, extra, arrow_min_chars=0)
            plain = scan_texts(items, extra, arrow_min_chars=never)
            assert arrow == plain, [path for path, _ in items][:3]
            found |= set(arrow)
    assert {f"{name}.md" for name in EXAMPLES} | {"all.md"} <= found  # found, not merely missed alike


def test_small_text_takes_the_plain_gate():
    """A capture's few hundred characters stay under the threshold: the
    plain path needs neither numpy nor pyarrow (checked in a new process, as
    a hook runs)."""
    import subprocess
    import sys

    from brainwork.thresholds import SECRET_GATE_ARROW_MIN_CHARS

    text = PROSE * 4 + EXAMPLES["github"] + "\n"
    assert len(text) < SECRET_GATE_ARROW_MIN_CHARS
    code = ("import sys\nfrom brainwork.analysis.secrets import scan_texts\n"
            "hits = scan_texts([('a.md', sys.stdin.read())])['a.md']\n"
            "print([h.line for h in hits], sorted(m for m in ('numpy', 'pyarrow') if m in sys.modules))\n")
    r = subprocess.run([sys.executable, "-c", code], input=text, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[5] []"


def test_arrow_gate_only_where_it_pays(monkeypatch):
    """From the smaller size on once pyarrow.compute is loaded, else only
    from the size that outweighs importing it."""
    import sys

    import pyarrow.compute  # noqa: F401

    from brainwork.analysis.secrets import _arrow_pays
    from brainwork.thresholds import SECRET_GATE_ARROW_LOADED_MIN_CHARS as loaded, SECRET_GATE_ARROW_MIN_CHARS as cold

    assert loaded < cold
    assert _arrow_pays(loaded) and not _arrow_pays(loaded - 1)
    monkeypatch.delitem(sys.modules, "pyarrow.compute")
    assert not _arrow_pays(loaded) and not _arrow_pays(cold - 1) and _arrow_pays(cold)
