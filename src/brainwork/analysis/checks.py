"""One function per finding code, each ``(Context) -> list[Finding]``.

The :class:`Context` loads what the checks share from the store once (pages
with their bodies, link rows, parse errors), lazily, so ``--code stub`` does
not read the links. Rules and thresholds per code: docs/findings.md.
"""

from __future__ import annotations

import math
import os
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from functools import cached_property
from typing import Callable, Iterable, Iterator

import numpy as np
import yaml
from rapidfuzz import fuzz, process, utils

from brainwork.vault.dates import date_problem
from brainwork.analysis.duplicates import comparable_names, find_duplicates_streamed
from brainwork.analysis.finding import (
    AmbiguousLinkEvidence, DeadLinkEvidence, DiaryTitleEvidence, DuplicateEvidence, Finding,
    InvalidFieldEvidence, OrphanEvidence, OversizeEvidence, ParseErrorEvidence, SecretEvidence, SplitPoint,
    StubEvidence, Suggestion, UntypedEvidence,
)
from brainwork.analysis.secrets import scan_texts
from brainwork.analysis.text import visible_chars
from brainwork.analysis.titles import diary_title
from brainwork.config import Config
from brainwork.model import ParseError
from brainwork.store import Store
from brainwork.store import graph, quality, vectors
from brainwork.store.quality import LinkRow, PageHeads
from brainwork.vault.frontmatter import is_null
from brainwork.vault.links import mask_non_links
from brainwork.vault.parse import page_id
from brainwork.vault.resolve import Resolver, norm
from brainwork.vocabulary import THING_TYPES, TYPE_FIELDS

