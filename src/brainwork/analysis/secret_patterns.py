"""Credential shapes detect-secrets does not report in Markdown, and the
documented placeholders that are not credentials.

detect-secrets runs Markdown through its rules for "other" files: a keyword
needs a quoted value (``password = "..."``) and the entropy plugins look only
at quoted strings. An agent's memory writes them unquoted: YAML frontmatter
(``password: hunter2``), ``.env`` lines (``STRIPE_SECRET=...``,
``OPENAI_API_KEY=sk-...``) and bare tokens in prose. This module finds those
and is the one place that says which values are placeholders:

- :data:`ASSIGNMENT`: a key named like a credential (``password``, ``passwd``,
  ``pwd``, ``secret``, ``token``, ``api_key``, and every ``*_KEY``,
  ``*_TOKEN``, ``*_SECRET``, ``*_PASSWORD``) followed by ``:`` or ``=`` and a
  value of at least :data:`MIN_ASSIGNED` characters on the same line;
- :data:`OPENAI_KEY`: ``sk-`` and ``sk-proj-`` keys (the current OpenAI
  formats carry no ``T3BlbkFJ`` marker, which detect-secrets' plugin needs);
- :func:`high_entropy`: an unquoted run of at least :data:`MIN_ENTROPY_CHARS`
  base64 characters with digits and letters whose Shannon entropy (bits per
  character) reaches detect-secrets' own base64 limit, 4.5, computed with its
  public ``calculate_shannon_entropy``. Unquoted pure hex is left out: work
  notes are full of commit ids and digests (``3f7868...``); a hex key named
  by its line (``API_KEY=...``) is an assignment;
- :data:`AWS_SECRET`: a 40-character ``[A-Za-z0-9/+]`` token (the shape of an
  AWS secret access key, which may hold ``/`` and so is no bare token) with
  upper- and lower-case letters and digits and entropy at the base64 limit,
  written in prose without ``:`` or ``=``: only within a few words after
  ``secret`` (``secret key``, ``secret access key``, ``aws_secret_access_key``)
  or on a line that also holds an AWS access key id (``AKIA``/``ASIA`` and
  16 characters). Elsewhere a 40-character run with ``/`` is a path.

:func:`is_placeholder` leaves out values documentation uses on purpose: AWS's
``AKIAIOSFODNN7EXAMPLE`` / ``wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`` (any
value containing ``EXAMPLE``), ``<your-key>``, ``${VAR}``, ``xxxx``,
``changeme``, ``***``, ``...``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Shortest assigned value reported: below this it is a word, not a secret.
MIN_ASSIGNED = 6
#: Shortest bare token tested for entropy (a 20-character key is short).
MIN_ENTROPY_CHARS = 20
#: detect-secrets' default base64 entropy limit (bits per character).
ENTROPY_BITS = 4.5

#: Searched in the lower-cased text (case-insensitive alternation is ~10x
#: slower in ``re``); which words before ``key`` count is checked after the
#: match (:func:`_credential_key`).
ASSIGNMENT = re.compile(
    r"""(?P<key>password|passwd|pwd|secret|token|key)["'`]?[ \t]*[:=][ \t]*(?P<value>["']?[^\s"'`#,;)\]>]{%d,}["']?)"""
    % MIN_ASSIGNED
)
_KEY_BEFORE = re.compile(r"(?:_|(?:api|access|private)[_-]?)$")
OPENAI_KEY = re.compile(r"(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}")
# The same without the look-behind, which keeps ``re`` from searching for
# the literal ``sk-`` (10x slower); the look-behind is checked per match. A
# match that starts inside a word consumes only word characters, so it hides
# no match that OPENAI_KEY would make.
_OPENAI_FAST = re.compile(OPENAI_KEY.pattern.removeprefix("(?<![A-Za-z0-9_-])"))
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
#: A bare token: base64/url-safe characters, not part of a URL, path, file
#: name or query (no ``/ . % ? & # :`` on either side; ``=`` only as padding).
_TOKEN = re.compile(r"(?<![A-Za-z0-9+/=_%%.?&#:-])[A-Za-z0-9+_-]{%d,}={0,2}(?![A-Za-z0-9+/=_%%.?&#:-])" % MIN_ENTROPY_CHARS)
_HEX = re.compile(r"[0-9a-fA-F]+")
#: A maximal run of exactly 40 ``[A-Za-z0-9/+]`` characters, not inside a
#: URL, path, file name or query (as :data:`_TOKEN`); a sentence's full stop
#: may follow it.
AWS_SECRET = re.compile(r"(?<![A-Za-z0-9+/=_%.?&#:@-])[A-Za-z0-9/+]{40}(?![A-Za-z0-9+/=_%?&#:@-]|\.\S)")
#: ``secret`` (also inside ``aws_secret_access_key``), ``secret key`` or
#: ``secret access key``, then at most three short words, then the token; one
#: line. Matched (case-insensitively) where ``secret`` starts in the
#: lower-cased text: the pattern has no literal prefix ``re`` could search for.
_AFTER_SECRET = re.compile(
    r"(?<![a-z0-9])secret(?:[ _-]access)?(?:[ _-]key)?(?:[ \t:=`'\"(*,]+[a-z]{1,15}){0,3}[ \t:=`'\"(*,]+(?=[a-z0-9/+])",
    re.IGNORECASE,
)
#: An AWS access key id (detect-secrets' AWSKeyDetector's long-term and
#: temporary prefixes), as a whole word.
_AWS_KEY_ID = re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])")
#: Every :data:`_TOKEN` match starts a maximal run of its characters of at
#: least :data:`MIN_ENTROPY_CHARS` (the look-behind excludes a run's own
#: characters), so in ASCII text the runs are found with ``bytes.find`` on
#: the text translated to ``a`` (a token character) and `` `` (any other)
#: and ``_TOKEN`` is matched at each run's start only: the same matches, ~7x
#: cheaper than trying the look-behind at every character.
_TOKEN_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+_-"
_TOKEN_TABLE = bytes(97 if i in _TOKEN_CHARS else 32 for i in range(256))
_TOKEN_RUN = b"a" * MIN_ENTROPY_CHARS
#: The words an ASSIGNMENT match starts with (its ``key`` group; password and passwd: "passw").
_ASSIGNMENT_KEYS = ("key", "token", "secret", "passw", "pwd")


