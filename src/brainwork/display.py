"""Vault text made safe to show on a terminal.

Titles, file names, field values and bodies come from files anyone can write.
A control character printed raw is an instruction to the terminal: ``ESC ]
0 ; ... BEL`` sets its title, ``ESC [ 2 J`` clears it, a lone ``CR`` lets one
line overwrite another, 8-bit ``CSI`` (U+009B) does the same as ``ESC [`` on
some terminals, and the bidirectional overrides (U+202A-U+202E,
U+2066-U+2069) make text read differently from what it is. Text output (the
CLI's :func:`brainwork.cli.common.echo`, the workbench) shows each such
character as a visible escape (``\\x1b``, ``\\u202e``) instead; newline and
tab stay, and a CRLF line end is shown as a plain line end. JSON output keeps
every value exact: :func:`json_safe` only spells those characters as JSON
``\\u`` escapes, which decode to the same string.
"""

from __future__ import annotations

import re

#: C0 controls but tab and newline, DEL, C1 controls, bidi embeddings,
#: overrides and isolates.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
#: The same set as JSON would leave raw with ``ensure_ascii=False`` (it
#: escapes C0 itself).
_JSON_RAW = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _visible(m: re.Match) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every control character (see the module doc) shown as
    an escape; ``"a\\x1b]0;pwned\\x07b"`` -> ``"a\\\\x1b]0;pwned\\\\x07b"``."""
    if not isinstance(text, str):
        text = str(text)
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
    return _CONTROL.sub(_visible, text)


def json_safe(encoded: str) -> str:
    """JSON text (from ``json.dumps(..., ensure_ascii=False)``) with DEL, C1
    and bidi controls written as ``\\uXXXX``: the same JSON value, nothing a
    terminal acts on. Safe because those characters can only occur inside
    JSON strings."""
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", encoded)


def _pictures() -> dict[int, str | None]:
    table: dict[int, str | None] = {c: chr(0x2400 + c) for c in range(0x20) if c not in (0x09, 0x0A)}
    table[0x0D] = None  # CR: dropped, so a CRLF line end is a line end (Rich and Textual do the same)
    table[0x7F] = "\u2421"  # DEL
    for c in (*range(0x80, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A)):
        table[c] = "\ufffd"
    return table


#: ``str.translate`` table for a screen that lays text out cell by cell (the
#: workbench): each control character becomes ONE visible character (a
#: Unicode control picture, ``ESC`` -> U+241B; C1 and bidi controls ->
#: U+FFFD), so styled spans over the text keep their offsets.
CONTROL_PICTURES: dict[int, str | None] = _pictures()