_H1 = re.compile(r"^#[ \t]+\S", re.MULTILINE)
_H2 = re.compile(r"^##[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


class Context:
    """What the checks share, loaded from the store on first use."""

    def __init__(self, config: Config, store: Store):
        self.config = config
        self.store = store
        self.t = config.thresholds

    @cached_property
    def pages(self) -> PageHeads:
        """Columns of every Markdown page but the bodies (see
        :func:`brainwork.store.quality.page_heads`); the bodies are read
        when a check needs them (:meth:`bodies`, :meth:`bodies_of`), so they
        are never all held at once: at 50,000 pages one read of every page
        with its body held ~270 MB (Kùzu's memory and the strings)."""
        return quality.page_heads(self.store)

    def bodies(self) -> Iterator[str]:
        """Every page's body (Markdown after the frontmatter, ``''`` when
        empty), in the order of :attr:`pages`, read a chunk at a time."""
        for part in quality.body_chunks(self.store, self.pages.id):
            yield from part

    def bodies_of(self, rows: Iterable[int]) -> dict[int, str]:
        """``{row: body}`` for the given rows of :attr:`pages`."""
        return quality.bodies_of(self.store, self.pages.id, set(rows))

    @cached_property
    def names(self) -> list[list[str]]:
        """Each page's title, aliases and file name, through
        :func:`~brainwork.analysis.duplicates.comparable_names` (the
        non-empty ones but template placeholders, through rapidfuzz's
        ``default_process``): what the retargets of dead links and the
        duplicate names are compared as."""
        p = self.pages
        return [comparable_names((p.title[i], *p.aliases[i], pid.rsplit("/", 1)[-1])) for i, pid in enumerate(p.id)]

    @cached_property
    def index(self) -> dict[str, int]:
        """Page id -> row in :attr:`pages`."""
        return {pid: i for i, pid in enumerate(self.pages.id)}

    @cached_property
    def attachments(self) -> list[str]:
        return quality.attachment_ids(self.store)

    @cached_property
    def links(self) -> list[LinkRow]:
        return quality.link_rows(self.store)

    @cached_property
    def parse_errors(self) -> list[ParseError]:
        return graph.parse_errors(self.store)

    @cached_property
    def broken(self) -> set[str]:
        """Page ids with a parse error: their frontmatter or body may be
        incomplete, so content checks (type, stub, title) skip them; the
        ``parse-error`` finding already names the problem."""
        return {page_id(e.path) for e in self.parse_errors}

    def row(self, pid: str) -> int:
        return self.index[pid]

    def path_of(self, pid: str) -> str:
        i = self.index.get(pid)
        return self.pages.path[i] if i is not None else pid

    def file_lines(self, pid: str) -> list[str]:
        """The page file's lines (read from the vault; [] if unreadable)."""
        try:
            text = (self.config.vault / self.path_of(pid)).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
        return text.lstrip("\ufeff").split("\n")

    def key_line(self, pid: str, key: str) -> int | None:
        """1-based line of the top-level frontmatter ``key:``, or None."""
        body_line = self.pages.body_line[self.row(pid)] or 1
        pattern = re.compile(rf"^['\"]?{re.escape(key)}['\"]?\s*:", re.IGNORECASE)
        for n, line in enumerate(self.file_lines(pid)[: body_line - 1], start=1):
            if n > 1 and pattern.match(line):
                return n
        return None


def read_texts(vault: str, paths: Iterable[str]) -> Iterator[tuple[str, str]]:
    """``(path, text)`` of each readable file under ``vault``: decoded as
    UTF-8 with replacement, line ends made ``\\n``, a byte-order mark
    dropped (an unreadable file is left out; the index names it)."""
    # Read as bytes and decoded at once: what ``read_text(encoding="utf-8",
    # errors="replace")`` gives (universal newlines included) at half the
    # cost of a text-mode file's decoder.
    for path in paths:
        try:
            with open(os.path.join(vault, path), "rb") as fh:
                text = fh.read().decode("utf-8", errors="replace")
        except OSError:
            continue
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        yield path, text.lstrip("\ufeff")


def _finding(ctx: Context, code: str, pid: str, line: int, message: str, key: str, **kw) -> Finding:
    return Finding(code=code, path=ctx.path_of(pid), page=pid, line=max(1, int(line or 1)), message=message,
                   key=f"{code}:{key}", **kw)


# -- parse errors -------------------------------------------------------------
def parse_error(ctx: Context) -> list[Finding]:
    out = []
    for e in ctx.parse_errors:
        path = e.path
        pid = page_id(path) if path.lower().endswith(".md") else path
        out.append(
            Finding(code="parse-error", path=path, page=pid, line=max(1, e.line or 1), message=e.message,
                    evidence=ParseErrorEvidence(line=e.line), key=f"parse-error:{path}|{e.message}")
        )
    return out


def _shown(value: str | None, kind: str = "text") -> str:
    """A frontmatter value for a message: quoted text, or what it is."""
    return repr(value) if value is not None else f"(a {kind})"


# -- links ----------------------------------------------------------------------
def orphan(ctx: Context) -> list[Finding]:
    """Pages with no live edge to or from another page (links to attachments
    and dead links do not connect a page to the memory). A page with a parse
    error is left out: its links may not have been read (not UTF-8, over the
    size limit), and its ``parse-error`` finding already names it."""
    pages = set(ctx.pages.id)
    connected: set[str] = set()
    dead: Counter[str] = Counter()
    attach: Counter[str] = Counter()
    for r in ctx.links:
        if r.dead:
            dead[r.file] += 1
        elif r.src in pages and r.dst in pages:
            if r.src != r.dst:
                connected.add(r.src)
                connected.add(r.dst)
        else:
            attach[r.file] += 1
    out = []
    broken = ctx.broken
    for pid in ctx.pages.id:
        if pid in connected or pid in broken:
            continue
        extra = []
        if dead[pid]:
            extra.append(f"{dead[pid]} dead")
        if attach[pid]:
            extra.append(f"{attach[pid]} to attachments only")
        note = f" ({', '.join(extra)})" if extra else ""
        out.append(
            _finding(ctx, "orphan", pid, 1, f"no links to or from other pages{note}", pid,
                     evidence=OrphanEvidence(dead_links=dead[pid], attachment_links=attach[pid]))
        )
    return out


def _name_choices(ctx: Context) -> tuple[list[str], list[list[str]]]:
    """(distinct processed names, the ids owning each) over every page's
    title, aliases and file name, and every attachment's file name."""
    owners: dict[str, list[str]] = {}
    for pid, names in zip(ctx.pages.id, ctx.names):
        for name in set(names):
            if name:
                owners.setdefault(name, []).append(pid)
    for aid in ctx.attachments:
        owners.setdefault(utils.default_process(aid.rsplit("/", 1)[-1]), []).append(aid)
    names = list(owners)
    return names, [owners[n] for n in names]


def dead_link(ctx: Context) -> list[Finding]:
    """One finding per dead link occurrence, with up to three retargets: the
    pages one of whose names (title, alias, file name) is most similar to
    the written target's last path part (``fuzz.ratio`` >=
    ``retarget_similarity``; a folder in the target is not compared, since
    every page in that folder would share it)."""
    rows = sorted((r for r in ctx.links if r.dead), key=lambda r: (r.file, r.line, r.target))
    if not rows:
        return []
    targets = sorted({r.target for r in rows})
    names, owners = _name_choices(ctx)
    cutoff = ctx.t.retarget_similarity * 100
    suggestions: dict[str, list[tuple[str, float]]] = {}
    if names:
        queries = [utils.default_process(t.removesuffix(".md").rsplit("/", 1)[-1]) for t in targets]
        # fuzz.ratio(a, b) <= 2 min(|a|, |b|) / (|a| + |b|), so only names of
        # a length near the query's can reach the cutoff: queries of one
        # length are scored against that window of names only (with a margin
        # for rounding), which gives the scores a full matrix would.
        order = sorted(range(len(names)), key=lambda j: len(names[j]))
        lengths = [len(names[j]) for j in order]
        c = max(cutoff / 100 - 0.01, 1e-6)
        by_len: dict[int, list[int]] = {}
        for qi, q in enumerate(queries):
            by_len.setdefault(len(q), []).append(qi)
        for la, qis in by_len.items():
            lo = bisect_left(lengths, math.floor(la * c / (2 - c)))
            hi = bisect_right(lengths, math.ceil(la * (2 - c) / c))
            window = order[lo:hi]
            if not window:
                for qi in qis:
                    suggestions[targets[qi]] = []
                continue
            window_names = [names[j] for j in window]
            # A score matrix of at most ~20 million cells at a time (20 MB), on every core.
            step = max(1, 20_000_000 // len(window))
            for start in range(0, len(qis), step):
                part = qis[start : start + step]
                scores = process.cdist([queries[qi] for qi in part], window_names, scorer=fuzz.ratio,
                                       processor=None, dtype=np.uint8, score_cutoff=cutoff, workers=-1)
                for qi, row in zip(part, scores):
                    best: dict[str, float] = {}
                    for k in np.flatnonzero(row):
                        s = float(row[k]) / 100
                        for owner in owners[window[k]]:
                            if s > best.get(owner, -1):
                                best[owner] = s
                    suggestions[targets[qi]] = sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    out = []
    for r in rows:
        sugg = suggestions.get(r.target, [])
        hint = f"; did you mean {', '.join(repr(s[0]) for s in sugg)}?" if sugg else ""
        out.append(
            _finding(ctx, "dead-link", r.file, r.line, f"link to missing page {r.target!r}{hint}",
                     f"{r.file}|{norm(r.target)}", target=r.target,
                     score=sugg[0][1] if sugg else None, other=sugg[0][0] if sugg else None,
                     evidence=DeadLinkEvidence(place=r.place, suggestions=[Suggestion(page=s, similarity=v) for s, v in sugg],
                                               retarget_similarity=ctx.t.retarget_similarity))
        )
    return out


def ambiguous_link(ctx: Context) -> list[Finding]:
    """Live links the indexer marked ambiguous; the candidates are found
    again with the same resolver the indexer uses."""
    rows = sorted((r for r in ctx.links if r.ambiguous and not r.dead), key=lambda r: (r.file, r.line))
    if not rows:
        return []
    p = ctx.pages
    resolver = Resolver(p.id, ctx.attachments, {pid: [p.title[i], *p.aliases[i]] for i, pid in enumerate(p.id)})
    out = []
    for r in rows:
        res = resolver.resolve(r.target, r.file)
        cands = list(res.candidates) or [r.dst]
        out.append(
            _finding(ctx, "ambiguous-link", r.file, r.line,
                     f"link {r.target!r} fits {len(cands)} pages ({', '.join(cands)}); it goes to {res.page or cands[0]}",
                     f"{r.file}|{norm(r.target)}", target=r.target, other=res.page or cands[0],
                     evidence=AmbiguousLinkEvidence(candidates=cands, place=r.place))
        )
    return out


# -- page content -----------------------------------------------------------------
def _folder_types(ctx: Context) -> dict[str, str]:
    """Folder -> the type most of its typed pages have (more than half, at
    least two pages)."""
    allowed = set(ctx.config.page_types)
    by_folder: dict[str, Counter[str]] = {}
    for pid, t in zip(ctx.pages.id, ctx.pages.type):
        if t in allowed:
            by_folder.setdefault(pid.rpartition("/")[0], Counter())[t] += 1
    out = {}
    for folder, c in by_folder.items():
        t, n = c.most_common(1)[0]
        if n >= 2 and n * 2 > sum(c.values()):
            out[folder] = t
    return out


def untyped(ctx: Context) -> list[Finding]:
    allowed = tuple(ctx.config.page_types)
    folder_types: dict[str, str] | None = None
    out = []
    for i, pid in enumerate(ctx.pages.id):
        t = ctx.pages.type[i]
        if (t in allowed) or pid in ctx.broken:
            continue
        if folder_types is None:
            folder_types = _folder_types(ctx)
        folder = pid.rpartition("/")[0]
        suggestion, why = None, None
        if t:
            close = process.extractOne(t, allowed, scorer=fuzz.ratio, processor=utils.default_process, score_cutoff=75)
            if close:
                suggestion, why = close[0], f"closest to {t!r}"
        if suggestion is None and folder in folder_types:
            suggestion, why = folder_types[folder], f"the type of most pages in {folder}/"
        hint = f"; suggested {suggestion!r} ({why})" if suggestion else ""
        if t:
            line = ctx.key_line(pid, "type") or 1
            reads_as = _reads_as(t)
            if reads_as:
                msg = f"type {t} is {reads_as}, not one of the vault's types ({', '.join(allowed)}){hint}"
            else:
                msg = f"type {t!r} is not in the vocabulary{hint}"
        else:
            line, msg = 1, f"no type{hint}"
        out.append(
            _finding(ctx, "untyped", pid, line, msg, pid, target=suggestion,
                     evidence=UntypedEvidence(type=t, allowed=list(allowed), suggestion=suggestion, why=why))
        )
    return out


#: What YAML 1.1's resolver (PyYAML's, for plain scalars) makes of a value
#: that is not a word.
_READS_AS = {"tag:yaml.org,2002:int": "a number", "tag:yaml.org,2002:float": "a number",
             "tag:yaml.org,2002:bool": "a boolean", "tag:yaml.org,2002:timestamp": "a date"}
_RESOLVER = yaml.resolver.Resolver()


def _reads_as(value: str) -> str | None:
    """``"a number"``, ``"a boolean"`` or ``"a date"`` when ``value``, read
    as a plain YAML scalar, is one (the store keeps every scalar as text, so
    ``type: 123`` arrives as ``"123"``); None for a word."""
    return _READS_AS.get(_RESOLVER.resolve(yaml.nodes.ScalarNode, value, (True, False)))


_DATE_EXPECTED = "a date YYYY-MM-DD (e.g. 2026-07-29), or a date and time YYYY-MM-DDTHH:MM"


def invalid_field(ctx: Context) -> list[Finding]:
    """Frontmatter values the vault's format does not accept, at the key's
    line: a ``created``/``updated`` that is not a calendar date, and a field
    with a fixed set of values in its page type's vocabulary
    (:data:`brainwork.vocabulary.TYPE_FIELDS`: a task's ``outcome``, a
    source's ``reliability``, a correction's or rule's ``status``) holding
    another. A null or empty value is an absent field, not an invalid one.

    Read from the store's columns and, for the types with such a field, its
    frontmatter (the last value of a repeated key, as YAML keeps it); only a
    flagged page's file is read, for the key's line."""
    fixed = {t: {k: v for k, v in f.items() if v} for t, f in TYPE_FIELDS.items()}
    fixed = {t: f for t, f in fixed.items() if f}
    # ``status`` is a column of its own; the other fixed fields are read from the frontmatter
    rows = quality.field_rows(ctx.store, sorted(t for t, f in fixed.items() if set(f) - {"status"}))
    broken = ctx.broken
    out = []
    for row in rows:
        if row.id in broken:  # no fields were read: the parse-error finding names why
            continue
        checks_ = [("created", None, row.created), ("updated", None, row.updated)]
        checks_ += [(k, allowed, row.status if k == "status" else (row.fields or {}).get(k))
                    for k, allowed in fixed.get(row.type or "", {}).items()]
        for field_, allowed, value in checks_:
            if is_null(value) or value == []:
                continue
            kind = "text" if isinstance(value, str) else ("list" if isinstance(value, list) else "mapping")
            text = value if kind == "text" else None
            if allowed is None:
                problem = date_problem(text) if text is not None else "not a date"
                if problem is None:
                    continue
                expected = _DATE_EXPECTED
                msg = f"{field_} {_shown(text, kind)} is {problem}; write {expected}"
            else:
                if text is not None and text.strip() in allowed:
                    continue
                expected = f"one of {', '.join(allowed)}"
                msg = (f"{field_} {_shown(text, kind)} is not one of the {row.type} {field_} values "
                       f"({', '.join(allowed)})")
            out.append(
                _finding(ctx, "invalid-field", row.id, ctx.key_line(row.id, field_) or 1, msg, f"{row.id}|{field_}",
                         target=field_, evidence=InvalidFieldEvidence(field=field_, value=text,
                                                                      allowed=list(allowed or ()), expected=expected))
            )
    return out


def _text_keys(type_: str | None) -> list[str]:
    """A record type's free-text frontmatter keys (a captured task's
    ``request``/``summary``, a correction's ``wrong``/``correct``/``why``...:
    :data:`brainwork.vocabulary.TYPE_FIELDS` keys without a fixed set of
    values). Capture writes a record's text there and nothing in its body."""
    return [k for k, allowed in TYPE_FIELDS.get(type_ or "", {}).items() if allowed is None]


def _has_record_text(fields: dict | None, keys: list[str]) -> bool:
    """Whether a page's frontmatter ``fields`` (None: the page is not in the
    store) hold visible text under any of ``keys``."""
    return fields is not None and any(isinstance(v := fields.get(k), str) and visible_chars(v, at_least=1)
                                      for k in keys)


def _stub_line(ctx: Context, i: int, empty: bool) -> int:
    """The line a stub finding names: the body's first line. A file that
    ends at the frontmatter's closing ``---`` has no body line (the body's
    line number is one past its end): its last line then."""
    line = ctx.pages.body_line[i] or 1
    if empty and line > 1:
        lines = ctx.file_lines(ctx.pages.id[i])
        last = len(lines) - (1 if lines and lines[-1] == "" else 0)
        line = min(line, max(1, last))
    return line


def stub(ctx: Context) -> list[Finding]:
    """Pages with fewer than ``stub_chars`` characters of body text. A
    record (a type with free-text fields: task, correction, rule, ...) is
    written frontmatter-first: when any of those fields holds text, that is
    its content and it is not a stub, whatever its body."""
    limit = ctx.t.stub_chars
    short: list[tuple[int, int, bool]] = []  # (row, body characters, body empty) of the pages short of the limit
    broken = ctx.broken
    for i, (pid, body) in enumerate(zip(ctx.pages.id, ctx.bodies())):
        if pid in broken:
            continue
        n = visible_chars(body, at_least=limit)
        if n < limit:
            short.append((i, n, not body))
    # The fields of the short records, read in one query rather than one
    # graph.get_page per page (a query each, and each reads the body too).
    keyed = [i for i, _, _ in short if _text_keys(ctx.pages.type[i])]
    fields = quality.page_fields(ctx.store, [ctx.pages.id[i] for i in keyed]) if keyed else {}
    out = []
    for i, n, empty in short:
        pid = ctx.pages.id[i]
        keys = _text_keys(ctx.pages.type[i])
        if keys and _has_record_text(fields.get(pid), keys):
            continue
        out.append(
            _finding(ctx, "stub", pid, _stub_line(ctx, i, empty),
                     f"only {n} characters of body text (a stub has fewer than {limit})", pid, score=float(n),
                     evidence=StubEvidence(chars=n, stub_chars=limit))
        )
    return out


def _title_lines(ctx: Context, pids: list[str]) -> list[int]:
    """The line of each page's title: its frontmatter ``title:`` key, else
    its first ``# `` heading, else 1 (the bodies read only for the pages
    without the key)."""
    lines = [ctx.key_line(pid, "title") for pid in pids]
    bodies = ctx.bodies_of(ctx.row(pid) for pid, line in zip(pids, lines) if not line)
    out = []
    for pid, line in zip(pids, lines):
        if not line:
            i = ctx.row(pid)
            body = bodies[i]
            line = 1
            if "#" in body:
                m = _H1.search(mask_non_links(body))
                if m:
                    line = (ctx.pages.body_line[i] or 1) + body.count("\n", 0, m.start())
        out.append(line)
    return out


def _sorted_words(text: str) -> str:
    return " ".join(sorted(utils.default_process(text).split()))


def _resembling_things(ctx: Context, suggestions: list[str], things: list[tuple[str, str]]) -> list[tuple[int, float] | None]:
    """For each suggested title, the index of the most similar thing title
    and its token-sort ratio (0..1) when >= ``thing_title_similarity``.

    Token-sort ratio is the plain ratio of the sorted words, so the words are
    sorted once here and every pair is scored in C (rapidfuzz ``cdist`` on
    both cores, in bounded chunks)."""
    out: list[tuple[int, float] | None] = [None] * len(suggestions)
    if not things or not suggestions:
        return out
    choices = [_sorted_words(t) for _, t in things]
    queries = [_sorted_words(s) if s else "" for s in suggestions]
    cutoff = ctx.t.thing_title_similarity * 100
    step = max(1, 20_000_000 // len(choices))
    for start in range(0, len(queries), step):
        scores = process.cdist(queries[start : start + step], choices, scorer=fuzz.ratio, processor=None,
                               dtype=np.uint8, score_cutoff=cutoff, workers=-1)
        for k, row in enumerate(scores):
            j = int(np.argmax(row))
            if row[j] and queries[start + k]:
                out[start + k] = (j, float(row[j]) / 100)
    return out


def diary_title_check(ctx: Context) -> list[Finding]:
    limit = ctx.t.diary_title_chars
    p = ctx.pages
    flagged = []
    for i, pid in enumerate(p.id):
        if pid in ctx.broken:
            continue
        d = diary_title(p.title[i] or "", limit)
        if d is not None:
            flagged.append((pid, i, d))
    if not flagged:
        return []
    things = [(pid, p.title[i]) for i, pid in enumerate(p.id) if p.type[i] in THING_TYPES and p.title[i]]
    resembling = _resembling_things(ctx, [d.suggestion for _, _, d in flagged], things)
    title_lines = _title_lines(ctx, [pid for pid, _, _ in flagged])
    out = []
    for (pid, i, d), best, title_line in zip(flagged, resembling, title_lines):
        resembles, similarity = None, None
        if best is not None and things[best[0]][0] != pid:
            resembles, similarity = things[best[0]][0], best[1]
        why = []
        if d.dates:
            why.append(f"date {d.dates[0]!r}")
        if d.too_long:
            why.append(f"{d.length} characters, {limit} or more")
        hint = f"; try {d.suggestion!r}" if d.suggestion else ""
        if resembles:
            hint += f" or the existing page {resembles}"
        out.append(
            _finding(ctx, "diary-title", pid, title_line,
                     f"title names an event ({', '.join(why)}){hint}", pid,
                     target=d.suggestion or None, score=float(d.length), other=resembles,
                     evidence=DiaryTitleEvidence(title=p.title[i], dates=list(d.dates), length=d.length,
                                                 diary_title_chars=limit, suggestion=d.suggestion,
                                                 resembles=resembles, resembles_similarity=similarity))
        )
    return out


def _embeddings(ctx: Context, ids: list[str]) -> dict[str, np.ndarray]:
    """Cached page embeddings of ``ids`` (none when the store has none)."""
    try:
        if not vectors.count(ctx.store):
            return {}
        return vectors.vectors(ctx.store, ids)
    except RuntimeError:  # the embeddings table does not exist in this store
        return {}


def duplicate(ctx: Context) -> list[Finding]:
    p = ctx.pages
    t = ctx.t
    vecs = _embeddings(ctx, p.id)
    pairs = find_duplicates_streamed(p.id, ctx.names, ctx.bodies(), ctx.bodies_of, t.duplicate_similarity,
                                     t.merge_candidate_similarity, t.duplicate_name_weight, vecs)
    out = []
    for d in pairs:
        kind = "merge candidate" if d.merge else "possible duplicate"
        how = f"names {d.names:.2f}, body {d.body:.2f}"
        if d.semantic is not None:
            how += f", meaning {d.semantic:.2f}"
        out.append(
            _finding(ctx, "duplicate", d.a, 1,
                     f"{kind}: {d.b} (similarity {d.score:.2f} >= {t.duplicate_similarity:.2f}; {how})",
                     f"{d.a}|{d.b}", score=d.score, other=d.b,
                     evidence=DuplicateEvidence(similarity=d.score, lexical=d.lexical, names=d.names, body=d.body,
                                                semantic=d.semantic, merge_candidate=d.merge,
                                                duplicate_similarity=t.duplicate_similarity,
                                                merge_candidate_similarity=t.merge_candidate_similarity,
                                                name_weight=t.duplicate_name_weight,
                                                formula="lexical = w*names + (1-w)*body; similarity = lexical, "
                                                        "or (lexical + semantic)/2 with embeddings"))
        )
    return out


def oversize(ctx: Context) -> list[Finding]:
    limit = ctx.t.oversize_bytes
    p = ctx.pages
    bodies = ctx.bodies_of(i for i, size in enumerate(p.size) if (size or 0) > limit)
    out = []
    for i, pid in enumerate(p.id):
        size = p.size[i] or 0
        if size <= limit:
            continue
        body = bodies[i]
        start = p.body_line[i] or 1
        masked = mask_non_links(body)
        heads = [SplitPoint(line=start + body.count("\n", 0, m.start()), heading=m.group(1)) for m in _H2.finditer(masked)]
        hint = f"split at its {len(heads)} '## ' headings" if heads else "it has no '## ' headings to split at"
        out.append(
            _finding(ctx, "oversize", pid, 1, f"{size:,} bytes, over {limit:,}; {hint}", pid, score=float(size),
                     evidence=OversizeEvidence(bytes=size, oversize_bytes=limit, split_points=heads))
        )
    return out


#: Files scanned for secrets at a time: the scan holds each file's text, its
#: lower-cased copy and both joined (~4 bytes of memory per byte of text),
#: ~240 MB for all of a 50,000-page vault at once; per 5,000 files ~25 MB.
#: Every hit is found within its own line, so the batches change nothing.
SECRET_BATCH = 5_000


def secret(ctx: Context) -> list[Finding]:
    """Scans each page file as it is on disk (frontmatter included)."""
    vault = str(ctx.config.vault)
    by_path = {path: pid for pid, path in zip(ctx.pages.id, ctx.pages.path)}
    paths = ctx.pages.path
    out = []
    for start in range(0, len(paths), SECRET_BATCH):
        for path, hits in scan_texts(read_texts(vault, paths[start : start + SECRET_BATCH])).items():
            pid = by_path[path]
            for h in hits:
                out.append(
                    _finding(ctx, "secret", pid, h.line,
                             f"possible {h.kind} ({h.masked}); credentials do not belong in memory",
                             f"{pid}|{h.digest}", target=None,
                             evidence=SecretEvidence(kind=h.kind, kinds=list(h.kinds), masked=h.masked, digest=h.digest))
                )
    return out


CHECKS: dict[str, Callable[[Context], list[Finding]]] = {
    "parse-error": parse_error,
    "orphan": orphan,
    "dead-link": dead_link,
    "ambiguous-link": ambiguous_link,
    "untyped": untyped,
    "invalid-field": invalid_field,
    "stub": stub,
    "diary-title": diary_title_check,
    "duplicate": duplicate,
    "oversize": oversize,
    "secret": secret,
}
