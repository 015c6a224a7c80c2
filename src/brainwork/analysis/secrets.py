"""Credentials in pages, found with detect-secrets.

A memory of everything is a target; keys, tokens and passwords do not belong
in it (the ``secret`` finding). The scanning is detect-secrets' own: its
default plugins (AWS, GitHub, GitLab, Slack, Stripe, OpenAI, private keys,
JWTs, basic-auth URLs, high-entropy quoted strings, ``password = "..."``
assignments, ...) and its default false-positive filters, run through its
line scanner (``detect_secrets.core.scan``) with the page's file name, so
Markdown files get its rules for "other" files (keywords need a quoted
value); detect-secrets is used through its public API only
(``SecretsCollection``, ``transient_settings``; pinned in pyproject.toml).
:mod:`brainwork.analysis.secret_patterns` adds the unquoted shapes a memory
holds (frontmatter passwords, ``.env`` lines, ``sk-`` keys, bare high-entropy
tokens) and leaves out documented placeholders. The ``IPPublicDetector`` plugin is left out: an IP address is not a
credential.

detect-secrets costs ~0.2 ms a line (27 plugins and their filters), far too
slow for every line of a 10,000-page vault, so a *gate* picks the lines that
could hold a secret at all. The gate is a set of necessary conditions, one per
plugin family, each derived from that plugin's own patterns (detect-secrets
1.5): a line no gate pattern touches cannot produce a finding, and every line
a gate pattern touches is scanned by detect-secrets in full. tests/analysis
check that the gated scan equals the full scan on the real corpus and on an
example of every plugin.

The gate has two paths that pick the same lines: one ``re`` pass per gate,
and, for long ASCII text, RE2 through Arrow over all lines at once
(:func:`_arrow_pays`). Arrow is ~2x faster per byte, but importing numpy
and pyarrow costs ~0.14 s CPU, more than the plain path spends on anything
short of ~16 MB; a hook scans one capture of a few kilobytes.
"""

from __future__ import annotations

import hashlib
import math
import re
import sys
from collections import Counter
from bisect import bisect_right
from dataclasses import dataclass
from typing import Iterable

from brainwork.analysis.secret_patterns import is_placeholder
from brainwork.analysis.secret_patterns import scan_text as own_patterns
from brainwork.thresholds import SECRET_GATE_ARROW_LOADED_MIN_CHARS, SECRET_GATE_ARROW_MIN_CHARS

#: Patterns with a fast literal start, each a necessary condition of some plugins.
_GATES: tuple[re.Pattern, ...] = tuple(
    re.compile(p)
    for p in (
        r"A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA",  # AWSKeyDetector (access key ids)
        r"AKC[a-zA-Z0-9]{10}",  # ArtifactoryDetector
        r"AP[\dABCDEF][a-zA-Z0-9]{8}",  # ArtifactoryDetector
        r"\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}",  # DiscordBotTokenDetector
        r"gh[pousr]_",  # GitHubTokenDetector
        r"gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-",  # GitLabTokenDetector
        r"GR1348941",  # GitLabTokenDetector
        r"eyJ",  # JwtTokenDetector
        r"-us\d",  # MailchimpDetector
        r"_authToken",  # NpmDetector
        r"T3BlbkFJ",  # OpenAIDetector
        r"PRIVATE KEY|PuTTY-User-Key",  # PrivateKeyDetector
        r"pypi-",  # PypiTokenDetector
        r"SG\.",  # SendGridDetector
        r"xox[abposr]-",  # SlackDetector
        r"hooks\.slack\.com",  # SlackDetector
        r"sq0csp-",  # SquareOAuthDetector
        r"k_live_",  # StripeDetector
        r":[0-9A-Za-z_-]{35}",  # TelegramBotTokenDetector
        r"AC[a-z0-9]{32}",  # TwilioKeyDetector
        r"SK[a-z0-9]{32}",  # TwilioKeyDetector
        r"AccountKey=",  # AzureStorageKeyDetector
        # BasicAuthDetector (``://user:password@``, neither part holding
        # whitespace, ``:`` or ``@``) and CloudantDetector's URL form
        # (``https://account:key@``, word characters and ``-`` before the colon)
        r"://[^\s@:]+:[^\s@:]+@",
    )
)

