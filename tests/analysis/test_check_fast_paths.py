"""The fast paths of the checks give what the plain ones give: RE2 gates
over ASCII lines against ``re`` per gate, keyword and assignment matches
found by their words against one regex scan, and the Arrow term batches of
the duplicate sketch against the per-page words."""

from __future__ import annotations

import random

import numpy as np

from brainwork.analysis import duplicates, secret_patterns, secrets

LINES = [
    "plain prose with a key word and a password in it",
    'password = "hunter2hunter2"',
    "api_key: 'AKIAIOSFODNN7EXAMPL1'",
    "see https://user:pa55word@example.com/path",
    "odd\x0bspace://us\x0ber:pw@host and ://us\x1cer:pw@host",
    "token == secret_value; passpassword: hunter22 pwd=abcdefgh",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789 and glpat-abcdefghij",
    "xoxb-123456789012-abcdef eyJhbGciOiJIUzI1NiJ9 sk_live_abc",
    "AP1abcdefgh -us1 SG.x AccountKey=abc SOFTLAYER.com hooks.slack.com",
    ":abcdefghijklmnopqrstuvwxyz012345678 .abcdef.abcdefghijklmnopqrstuvwxyz0",
    "ACabcdefghijklmnopqrstuvwxyz012345 SKabcdefghijklmnopqrstuvwxyz012345",
    "\"q1w2e3r4t5y6u7i8o9p0a1s2d3f4g5h6j7k8\" and 'x9Y8z7W6v5U4t3S2r1Q0p9O8n7M6'",
    "a quoted 'short' and \"a-bit-longer-run\" closed by the other quote'",
    "-----BEGIN RSA PRIVATE KEY-----",
    "",
    "contrasena: abc; my_secret = x",
    'my_key: "x" and Token => `y`',
    '"abc" == password and x !== my_secret',
    'private_key "abc"; cloudant_password = 0123456789abcdef0123456789abcdef',
    'aws_secret_access_key = "wJalrXUtnFEMIK7MDENGbPxRfiCYzzzzzzzzzzzz"',
    "KEY=ABCDEFGHIJKLMNOPQRSTUVWXYZ012345 pw\t:: abcdefghijklmnopqrstuvwx",
    "the key to it, passing tokens around: no value here",
]


def test_ascii_gates_equal_the_per_gate_scan():
    rng = random.Random(7)
    for _ in range(30):
        text = "\n".join(rng.choice(LINES) for _ in range(rng.randint(1, 25)))
        # A non-ASCII last line sends the text through the per-gate ``re`` path.
        slow = secrets._gated_starts(text + "\né")
        assert secrets._gated_starts(text, arrow_min_chars=0) == slow - {len(text) + 1}


def test_keyword_and_assignment_matches_equal_the_regex_scan():
    low = "\n".join(LINES).lower() + " passecret keykey pwpw tokentoken password=passwd=abcdefgh"
    assert secrets._keyword_spans(low) == [m.span() for m in secrets._KEYWORD.finditer(low)]
    assert [m.span() for m in secret_patterns._assignments(low)] == [
        m.span() for m in secret_patterns.ASSIGNMENT.finditer(low)
    ]


def test_batch_terms_equal_the_per_page_terms():
    rng = random.Random(3)
    words = ["alpha", "Beta", "gamma", "delta", "x", "Ünïcode", "tab\tbed", "a\x1cb", "end."]
    texts = ["", " ", "one", "  lead and trail  ", "\n\nbreaks\r\nand\x0bvt\x0cff\n"]
    for _ in range(200):
        texts.append((" " * rng.randint(0, 2)).join(rng.choice(words) for _ in range(rng.randint(0, 40))))
    table: dict[str, int] = {}
    terms, lengths = duplicates._batch_terms(texts, table)
    expected = [duplicates._page_terms(t, {}) for t in texts]
    assert lengths.tolist() == [len(e) for e in expected]
    assert np.array_equal(terms, np.concatenate(expected))