def _tokens(text: str):
    """The matches of :data:`_TOKEN` in ``text``, in order."""
    if not text.isascii():
        yield from _TOKEN.finditer(text)
        return
    shape = text.encode("ascii").translate(_TOKEN_TABLE)
    i = shape.find(_TOKEN_RUN)
    while i >= 0:
        m = _TOKEN.match(text, i)
        if m:
            yield m
        end = shape.find(b" ", i)
        if end < 0:
            return
        i = shape.find(_TOKEN_RUN, end)
_PLACEHOLDER = re.compile(
    r"EXAMPLE|^<.*>$|^\$\{?.*\}?$|^\{\{.*\}\}$|^(?:x+|X+|\*+|\.+|-+|_+)$|changeme|change_me|"
    r"your[_-]|placeholder|redacted|dummy|^(?:none|null|true|false|secret|password|token)$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class PatternHit:
    """One value on one line: ``line`` 1-based, ``kind`` a detect-secrets-style
    type name, ``value`` the secret itself (callers mask it)."""

    line: int
    kind: str
    value: str


def is_placeholder(value: str) -> bool:
    """True for documented placeholder values (see the module doc)."""
    v = value.strip().strip("\"'`")
    if len(set(v)) <= 2:  # xxxxxxx, 0000000, abababab
        return True
    return bool(_PLACEHOLDER.search(v))


def _entropy(value: str) -> float:
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString

    return Base64HighEntropyString().calculate_shannon_entropy(value)


def high_entropy(token: str) -> bool:
    """True when ``token`` looks random: letters and digits mixed, not pure
    hex, and entropy at or above :data:`ENTROPY_BITS`. The entropy of ``d``
    distinct characters is at most ``log2(d)``, so fewer than
    ``2 ** ENTROPY_BITS`` (22.6) distinct characters decide it first."""
    if len(set(token)) < 2**ENTROPY_BITS:
        return False
    if not (any(c.isdigit() for c in token) and any(c.isalpha() for c in token)) or _HEX.fullmatch(token):
        return False
    return _entropy(token) >= ENTROPY_BITS


def _aws_secret(token: str) -> bool:
    """True when a 40-character :data:`AWS_SECRET` run looks like a key, not
    a word or a digest: upper- and lower-case letters and digits, not a
    placeholder, and :func:`high_entropy` (which also leaves out pure hex)."""
    return (
        any(c.isupper() for c in token) and any(c.islower() for c in token) and any(c.isdigit() for c in token)
        and high_entropy(token) and not is_placeholder(token)
    )


def _aws_secrets(text: str, low: str):
    """``(start, value)`` of every :data:`AWS_SECRET` run that follows
    ``secret`` within a few words (:data:`_AFTER_SECRET`) or sits on a line
    holding an AWS access key id, and passes :func:`_aws_secret`; in order,
    each once."""
    found: dict[int, str] = {}
    i = low.find("secret")
    while i >= 0:
        m = _AFTER_SECRET.match(text, i)
        if m:
            t = AWS_SECRET.match(text, m.end())
            if t and _aws_secret(t.group()):
                found[t.start()] = t.group()
        i = low.find("secret", i + 1)
    if "AKIA" in text or "ASIA" in text:
        for k in _AWS_KEY_ID.finditer(text):
            a = text.rfind("\n", 0, k.start()) + 1
            b = text.find("\n", k.end())
            for t in AWS_SECRET.finditer(text, a, len(text) if b < 0 else b):
                if _aws_secret(t.group()):
                    found[t.start()] = t.group()
    return sorted(found.items())


def _assignments(low: str):
    """The matches of ``ASSIGNMENT.finditer(low)``, in order, tried only where
    one of its keys starts (``str.find`` per key word): the pattern has no
    literal prefix, so ``re`` would try it at every character (~70 MB/s). At
    most one key matches at a position, so matching there gives what the
    scan would, and a position inside the previous match is skipped as the
    scan would."""
    found = []
    for word in _ASSIGNMENT_KEYS:
        i = low.find(word)
        while i >= 0:
            found.append(i)
            i = low.find(word, i + 1)
    if not found:
        return
    found.sort()
    end = 0
    for i in found:
        if i < end:
            continue
        m = ASSIGNMENT.match(low, i)
        if m:
            yield m
            end = m.end()


def scan_text(text: str, low: str | None = None) -> list[PatternHit]:
    """Every hit of the patterns above in ``text``, by line; one per value,
    placeholders left out; ``low`` is ``text.lower()`` when the caller has
    it. Costs a few regex passes over the text."""
    hits: list[PatternHit] = []
    taken: set[tuple[int, int]] = set()

    def line_of(pos: int) -> int:
        return text.count("\n", 0, pos) + 1

    for m in _OPENAI_FAST.finditer(text) if "sk-" in text else ():
        if m.start() and text[m.start() - 1] in _WORD_CHARS:
            continue  # OPENAI_KEY's look-behind: no key starts inside a word
        if not is_placeholder(m.group()):
            hits.append(PatternHit(line_of(m.start()), "OpenAI Token", m.group()))
            taken.add((m.start(), m.end()))
    low = text.lower() if low is None else low
    if len(low) != len(text):  # a few characters change length when lower-cased
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    for m in _assignments(low):
        if m.group("key") == "key" and not _KEY_BEFORE.search(low, max(0, m.start() - 8), m.start()):
            continue  # "key: ..." in prose; only api_key, ACCESS_KEY, *_KEY
        value = text[m.start("value") : m.end("value")].strip("\"'")
        if is_placeholder(value) or "[[" in value or "://" in value and "@" not in value:
            continue
        start = m.start("value")
        if any(a <= start < b for a, b in taken):
            continue
        hits.append(PatternHit(line_of(start), "Secret Keyword", value))
        taken.add((start, m.end("value")))
    for start, value in _aws_secrets(text, low):
        if any(a <= start < b or start <= a < start + len(value) for a, b in taken):
            continue
        hits.append(PatternHit(line_of(start), "AWS Secret Access Key", value))
        taken.add((start, start + len(value)))
    for m in _tokens(text):
        token = m.group()
        if any(a <= m.start() < b or m.start() <= a < m.end() for a, b in taken):
            continue
        if high_entropy(token) and not is_placeholder(token):
            hits.append(PatternHit(line_of(m.start()), "High Entropy String", token))
    hits.sort(key=lambda h: h.line)
    return hits