#: Base64HighEntropyString / HexHighEntropyString: a quoted run of their
#: charset (entropy above the default limits, 4.5 / 3.0 bits, needs at least
#: 23 / 9 distinct characters). The closing quote is only looked at, so a
#: quote that closes one run may open the next: a superset of the plugins'
#: own matches.
_QUOTED_RUN = re.compile(r"""(['"])([A-Za-z0-9+/\\_=-]{9,})(?=\1)""")
#: A superset of :data:`_QUOTED_RUN`'s matches RE2 can run (either quote closes).
_QUOTED_RUN_RE2 = r"""['"][A-Za-z0-9+/\\_=-]{9,}['"]"""
_HEX = frozenset("0123456789abcdefABCDEF")
#: The plugins' default entropy limits (bits per character), lowered by a
#: rounding margin: the gate must never be stricter than the plugin.
_BASE64_LIMIT = 4.5 - 1e-9
_HEX_LIMIT = 3.0 - 1e-9


def _entropy(data: str) -> float:
    """Shannon entropy of ``data`` in bits per character (the plugins'
    formula; the hex plugin's reduction for all-digit runs only lowers it)."""
    n = len(data)
    return -sum(c / n * math.log2(c / n) for c in Counter(data).values())


def _high_entropy(run: str) -> bool:
    """Whether a quoted run can pass either high-entropy plugin's limit.

    The entropy of a run with ``d`` distinct characters is at most
    ``log2(d)``: under 23 distinct characters it cannot pass the base64
    limit (log2(22) = 4.46), under 8 not the hex one, so most runs (words
    such as ``"username"``) are decided without computing it."""
    distinct = len(set(run))
    if distinct < 8 or (distinct < 23 and not _HEX.issuperset(run)):
        return False
    e = _entropy(run)
    return e > _BASE64_LIMIT or (e > _HEX_LIMIT and _HEX.issuperset(run))
#: SoftlayerDetector's URL form, searched in the lower-cased text.
_SOFTLAYER_URL = re.compile(r"softlayer\.com")
#: KeywordDetector (and the keyword forms of AWS, Cloudant, IBM and Softlayer):
#: a denylisted word (searched in the lower-cased text) ...
_KEYWORD_WORDS = ("key", "pass", "pw", "secret", "contrase", "token")
_KEYWORD = re.compile("|".join(_KEYWORD_WORDS))
#: ... followed by an operator and a quote (Markdown files get the
#: KeywordDetector's quotes-required patterns, each ``<word>\w*`` then at
#: most two closing ``]'"``, an operator and a quote: ``key: "``,
#: ``key = '``, ``key => "``, ``key == "``) ...
_KEYWORD_ASSIGN = re.compile(r"""\w*[\]'"]{0,2}\s*(?::|={1,3}|!==?|=>)\s*['"`]""")
#: ... or later on its line by a closing quote and ``;`` (``private_key
#: "..." ;``) or a quoted run of 24+ characters (AWS: ``aws_secret_access_key
#: = "<40>"``) ...
_KEYWORD_AFTER = re.compile(r"""['"`];|['"][0-9a-zA-Z/+]{24}""")
#: ... or directly by a separator and a value of 24+ characters (Cloudant,
#: IBM, Softlayer: ``cloudant_password = <64 hex>``, quotes optional) ...
_KEYWORD_VALUE = re.compile(r"""\w*['"\]]{0,3}[ \t]*(?::=|=>|::|[:=]|[ \t])[ \t]*['"]?[a-zA-Z0-9_\-]{24}""")
#: ... or be the word after a comparison (``"..." == password``, ``!==
#: my_secret``), searched up to the keyword: a keyword never holds a
#: non-word character, so the word it is in starts after the operator.
_KEYWORD_COMPARED = re.compile(r"[!=]{2}\s*\w*\Z")

