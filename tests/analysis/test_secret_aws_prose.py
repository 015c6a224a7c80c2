"""An AWS secret access key written in prose (no ``:`` or ``=``; it may hold
``/``, so it is no bare token) is a secret after the word ``secret`` or on a
line holding an access key id, and nowhere else: paths, URLs, commit ids and
low-entropy base64 of 40 characters are not."""

from __future__ import annotations

import pytest

from brainwork.analysis.secret_patterns import scan_text
from brainwork.analysis.secrets import scan_texts

SECRET = "q7Rb/Xe2LmN9pTzK4vWc+H8sYd1Ju6Fa3GhiQo0B"
KEY_ID = "AKIAZ3MHTQ4JQYV5KW2P"


@pytest.mark.parametrize("text", [
    "Deploy using AWS key AKIAZ7Q3EXAMPLEX0000 and secret wJalrXUtnFEMIK7MDENGbPxRfiCYzz/Kq9Ab3Xy1",
    f"the Secret Access Key is `{SECRET}`.",
    f"rotate the secret key for prod: {SECRET} today",
    f"AWS_SECRET_ACCESS_KEY {SECRET}",
    f"{KEY_ID} {SECRET}",
    f"ASIAZ3MHTQ4JQYV5KW2P then ({SECRET})",
])
def test_a_prose_aws_secret_is_found(text):
    value = "wJalrXUtnFEMIK7MDENGbPxRfiCYzz/Kq9Ab3Xy1" if "wJal" in text else SECRET
    assert [(h.kind, h.value) for h in scan_text(text)] == [("AWS Secret Access Key", value)]
    hits = scan_texts([("a.md", "intro\n" + text + "\n")])["a.md"]
    assert [h.line for h in hits] == [2]
    assert SECRET not in repr(hits)


@pytest.mark.parametrize("text", [
    "the secret check is src/brainwork/analysis/secret_patterns.py",
    "secret sauce lives in src/brainwork/analysis/secret/patterns/KEYS9.py",
    "secret notes at https://github.com/abcDEF123/ghiJKL456/mnoPQR789xyzUVW",
    "the secret fix is commit 3f786850e387550fdab836ed7e6dc881de23001b",
    "the secret fix is commit 3F786850E387550FDAB836ED7E6DC881DE23001B",
    "secret QUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFB",  # base64 of 30 "A"s
    "secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",  # AWS's documented placeholder
    f"{SECRET} with no secret word before it and no key id",
    f"secret {SECRET}x",  # 41 characters: not the shape
    f"the secret\n{SECRET}",  # another line
])
def test_other_40_character_runs_are_not(text):
    assert [h for h in scan_text(text) if h.kind == "AWS Secret Access Key"] == []
