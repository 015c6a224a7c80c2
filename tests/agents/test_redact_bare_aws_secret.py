"""A Stop hook's text with an AWS key pair in prose (the secret access key
after ``secret``, holding ``/``, no ``:`` or ``=``) reaches the vault with
the secret replaced and the rest kept, and the vault's scan no longer flags
it."""

from __future__ import annotations

from brainwork.agents.redact import redact, redact_texts
from brainwork.analysis.secrets import scan_texts

SECRET = "wJalrXUtnFEMIK7MDENGbPxRfiCYzz/Kq9Ab3Xy1"
EXAMPLE = f"Deploy using AWS key AKIAZ7Q3EXAMPLEX0000 and secret {SECRET}"


def test_the_prose_secret_is_redacted():
    out = redact(EXAMPLE)
    assert out == "Deploy using AWS key AKIAZ7Q3EXAMPLEX0000 and secret [redacted aws secret access key]"
    assert not scan_texts([("x.md", out)])


def test_a_real_key_pair_is_redacted_in_every_text():
    text = f"Deploy using AWS key AKIAZ3MHTQ4JQYV5KW2P and secret {SECRET} now"
    reply, said = redact_texts([text, "fine, deploying."])
    assert reply == "Deploy using AWS key [redacted aws access key] and secret [redacted aws secret access key] now"
    assert said == "fine, deploying."
    assert SECRET not in reply and not scan_texts([("x.md", reply)])