_DISABLED_PLUGINS = ("IPPublicDetector",)


#: Generic detectors, reported only when no specific one names the value.
_GENERIC = ("Secret Keyword", "Base64 High Entropy String", "Hex High Entropy String", "High Entropy String")


@dataclass(frozen=True)
class SecretHit:
    """Suspected credentials on one line: ``line`` is the 1-based file line,
    ``kind`` the most specific detect-secrets type name ("AWS Access Key"
    before "Secret Keyword" or "Base64 High Entropy String"), ``kinds`` every
    type reported for the line, ``masked`` a shape of the value safe to print,
    ``digest`` the first 12 hex digits of the value's SHA-256 (identifies it
    for dismissal without revealing it)."""

    line: int
    kind: str
    kinds: tuple[str, ...]
    masked: str
    digest: str


def mask(secret: str) -> str:
    """A printable shape of ``secret`` that does not reveal it: at most the
    first 4 characters (fewer for short values, never more than a quarter),
    then ``…`` and the length. ``"AKIAIOSFODNN7EXAMPLE"`` -> ``"AKIA…(20 chars)"``."""
    keep = min(4, len(secret) // 4)
    return f"{secret[:keep]}…({len(secret)} chars)"


def _keyword_spans(low: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the matches ``_KEYWORD.finditer(low)`` gives, found
    with ``str.find`` per word: no two words match at one position, so the
    regex's leftmost, non-overlapping matches are the occurrences in order
    with those that start inside an earlier kept one left out."""
    found = []
    for word in _KEYWORD_WORDS:
        i = low.find(word)
        while i >= 0:
            found.append((i, i + len(word)))
            i = low.find(word, i + 1)
    found.sort()
    out = []
    end = 0
    for a, b in found:
        if a >= end:
            out.append((a, b))
            end = b
    return out


def _re2_pattern(pattern: str) -> str:
    """``pattern`` as RE2 reads it with Python ``re``'s meaning over ASCII
    text: ``\\d`` is ``0-9`` and ``\\s`` the ASCII whitespace Python's ``\\s``
    matches (RE2's ``\\s`` leaves out VT and the information separators)."""
    out = []
    in_class = False
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            e = pattern[i + 1]
            if e == "d":
                out.append("0-9" if in_class else "[0-9]")
            elif e == "s":
                out.append("\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f " if in_class else "[\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f ]")
            else:
                out.append(pattern[i : i + 2])
            i += 2
            continue
        if c == "[" and not in_class:
            in_class = True
        elif c == "]" and in_class and out and out[-1] not in ("[", "[^"):
            in_class = False
        out.append(c)
        if out[-2:] == ["[", "^"]:
            out[-2:] = ["[^"]
        i += 1
    return "".join(out)


#: Every gate of :data:`_GATES` and the Softlayer URL (any case) as one RE2
#: alternation, for ASCII text: Arrow's ``match_substring_regex`` runs it
#: over every line at once in one linear pass (~6x faster than one ``re``
#: pass per gate). No gate matches across a line end, so a line is touched
#: by a gate exactly when the alternation matches in it.
_GATES_RE2 = "|".join([f"(?:{_re2_pattern(g.pattern)})" for g in _GATES] + [f"(?i:{_SOFTLAYER_URL.pattern})"])


#: The lines a keyword can gate, for RE2 over ASCII text: a superset of the
#: keyword rules above, each reduced to what it cannot do without: a
#: keyword (any case) then, later on its line, ``:`` or ``=`` and a quote
#: (_KEYWORD_ASSIGN), a run of 24 value characters (_KEYWORD_VALUE, and
#: _KEYWORD_AFTER's quoted run), or a quote and ``;`` (_KEYWORD_AFTER); or
#: two of ``!=`` earlier on the line (_KEYWORD_COMPARED).
_KEYWORD_ANY = "(?i:" + "|".join(_KEYWORD_WORDS) + ")"
_KEYWORD_LINE_RE2 = (
    _KEYWORD_ANY + r""".*(?:[:=].*['"`]|[a-zA-Z0-9_\-+/]{24}|['"`];)|[!=]{2}.*""" + _KEYWORD_ANY
)


def _ascii_gates(text: str, low: str) -> tuple[set[int], list[tuple[int, int]]]:
    """For ASCII ``text`` (``low`` lower-cased): the offsets of the line
    starts whose line a gate of :data:`_GATES` or the Softlayer URL (any
    case) touches, and the ``(start, end)`` of every ``_KEYWORD`` match in
    ``low``. Each line, its line end included, is one string of an Arrow
    array built on the text's bytes without copying them; RE2 picks the
    gated lines and the lines a keyword may gate (:data:`_KEYWORD_LINE_RE2`)
    in one linear pass each, and ``re`` looks for the keywords in those
    lines only (no keyword spans a line end, so in those lines the matches
    are those of one scan of ``low``; the keywords of the other lines gate
    nothing)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    data = text.encode("ascii")
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10) + 1
    tail = [len(data)] if not len(ends) or ends[-1] != len(data) else []
    offsets = np.concatenate(([0], ends, tail)).astype(np.int64)
    lines = pa.LargeStringArray.from_buffers(len(offsets) - 1, pa.py_buffer(offsets), pa.py_buffer(data))
    hit = pc.match_substring_regex(lines, _GATES_RE2).to_numpy(zero_copy_only=False)
    starts = set(offsets[:-1][hit].tolist())
    # _QUOTED_RUN needs a backreference, which RE2 lacks: RE2 picks the lines
    # with a quoted run closed by either quote (a superset), ``re`` scans them.
    quoted = np.flatnonzero(pc.match_substring_regex(lines, _QUOTED_RUN_RE2).to_numpy(zero_copy_only=False))
    for a, b in zip(offsets[quoted].tolist(), offsets[quoted + 1].tolist()):
        for m in _QUOTED_RUN.finditer(text, a, b):
            if _high_entropy(m.group(2)):
                starts.add(a)
    keyed = np.flatnonzero(pc.match_substring_regex(lines, _KEYWORD_LINE_RE2).to_numpy(zero_copy_only=False))
    spans = [m.span() for a, b in zip(offsets[keyed].tolist(), offsets[keyed + 1].tolist())
             for m in _KEYWORD.finditer(low, a, b)]
    return starts, spans


def _arrow_pays(chars: int) -> bool:
    """Whether the Arrow gate is cheaper than the plain one on ``chars``
    characters of ASCII text in this process: from
    SECRET_GATE_ARROW_LOADED_MIN_CHARS on when pyarrow.compute (and so numpy)
    is already imported, from SECRET_GATE_ARROW_MIN_CHARS on when the call
    would import them."""
    loaded = "pyarrow.compute" in sys.modules
    return chars >= (SECRET_GATE_ARROW_LOADED_MIN_CHARS if loaded else SECRET_GATE_ARROW_MIN_CHARS)


def _gated_starts(text: str, low: str | None = None, arrow_min_chars: int | None = None) -> set[int]:
    """Offsets of the starts of the lines of ``text`` that some gate touches;
    ``low`` is ``text.lower()`` when the caller has it. ASCII text goes
    through Arrow (:func:`_ascii_gates`) from ``arrow_min_chars`` characters
    on (None: where it pays, :func:`_arrow_pays`), any other text through
    one ``re`` pass per gate; both give the same offsets."""
    low = text.lower() if low is None else low
    spans = None
    arrow = _arrow_pays(len(text)) if arrow_min_chars is None else len(text) >= arrow_min_chars
    if text and arrow and text.isascii():
        starts, spans = _ascii_gates(text, low)
        softlayer = None  # searched with the gates
    else:
        starts = set()
        for gate in _GATES:
            for m in gate.finditer(text):
                starts.add(text.rfind("\n", 0, m.start()) + 1)
        softlayer = _SOFTLAYER_URL
    if spans is None and ("'" in text or '"' in text):  # the Arrow path did this in _ascii_gates
        for m in _QUOTED_RUN.finditer(text):
            if _high_entropy(m.group(2)):
                starts.add(text.rfind("\n", 0, m.start()) + 1)
    if len(low) != len(text):  # a few characters change length when lower-cased
        low = text
        keyword = re.compile(_KEYWORD.pattern, re.IGNORECASE)
        softlayer = re.compile(_SOFTLAYER_URL.pattern, re.IGNORECASE)
        spans = [m.span() for m in keyword.finditer(low)]
    elif spans is None:
        spans = _keyword_spans(low)
    for m in softlayer.finditer(low) if softlayer is not None else ():  # SoftlayerDetector (URL form, any case)
        starts.add(text.rfind("\n", 0, m.start()) + 1)
    for ks, ke in spans:
        a = text.rfind("\n", 0, ks) + 1
        if a in starts:
            continue
        b = text.find("\n", ke)
        b = len(text) if b < 0 else b
        if (
            _KEYWORD_ASSIGN.match(text, ke, b)
            or _KEYWORD_AFTER.search(text, ke, b)
            or _KEYWORD_VALUE.match(text, ke, b)
            or _KEYWORD_COMPARED.search(text, a, ks)
        ):
            starts.add(a)
    return starts


def _gated_lines(texts: list[str], lows: list[str], arrow_min_chars: int | None = None,
                 ) -> list[tuple[int, tuple[int, str]]]:
    """``(index in texts, (1-based line, line text))`` of every line some
    gate touches, ordered by file and line; ``lows`` are the texts
    lower-cased; ``arrow_min_chars`` as for :func:`_gated_starts`, applied
    to the joined texts.

    One pass of each gate over all files joined: ~20x fewer regex calls.
    Each file is lower-cased on its own (ASCII files take str.lower's fast
    path, the joined text would not); "\n" stops every case rule (final
    sigma), so the joined lower-cased files are the joined files lower-cased."""
    if not texts:
        return []
    big = "\n".join(texts)
    file_starts: list[int] = []
    pos = 0
    for text in texts:
        file_starts.append(pos)
        pos += len(text) + 1
    out = []
    for a in sorted(_gated_starts(big, "\n".join(lows), arrow_min_chars)):
        f = bisect_right(file_starts, a) - 1
        base = file_starts[f]
        b = big.find("\n", a)
        out.append((f, (texts[f].count("\n", 0, a - base) + 1, big[a : len(big) if b < 0 else b])))
    return out


def _plugins_config() -> dict:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    return {
        "plugins_used": [
            {"name": cls.__name__}
            for cls in get_mapping_from_secret_type_to_class().values()
            if cls.__name__ not in _DISABLED_PLUGINS
        ]
    }


def scan_texts(items: Iterable[tuple[str, str]], extra: bool = True, *,
               arrow_min_chars: int | None = None) -> dict[str, list[SecretHit]]:
    """Scan file texts for credentials.

    Args:
        items: ``(vault-relative path, full file text)`` pairs.
        extra: also report :mod:`brainwork.analysis.secret_patterns`'s
            shapes (False: detect-secrets alone, as :func:`full_scan`).
        arrow_min_chars: the ASCII files joined gate through Arrow from this
            many characters on (0: always; more than any text: never; None:
            where it is cheaper, ``_arrow_pays``). The findings are the same
            either way; only the cost differs.

    Returns:
        ``{path: [SecretHit, ...]}`` for the files with hits, one hit per
        line, ordered by line.
    """
    items = list(items)
    lows = [text.lower() for _, text in items]
    # The gate runs over the files joined, one group per width: a single
    # non-ASCII character (an emoji) makes a joined str 4 bytes a character,
    # and every gate pass over the ASCII files would then read 4x the memory.
    ascii_files = [f for f, (_, text) in enumerate(items) if text.isascii()]
    if len(ascii_files) == len(items):
        groups = [ascii_files]
    else:
        taken = set(ascii_files)
        groups = [ascii_files, [f for f in range(len(items)) if f not in taken]]
    gated: dict[int, list[tuple[int, str]]] = {}
    for group in groups:
        for f, line in _gated_lines([items[f][1] for f in group], [lows[f] for f in group], arrow_min_chars):
            gated.setdefault(group[f], []).append(line)
    todo = [(items[f][0], lines) for f, lines in sorted(gated.items())]
    found_by_path = _detect(todo)
    for (path, text), low in zip(items, lows) if extra else ():  # shapes detect-secrets does not report in Markdown
        for h in own_patterns(text, low):
            found_by_path.setdefault(path, {}).setdefault(h.line, []).append((h.kind, h.value))
    out: dict[str, list[SecretHit]] = {}
    for path, by_line in found_by_path.items():
        hits = []
        for line in sorted(by_line):
            found = by_line[line]
            kinds = tuple(dict.fromkeys(k for k, _ in found))
            # the longest value of the most specific detector: a token regex
            # may capture only its prefix ("ghp"), the generic ones the whole value
            specific = [f for f in found if f[0] not in _GENERIC] or found
            kind = specific[0][0]
            value = max((v for _, v in found), key=len)
            digest = hashlib.sha256(value.encode()).hexdigest()[:12]
            hits.append(SecretHit(line, kind, kinds, mask(value), digest))
        if hits:
            out[path] = hits
    return out


def _detect(todo: list[tuple[str, list[tuple[int, str]]]]) -> dict[str, dict[int, list[tuple[str, str]]]]:
    """detect-secrets over the given lines through its public API
    (``SecretsCollection.scan_file`` under ``transient_settings``): the lines
    of each file are written, in order, to a temporary ``.md`` file (so the
    Markdown rules apply) and each hit is mapped back to its file and line.
    Documented placeholders (:func:`is_placeholder`) are dropped.
    Returns ``{path: {line: [(type, value), ...]}}``."""
    if not todo:
        return {}
    import os
    import tempfile

    from detect_secrets import SecretsCollection
    from detect_secrets.settings import transient_settings

    out: dict[str, dict[int, list[tuple[str, str]]]] = {}
    with tempfile.TemporaryDirectory(prefix="brainwork-secrets-") as folder, transient_settings(_plugins_config()):
        for path, lines in todo:
            tmp = os.path.join(folder, "page.md")
            with open(tmp, "w", encoding="utf-8", errors="surrogateescape", newline="\n") as fh:
                # a lone CR would start a new line when detect-secrets reads the file back
                fh.write("\n".join(text.replace("\r", " ") for _, text in lines))
            found = SecretsCollection()
            found.scan_file(tmp)
            for _, secret in found:
                value = secret.secret_value or ""
                if is_placeholder(value):
                    continue
                line = lines[secret.line_number - 1][0]
                out.setdefault(path, {}).setdefault(line, []).append((secret.type, value))
    return out


def full_scan(path: str, text: str) -> list[tuple[int, str]]:
    """``(line, type)`` of every hit when detect-secrets scans *every* line
    of ``text`` (no gate). Slow; used by the tests to prove the gate loses
    nothing."""
    lines = list(enumerate(text.split("\n"), start=1))
    return sorted({(line, kind) for line, hits in _detect([(path, lines)]).get(path, {}).items() for kind, _ in hits})
