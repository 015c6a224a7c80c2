"""Diary titles: titles that name an event ("Ticket 5120 of 14.09.2026:
certificate for billing expiring") rather than a thing ("Billing certificate").

A memory is searched by *what* something is about; a title built around a
date or a ticket number hides that and multiplies pages about one thing.
Rule: a title is a diary title when it is at least
``Thresholds.diary_title_chars`` characters long or contains a date in any
common form. Recognised date forms (the year always has four digits, so
version numbers such as ``2.1.10`` are not dates)::

    2026-07-29   2026/07/29   2026.07.29          (year first)
    29.07.2026   07/29/2026   29/07/2026   29-07-2026
    29 Jul 2026  29th July 2026  29 July, 2026
    July 29, 2026   Jul 29 2026   July 29th, 2026

Numeric forms must be a possible day and month in some order (``45.13.2026``
is not a date).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_YEAR = r"(?:19|20)\d\d"
_WEEKDAY = r"(?:(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\.?,?\s+)?"
_ORD = r"(?:st|nd|rd|th)?"

#: Every recognised date form, each with named numeric parts for validation.
_DATE = re.compile(
    _WEEKDAY
    + r"(?:"
    + rf"\b(?P<y1>{_YEAR})[-/.](?P<a1>\d{{1,2}})[-/.](?P<b1>\d{{1,2}})\b"
    + rf"|\b(?P<a2>\d{{1,2}})[./-](?P<b2>\d{{1,2}})[./-](?P<y2>{_YEAR})\b"
    + rf"|\b(?P<d3>\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTHS}\.?,?\s+{_YEAR}\b"
    + rf"|\b{_MONTHS}\.?\s+(?P<d4>\d{{1,2}}){_ORD},?\s+{_YEAR}\b"
    + r")",
    re.IGNORECASE,
)

#: Upper-case names that carry a number after a dash or underscore and name
#: a subject, not a ticket ("UTF-8", "SHA-256", "ISO-8601", "RFC-2119",
#: "CVE-2024-3094", "GPT-4", "COVID-19"): an upper-case key with a number is
#: otherwise read as a ticket ("ABC-42").
STANDARD_NAMES = ("UTF", "UCS", "SHA", "MD", "ISO", "IEC", "IEEE", "RFC", "PEP", "ECMA", "CVE", "CWE",
                  "TLS", "SSL", "HTTP", "AES", "RSA", "CRC", "GPT", "COVID", "ANSI", "DIN", "EN")
#: A ticket number or a list of them ("5120", "#12", "5120/5121", "5120 and 5121").
_NUMBERS = r"#?\d+(?:\s*(?:[,/&+]|\band\b|\bor\b)\s*#?\d+)*"
#: Ticket references, which a suggested title drops: a keyword then
#: :data:`_NUMBERS` ("Ticket: 5120", "tickets 5120 and 5121", "No. 5120"),
#: anything glued to ``#123`` ("gh#12"), an upper-case key with a dash or
#: underscore ("ABC-42", "T-5120", "OPS_77"; not :data:`STANDARD_NAMES`;
#: case-sensitive, so "node-20" and "utf-8" stay) and a service-desk number
#: (two or more capitals, then six or more digits: "INC0012345"; six, so
#: that standards such as "ISO27001" stay), each with a "see", "ref" or
#: "fixes" in front of it ("Fix" stays: it names the work). A ticket number
#: tells which event a page came from, never what it is about.
TICKETS = re.compile(
    r"(?:(?i:\b(?:see|refs?|re|cf|per|fixes|closes|resolves)\b)\s*:?\s*)?(?:"
    r"(?i:\b(?:tickets?|issues?|bugs?|incidents?|requests?|reqs?|jira|prs?|mrs?|crs?|sr|inc|chg|ritm)\b"
    r"\s*(?:no\.?|nr\.?|number)?\s*[:#]?\s*" + _NUMBERS + r"\b)"
    r"|(?i:\bno\.\s*" + _NUMBERS + r"\b)"
    r"|[\w./-]*#\d+\b"
    r"|\b(?!(?:" + "|".join(STANDARD_NAMES) + r")[-_]\d)[A-Z][A-Z0-9]*[-_]\d+\b"
    r"(?:\s*(?:[,/&+]|\band\b|\bor\b)\s*(?:[A-Z][A-Z0-9]*[-_])?\d+\b)*"
    r"|\b[A-Z]{2,10}\d{6,}\b"
    r")"
)
#: A preposition left dangling in front of where a date or ticket was.
_DANGLING = re.compile(r"\b(?:of|on|from|at|dated|for|since|until|per)\s*(?=$|[:;,\-–—()|])", re.IGNORECASE)
#: Where a long title may be cut: a conjunction, a dash between spaces,
#: ``:``, ``;`` or ``,`` before a space (or the end) and ``(`` after one —
#: never inside a token, so "s3://bucket/key", "python:latest", "1,000"
#: and "f(x)" stay whole.
_CLAUSE = re.compile(r"\s+(?:and|but|because|so that|which|that|after|before|while|when)\s+|[:;,](?=\s|$)|(?<=\s)\(|[–—]|\s-\s")
_EDGE_PUNCT = " \t-–—:;,.|/()[]"
#: Small words a cut title must not end on ("... the timezone of the").
_TRAILING_SMALL = re.compile(r"(?:\s+(?:a|an|the|of|on|in|at|to|for|with|by|and|or|from|without|about))+$", re.IGNORECASE)


def _valid_numeric(a: str | None, b: str | None) -> bool:
    if a is None or b is None:
        return True
    x, y = int(a), int(b)
    # day/month in either order (29.07 or 07/29)
    return (1 <= x <= 31 and 1 <= y <= 12) or (1 <= x <= 12 and 1 <= y <= 31)


#: Every date form has a four-digit year: titles without one are skipped cheaply.
_YEAR_HINT = re.compile(_YEAR)


def find_dates(title: str) -> list[re.Match]:
    """The date matches in ``title`` (see the module doc for the forms)."""
    if not _YEAR_HINT.search(title):
        return []
    out = []
    for m in _DATE.finditer(title):
        g = m.groupdict()
        if not _valid_numeric(g["a1"], g["b1"]) or not _valid_numeric(g["a2"], g["b2"]):
            continue
        for d in (g["d3"], g["d4"]):
            if d is not None and not 1 <= int(d) <= 31:
                break
        else:
            out.append(m)
    return out


@dataclass(frozen=True)
class DiaryTitle:
    """Why a title is a diary title: ``dates`` (the date texts found),
    ``too_long`` (length >= the threshold), ``length`` (characters) and a
    suggested thing-title (``suggestion``; may be empty if nothing is left)."""

    dates: tuple[str, ...]
    too_long: bool
    length: int
    suggestion: str


def thing_title(title: str, max_chars: int) -> str:
    """A suggested thing-title for ``title``: dates, weekday names, ticket
    references and the "of"/"on" fragments they leave are removed; a title
    still ``max_chars`` or longer is cut at its first clause boundary (" and
    ", ":", ",", ...) or else at a word boundary below ``max_chars``. The
    first letter is upper-cased."""
    text = title
    for m in reversed(find_dates(text)):
        text = text[: m.start()] + " | " + text[m.end() :]
    text = TICKETS.sub(" | ", text)
    for _ in range(3):
        text = _DANGLING.sub(" ", text)
    pieces = [p.strip(_EDGE_PUNCT) for p in text.split("|")]
    pieces = [p for p in pieces if p]
    # The longest remaining piece carries the subject ("certificate for billing expiring").
    text = max(pieces, key=len) if pieces else ""
    text = re.sub(r"\s+", " ", text).strip(_EDGE_PUNCT)
    if len(text) >= max_chars:
        m = _CLAUSE.search(text, 12)
        if m and m.start() < max_chars:
            text = text[: m.start()].strip(_EDGE_PUNCT)
        if len(text) >= max_chars:
            cut = text[: max_chars - 1].rsplit(" ", 1)[0]
            text = _TRAILING_SMALL.sub("", cut.strip(_EDGE_PUNCT)).strip(_EDGE_PUNCT)
    if text:
        text = text[0].upper() + text[1:]
    return text


def diary_title(title: str, max_chars: int) -> DiaryTitle | None:
    """Classify ``title``; ``None`` when it names a thing.

    ``max_chars`` is ``Thresholds.diary_title_chars``: a title of that many
    characters or more is a diary title even without a date.
    """
    title = title.strip()
    dates = tuple(m.group(0).strip() for m in find_dates(title))
    too_long = len(title) >= max_chars
    if not dates and not too_long:
        return None
    return DiaryTitle(dates, too_long, len(title), thing_title(title, max_chars))
