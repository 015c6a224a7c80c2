"""Credentials taken out of what a hook writes into the vault.

A Stop hook writes the person's first prompt, the agent's replies and the
person's push-back into pages; a prompt such as "deploy with key AKIA..."
would put the key in the vault (and in its git history). :func:`redact_texts`
replaces each suspected credential with ``[redacted <kind>]`` (``[redacted
aws access key]``), the kind named by the detector that found it.

Which lines hold a credential is decided by the vault's own secret scan
(:func:`brainwork.analysis.secrets.scan_texts`, the ``secret`` finding and
the capture refusal, placeholders such as AWS's ``...EXAMPLE`` keys left
alone), so a redacted text is one the scan no longer flags. That scan
reports lines, not positions; the values on a flagged line come from the
same two sources it runs: detect-secrets' plugins through its public API
(``SecretsCollection`` under ``transient_settings``, as
:mod:`brainwork.analysis.secrets` runs them, on a ``.md`` file so the
Markdown rules apply) and :func:`brainwork.analysis.secret_patterns.scan_text`.
A value a plugin reports only in part (the GitHub plugin reports the
``ghp`` prefix) is widened to the end of the token it starts. A flagged line whose
values cannot be placed (the scan still flags it after the values are
replaced) is replaced whole: a credential must not reach the vault. A
private key is replaced from its first line to its ``-----END ...`` line
(the scan flags only the first).

Text without a flagged line is returned as it is, without importing
detect-secrets (the scan's gate decides that in microseconds a kilobyte).
"""

from __future__ import annotations

import re

#: What a value is widened over to its right: the rest of the token it
#: starts (base64 and url-safe base64 characters, dots inside it as in a
#: JWT's parts), then base64 padding. A plugin may report only the start of
#: its match (the GitHub plugin: ``ghp``; the JWT plugin: up to the
#: signature).
_TOKEN_TAIL = re.compile(r"(?:[A-Za-z0-9_+/-]|\.(?=[A-Za-z0-9_+/-]))*={0,2}")
#: Spans shorter than this after widening are not redacted: a word, not a key.
_MIN_SPAN_CHARS = 6
#: Generic detectors: a span also found by a specific one is named by it.
_GENERIC = ("Secret Keyword", "Base64 High Entropy String", "Hex High Entropy String", "High Entropy String")
#: detect-secrets' plugin left out by the vault's scan (an IP address is not
#: a credential; as brainwork.analysis.secrets).
_DISABLED_PLUGINS = ("IPPublicDetector",)
_NAME = "hook-record.md"
#: The last line of a PEM or PuTTY private key block.
_KEY_END = re.compile(r"-----END [A-Z0-9 ]*PRIVATE KEY-----|^Private-MAC:")


def _marker(kind: str) -> str:
    return f"[redacted {kind.lower()}]"


def _plugin_values(lines: list[str]) -> list[list[tuple[str, str]]]:
    """``[(value, kind), ...]`` detect-secrets reports on each of ``lines``."""
    import os
    import tempfile

    from detect_secrets import SecretsCollection
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.settings import transient_settings

    plugins = {"plugins_used": [{"name": cls.__name__} for cls in get_mapping_from_secret_type_to_class().values()
                                if cls.__name__ not in _DISABLED_PLUGINS]}
    out: list[list[tuple[str, str]]] = [[] for _ in lines]
    with tempfile.TemporaryDirectory(prefix="brainwork-redact-") as folder, transient_settings(plugins):
        path = os.path.join(folder, _NAME)
        with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="\n") as fh:
            fh.write("\n".join(line.replace("\r", " ") for line in lines))
        found = SecretsCollection()
        found.scan_file(path)
        for _, secret in found:
            if secret.secret_value and 1 <= secret.line_number <= len(lines):
                out[secret.line_number - 1].append((secret.secret_value, secret.type))
    return out


def _spans(line: str, values: list[tuple[str, str]]) -> list[tuple[int, int, str]]:
    """``(start, end, kind)`` of every occurrence of ``values`` in ``line``,
    each widened to the end of its token (:data:`_TOKEN_TAIL`); overlaps
    merged into one span, named by a specific detector where one found it."""
    from brainwork.analysis.secret_patterns import is_placeholder

    spans = []
    for value, kind in values:
        value = value.strip().strip("\"'`")
        if any(c.isspace() for c in value) and not any(f"{q}{value}{q}" in line for q in "\"'`"):
            # detect-secrets' keyword plugin takes an unquoted value to the
            # line's end (``password=hunter2 please``): the value is its first word
            value = value.split()[0]
        if not value or is_placeholder(value):
            continue
        i = line.find(value)
        while i >= 0:
            end = _TOKEN_TAIL.match(line, i + len(value)).end()
            if end - i >= _MIN_SPAN_CHARS:
                spans.append((i, end, kind))
            i = line.find(value, i + 1)
    spans.sort(key=lambda s: (s[0], -s[1]))
    merged: list[tuple[int, int, str]] = []
    for a, b, kind in spans:
        if merged and a < merged[-1][1]:
            pa, pb, pkind = merged[-1]
            merged[-1] = (pa, max(pb, b), kind if pkind in _GENERIC and kind not in _GENERIC else pkind)
        else:
            merged.append((a, b, kind))
    return merged


def _replace(line: str, spans: list[tuple[int, int, str]]) -> str:
    for a, b, kind in reversed(spans):
        line = line[:a] + _marker(kind) + line[b:]
    return line


def redact_texts(texts: list[str]) -> list[str]:
    """``texts`` with every credential the vault's secret scan finds
    replaced by ``[redacted <kind>]``; other text, line ends included, is
    kept byte for byte. One scan for all the texts."""
    from brainwork.analysis.secrets import scan_texts
    from brainwork.analysis.secret_patterns import scan_text

    names = [f"{i}-{_NAME}" for i in range(len(texts))]
    flagged = scan_texts(zip(names, texts))
    if not flagged:
        return list(texts)
    out = list(texts)
    for i, name in enumerate(names):
        if name not in flagged:
            continue
        lines = texts[i].split("\n")
        numbers = sorted({h.line for h in flagged[name]})
        kinds = {h.line: h.kind for h in flagged[name]}
        by_line = dict(zip(numbers, _plugin_values([lines[n - 1] for n in numbers])))
        for h in scan_text(texts[i]):
            by_line.setdefault(h.line, []).append((h.value, h.kind))
        for n in numbers:
            lines[n - 1] = _replace(lines[n - 1], _spans(lines[n - 1], by_line.get(n, [])))
        for n in reversed(numbers):  # the scan flags a key block's first line; the key is below it
            if kinds.get(n) == "Private Key" or any(k == "Private Key" for _v, k in by_line.get(n, [])):
                end = next((j for j in range(n - 1, len(lines)) if _KEY_END.search(lines[j])), len(lines) - 1)
                cr = "\r" if lines[end].endswith("\r") else ""
                lines[n - 1 : end + 1] = [_marker("private key") + cr]
        text = "\n".join(lines)
        # a value that could not be placed: its whole line goes
        still = scan_texts([(name, text)]).get(name, [])
        if still:
            lines = text.split("\n")
            for h in still:
                lines[h.line - 1] = _marker(f"line ({kinds.get(h.line, h.kind)})")
            text = "\n".join(lines)
        out[i] = text
    return out


def redact(text: str) -> str:
    """One text through :func:`redact_texts`."""
    return redact_texts([text])[0]
