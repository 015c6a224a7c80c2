"""Rewrite links when pages change name or place (shared by rename, merge,
split and the dead-link fixes).

A link is rewritten if and only if the store's resolution (the same
:class:`~brainwork.vault.resolve.Resolver` rules the indexer uses, over the
indexed pages) sends it to a page being renamed or merged away, or if it is
written in a file that moves and would resolve elsewhere from the new folder.
Only the target text inside the link changes (the span between ``[[`` and
``#``/``|``/``]]``, or the path part of a Markdown link's destination):
labels, headings, block references, the ``!`` of embeds and every other byte
stay. The new target keeps the old one's form where it still resolves
unambiguously: a bare name stays a bare name, a path stays a path (relative
stays relative, ``.md`` stays), a Markdown destination keeps its
URL-encoding, an all-lower-case or all-upper-case target keeps that case.

After planning, every changed file is parsed again and every link checked to
resolve where it should; links elsewhere in the vault that would silently
change target (e.g. a new file name capturing another page's links) make the
operation refuse with :class:`~brainwork.errors.UserError`.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from dataclasses import dataclass, field
from urllib.parse import quote, unquote

from brainwork.errors import UserError
from brainwork.index.incremental import link_keys, may_mention
from brainwork.index.rows import links_from_json  # the indexer's stored link JSON
from brainwork.model import Link
from brainwork.store import Store
from brainwork.store import graph
from brainwork.vault.links import MDLINK, WIKILINK, body_links, split_inner
from brainwork.vault.parse import BOM, page_id, parse_text
from brainwork.vault.resolve import Resolver, norm
from brainwork.wording import counted

#: Characters a wikilink target cannot hold (they end or split the link).
BAD_TARGET_CHARS = re.compile(r"[\[\]|#^\x00-\x1f\x7f]")
_MD_SAFE = "/-._~!$&'*+,;=:@"
#: Parse-error messages of files whose links the index does not know
#: (vault.parse and index.sync word them so).
_NOT_PARSED = re.compile(r"not parsed$|^cannot read|skipped$")


@dataclass(frozen=True)
class LinkEdit:
    """One rewritten link: ``path`` the file (as it is named before the
    operation), ``line`` 1-based, ``where`` body/frontmatter, ``old``/``new``
    the link's full text before and after."""

    path: str
    line: int
    where: str
    old: str
    new: str

    def to_json(self) -> dict:
        return {"path": self.path, "line": self.line, "where": self.where, "old": self.old, "new": self.new}


@dataclass(frozen=True)
class LinkNote:
    """A link elsewhere whose resolution the operation changes:
    ``before``/``after`` page ids (None = dead)."""

    path: str
    line: int
    target: str
    before: str | None
    after: str | None


class VaultLinks:
    """A snapshot of the indexed vault: pages (id -> index-state row, see
    :func:`brainwork.store.graph.index_state`) and their links."""

    def __init__(self, state: dict[str, dict], unparsed: dict[str, str] | None = None):
        self.state = state
        self.unparsed = unparsed or {}  # path -> why the index holds no links for it
        self._links: dict[str, list[Link]] = {}

    @classmethod
    def load(cls, store: Store) -> "VaultLinks":
        unparsed = {
            e.path: e.message for e in graph.parse_errors(store)
            if e.path.lower().endswith(".md") and (_NOT_PARSED.search(e.message))
        }
        return cls(graph.index_state(store), unparsed)

    def is_page(self, pid: str) -> bool:
        row = self.state.get(pid)
        return row is not None and row["kind"] == "page"

    def page_ids(self) -> list[str]:
        return [pid for pid, r in self.state.items() if r["kind"] == "page"]

    def links(self, pid: str) -> list[Link]:
        got = self._links.get(pid)
        if got is None:
            got = links_from_json(self.state[pid].get("links"))
            self._links[pid] = got
        return got

    def may_mention(self, pid: str, keys: set[str]) -> bool:
        """False when page ``pid``'s stored links certainly contain none of
        ``keys`` (normalised, see :func:`watch_for`) — a substring test on
        the stored JSON, so most pages need no decoding. True when unsure."""
        return may_mention(self.state[pid].get("links"), keys)

    def names(self, pid: str) -> list[str]:
        row = self.state[pid]
        return [row["title"], *(row["aliases"] or [])]

    def resolver(
        self,
        *,
        drop: set[str] = frozenset(),
        rename: dict[str, str] | None = None,
        names: dict[str, list[str]] | None = None,
        add_pages: dict[str, list[str]] | None = None,
    ) -> Resolver:
        """A resolver over the pages, after dropping ``drop``, renaming ids
        (``rename`` old -> new), replacing names (``names``: id *after* rename
        -> title and aliases) and adding pages (``add_pages``: id -> names)."""
        rename = rename or {}
        names = names or {}
        pages: list[str] = []
        attachments: list[str] = []
        titles: dict[str, list[str]] = {}
        for pid, row in self.state.items():
            if pid in drop:
                continue
            new = rename.get(pid, pid)
            if row["kind"] == "page":
                pages.append(new)
                titles[new] = names.get(new, self.names(pid))
            else:
                attachments.append(new)
        for pid, extra in (add_pages or {}).items():
            pages.append(pid)
            titles[pid] = extra
        return Resolver(pages, attachments, titles)

    def renamed(self, before: Resolver, pid: str, new_id: str, names: list[str]) -> Resolver:
        """``self.resolver(rename={pid: new_id}, names={new_id: names})``,
        derived from ``before`` (``self.resolver()``) by changing the
        entries of page ``pid`` alone: the same lookups, for the cost of
        copying three dicts (building a resolver over 50,000 pages costs
        ~0.2 s CPU). The caller has refused a ``new_id`` that another file's
        id equals after normalisation."""
        after = Resolver(())
        after.by_path, after.by_base, after.by_name = dict(before.by_path), dict(before.by_base), dict(before.by_name)
        if new_id != pid:
            key = norm(pid)
            base = key.rsplit("/", 1)[-1]
            left = [c for c in after.by_base.get(base, ()) if c != pid]
            if left:
                after.by_base[base] = left
            else:
                after.by_base.pop(base, None)
            if after.by_path.get(key) == pid:
                # As a rebuild would: the last page in order holding the
                # same normalised id, else the first attachment.
                holders = [c for c in left if norm(c) == key]
                pages = [c for c in self.state if c in holders and self.is_page(c)]
                others = [c for c in self.state if c in holders and not self.is_page(c)]
                if pages or others:
                    after.by_path[key] = pages[-1] if pages else others[0]
                else:
                    del after.by_path[key]
            new_key = norm(new_id)
            after.by_path[new_key] = new_id
            new_base = new_key.rsplit("/", 1)[-1]
            after.by_base[new_base] = [*after.by_base.get(new_base, ()), new_id]
        for name in self.names(pid):
            if name:
                k = norm(name)
                left = [c for c in after.by_name.get(k, ()) if c != pid]
                if left:
                    after.by_name[k] = left
                else:
                    after.by_name.pop(k, None)
        for name in names:
            if name:
                k = norm(name)
                after.by_name[k] = [*after.by_name.get(k, ()), new_id]
        return after

    def find_page(self, store: Store, before: Resolver, name: str) -> str:
        """:func:`brainwork.store.graph.find_page` (pages only) answered
        from this snapshot and ``before`` (``self.resolver()``) where that
        gives the same page, which saves reading every name again and
        building a second resolver over all pages; otherwise (no page, an
        attachment, or several pages whose ids differ only in case, which
        that function orders by id) it asks the store.

        Raises:
            PageNotFound: as :func:`brainwork.store.graph.find_page`.
        """
        if self.is_page(name):
            return name
        hit = before.resolve(name).page
        if hit is not None and self.is_page(hit):
            key = norm(hit)
            same = [c for c in before.by_base.get(key.rsplit("/", 1)[-1], ()) if norm(c) == key]
            if len(same) == 1:
                return hit
        return graph.find_page(store, name)


# -- one link's target text -------------------------------------------------------
@dataclass(frozen=True)
class TargetSpan:
    """Where a link's target text sits inside the file text: ``start``/``end``
    offsets, ``text`` as written there (URL-encoded for Markdown),
    ``markdown`` and ``angle`` (destination in ``<...>``)."""

    start: int
    end: int
    text: str
    markdown: bool
    angle: bool = False


def target_span(text: str, link: Link) -> TargetSpan | None:
    """The span of ``link``'s target inside ``text`` (offsets from
    :func:`brainwork.vault.parse.parse_text`, i.e. after the BOM), or None
    when the link's text does not have the expected shape."""
    raw = text[link.start : link.end]
    if link.style == "markdown":
        m = MDLINK.match(raw)
        if not m:
            return None
        a, b = m.start(3), m.end(3)
        dest = raw[a:b]
        angle = dest.startswith("<") and dest.endswith(">")
        if angle:
            a, b = a + 1, b - 1
        path_end = raw.find("#", a, b)
        b = path_end if path_end >= 0 else b
        return TargetSpan(link.start + a, link.start + b, raw[a:b], True, angle)
    # The inside is sliced between the brackets, not matched with WIKILINK:
    # the index finds links in the masked body, so a label's inline code
    # may hold brackets here (``[[a|`]`]]``).
    open_ = raw.find("[[")
    close = raw.rfind("]]")
    if open_ < 0 or close < open_:
        return None
    inner_a = open_ + 2
    inner = raw[inner_a:close]
    # The target as the index reads it (first "|" or "\|", then "#",
    # trimmed) is a prefix of the inside after its leading whitespace.
    core = split_inner(inner)[0]
    if not core:
        return None
    lead = len(inner) - len(inner.lstrip())
    if inner[lead : lead + len(core)] != core:
        return None
    a = link.start + inner_a + lead
    return TargetSpan(a, a + len(core), core, False)


def _encode_md(path: str, original: str, angle: bool) -> str:
    if angle:
        return path
    non_ascii_encoded = bool(re.search(r"%[89A-Fa-f][0-9A-Fa-f]", original))
    out = []
    for ch in path:
        if ch.isascii():
            out.append(ch if (ch.isalnum() or ch in _MD_SAFE) else quote(ch, safe=""))
        else:
            out.append(quote(ch, safe="") if non_ascii_encoded else ch)
    return "".join(out)


def _yaml_quote_at(text: str, pos: int) -> str | None:
    """The YAML quote (``'`` or ``"``) open at ``pos`` on its line, if any."""
    line_start = text.rfind("\n", 0, pos) + 1
    q = None
    i = line_start
    while i < pos:
        ch = text[i]
        if q is None:
            if ch in "'\"":
                q = ch
        elif q == '"':
            if ch == "\\":
                i += 1
            elif ch == '"':
                q = None
        elif ch == "'":
            if i + 1 < pos and text[i + 1] == "'":
                i += 1
            else:
                q = None
        i += 1
    return q


def _yaml_escape(value: str, quote_char: str | None) -> str:
    if quote_char == "'":
        return value.replace("'", "''")
    if quote_char == '"':
        return value.replace("\\", "\\\\").replace('"', '\\"')
    return value


def _as_given(new: str, written: str, reference: str) -> str:
    return new


def _keep_case(new: str, written: str, reference: str) -> str:
    if written == reference or not reference:
        return new
    if written == reference.lower() and written != written.upper():
        return new.lower()
    if written == reference.upper() and written != written.lower():
        return new.upper()
    return new


def _suffixes(pid: str) -> list[str]:
    parts = pid.split("/")
    return ["/".join(parts[-k:]) for k in range(1, len(parts) + 1)]


def choose_target(
    written: str,
    source: str,
    want: str,
    resolver: Resolver,
    *,
    old_id: str,
    old_title: str | None = None,
    new_title: str | None = None,
    keep_name: bool = True,
    markdown: bool = False,
    source_before: str | None = None,
    as_typed: bool = False,
) -> str | None:
    """New target text (decoded) for a link written as ``written`` on page
    ``source`` (its id after the operation) that must resolve to ``want``.

    ``old_id``/``old_title`` describe the page the link pointed at before;
    a link written with ``old_title`` becomes ``new_title``; one written
    with another name (an alias) stays as it is when ``keep_name`` and it
    still resolves. A Markdown link that was relative to its file's folder
    (``source_before``) stays relative. ``as_typed`` (rename): the new name
    is written as given, where otherwise an all-lower/upper-case target keeps
    its case. Returns None when no form resolves to ``want``.
    """
    _case_like = _as_given if as_typed else _keep_case
    w = written.strip()
    has_md = w.lower().endswith(".md")
    core = w[:-3] if has_md else w
    core_n = norm(core.replace("\\", "/"))
    ext = w[-3:] if has_md else ""
    old_base = old_id.rsplit("/", 1)[-1]
    cands: list[str] = []
    if markdown and source_before is not None:
        folder_before = posixpath.dirname(source_before)
        joined = posixpath.normpath(posixpath.join(norm(folder_before), core_n))
        if joined == norm(old_id):
            rel = posixpath.relpath(want, posixpath.dirname(source) or ".")
            if core.startswith("./") and not rel.startswith("../"):
                rel = "./" + rel
            cands.append(_case_like(rel, core, posixpath.relpath(old_id, folder_before or ".")) + ext)

    if "/" in core_n or core_n.startswith("."):
        relative = core.startswith(("./", "../"))
        folder = posixpath.dirname(source)
        rel = posixpath.relpath(want, folder or ".")
        if relative:
            if core.startswith("./") and not rel.startswith("../"):
                rel = "./" + rel
            cands.append(_case_like(rel, core, posixpath.relpath(old_id, folder or ".")))
        k = core.strip("/").count("/") + 1
        parts = want.split("/")
        same_depth = "/".join(parts[-k:])
        cands.append(_case_like(same_depth, core, "/".join(old_id.split("/")[-k:])))
        cands.extend(_suffixes(want))
        cands.append(rel)
        cands = [c + ext for c in cands]
    elif core_n == norm(old_base):
        base = want.rsplit("/", 1)[-1]
        cands.append(_case_like(base, core, old_base) + ext)
        cands.extend(s + ext for s in _suffixes(want))
    else:  # written with a name: the title or an alias
        if old_title is not None and core_n == norm(old_title) and new_title:
            cands.append(_case_like(new_title, core, old_title))
        elif keep_name:
            cands.append(w)
        if new_title:
            cands.append(new_title)
        cands.extend(_suffixes(want))
    cands.extend(_suffixes(want))
    cands.append("/" + want)
    seen: set[str] = set()
    for c in cands:
        if c in seen or not c:
            continue
        seen.add(c)
        if BAD_TARGET_CHARS.search(c):
            continue
        res = resolver.resolve(c, source)
        if res.page == want and not res.ambiguous:
            return c
    for c in cands:  # an ambiguous pick that still lands right beats none
        if c and not BAD_TARGET_CHARS.search(c) and resolver.resolve(c, source).page == want:
            return c
    return None


# -- planning over the vault --------------------------------------------------------
@dataclass(frozen=True)
class _Check:
    """One rewritten link to verify: its file, new text, the page it must
    reach (from ``source``, the file's page id afterwards), and the heading
    and label it must keep."""

    path: str
    line: int
    new: str
    style: str
    source: str
    want: str
    heading: str | None
    label: str | None


@dataclass
class RelinkPlan:
    """Result of :func:`plan_relink`.

    ``texts``: old path -> (before bytes, new text without BOM, BOM or "");
    encode a text with :data:`ENCODING_ERRORS` (a file that is not UTF-8 is
    held as surrogate-escaped text, see ``lenient``);
    ``edits``: every rewritten link; ``revived``: dead links that will
    resolve to a renamed/merged page; ``expect``: old path -> the page each
    of its links must resolve to afterwards, for files that :func:`verify`
    parses whole (frontmatter edits, forced files); ``checks``: every
    rewritten link, verified on its own.
    """

    texts: dict[str, tuple[bytes, str, str]] = field(default_factory=dict)
    edits: list[LinkEdit] = field(default_factory=list)
    revived: list[LinkNote] = field(default_factory=list)
    expect: dict[str, list[str | None]] = field(default_factory=dict)
    checks: list[_Check] = field(default_factory=list)
    lenient: set[str] = field(default_factory=set)  # paths not UTF-8, rewritten byte-safely


#: How a planned text becomes bytes again: a valid UTF-8 file never holds a
#: lone surrogate, so this is plain UTF-8 for it, and for a file that is not
#: UTF-8 every byte outside the rewritten links comes back as it was.
ENCODING_ERRORS = "surrogateescape"


def watch_for(ids, names) -> set[str]:
    """Keys under which a link's resolution can change when pages ``ids``
    appear, vanish or move and the names ``names`` (titles, aliases) are
    added or removed: the normalised file names of ``ids`` and the
    normalised ``names``. A link whose last path segment and whole target
    match none of them resolves the same before and after (path, suffix and
    file-name lookups all key on the last segment; the name lookup on the
    whole target)."""
    out = {norm(i.rsplit("/", 1)[-1]) for i in ids if i}
    out |= {norm(n.strip()) for n in names if n}
    return out


def plan_relink(
    config,
    vl: VaultLinks,
    before: Resolver,
    after: Resolver,
    *,
    redirect: dict[str, str],
    moved: dict[str, str],
    titles: dict[str, tuple[str | None, str | None]],
    keep_name: bool = True,
    force_files: tuple[str, ...] = (),
    watch: set[str] | None = None,
    as_typed: bool = False,
) -> RelinkPlan:
    """Plan link rewrites for pages renamed or merged away.

    - ``redirect``: page id before -> page id its links must reach after;
    - ``moved``: page id of a file that moves -> its id after (its own links
      are re-resolved from the new folder);
    - ``titles``: page id before -> (old title, new title) for name forms;
    - ``force_files``: page ids whose file text is wanted in ``texts`` even
      without link changes (the page being renamed);
    - ``watch``: :func:`watch_for` keys; only links matching them (and the
      links of moved files) are resolved twice. ``None`` checks every link;
    - ``as_typed``: see :func:`choose_target`.

    Raises:
        UserError: another link would change target, a file changed since it
            was indexed, or a link cannot be expressed to reach its page.
    """
    plan = RelinkPlan()
    touched: set[str] = set(force_files)
    conflicts: list[LinkNote] = []
    for pid in vl.page_ids():
        is_moved = pid in moved
        if watch is not None and not is_moved and not vl.may_mention(pid, watch):
            continue
        links = vl.links(pid)
        if not links:
            continue
        src_after = moved.get(pid, pid)
        for link in links:
            if watch is not None and not is_moved:
                base, whole = link_keys(link)
                if base not in watch and whole not in watch:
                    continue
            r0 = before.resolve(link.target, pid).page
            if r0 in redirect:
                touched.add(pid)
                continue
            r1 = after.resolve(link.target, src_after).page
            if r1 == r0:
                continue
            if r0 is None:  # a dead link comes alive (the new name fits it)
                plan.revived.append(LinkNote(vl.state[pid]["path"], link.line, link.target, None, r1))
                continue
            if is_moved:
                touched.add(pid)
                continue
            conflicts.append(LinkNote(vl.state[pid]["path"], link.line, link.target, r0, r1))
    lenient = _unparsed_linkers(config, vl, before, redirect, watch)
    touched.update(lenient)
    plan.lenient = {vl.state[pid]["path"] for pid in lenient}
    if conflicts:
        shown = "; ".join(
            f"{c.path}:{c.line} [[{c.target}]] -> {c.after or 'nothing'} (was {c.before or 'dead'})" for c in conflicts[:5]
        )
        more = f" and {len(conflicts) - 5} more" if len(conflicts) > 5 else ""
        raise UserError(f"refusing: {counted(len(conflicts), 'other link')} would change target: {shown}{more}")

    from brainwork.vault.edit import replace_spans

    for pid in sorted(touched):
        row = vl.state[pid]
        rel = row["path"]
        try:
            data = (config.vault / rel).read_bytes()
        except OSError as exc:
            raise UserError(f"{rel}: cannot read ({exc.strerror or exc})") from None
        try:
            raw = data.decode("utf-8", ENCODING_ERRORS if pid in lenient else "strict")
        except UnicodeDecodeError:
            raise UserError(f"{rel}: not UTF-8; cannot rewrite its links") from None
        bom = BOM if raw.startswith(BOM) else ""
        text = raw[len(bom):]
        stored = vl.links(pid)
        if pid in lenient:
            links = lenient[pid]
        elif hashlib.sha256(data).hexdigest() == row["hash"] and all(l.start >= 0 for l in stored):
            links = stored  # the index holds this very file's link offsets
        else:
            links = parse_text(rel, data, 0, config.thresholds.max_file_bytes).links
            if [l.target for l in links] != [l.target for l in stored]:
                raise UserError(f"{rel} changed since it was indexed; run the operation again")
        src_after = moved.get(pid, pid)
        wants: list[str | None] = []
        spans = []
        full_check = pid in force_files
        for link in links:
            r0 = before.resolve(link.target, pid).page
            want = redirect.get(r0, r0)
            if want is None:  # dead before: dead or revived after
                want = after.resolve(link.target, src_after).page
            wants.append(want)
            if want is None:
                continue
            if r0 not in redirect and not (pid in moved and after.resolve(link.target, src_after).page != want):
                continue
            ts = target_span(text, link)
            if ts is None:
                raise UserError(f"{rel}:{link.line}: cannot locate the target of {text[link.start:link.end]!r}")
            old_title, new_title = titles.get(r0, (None, None))
            if r0 not in titles:
                old_title = vl.state[r0]["title"] if r0 in vl.state else None
            new = choose_target(
                link.target, src_after, want, after, old_id=r0 or link.target, old_title=old_title,
                new_title=new_title, keep_name=keep_name or r0 not in redirect,
                markdown=link.style == "markdown", source_before=pid, as_typed=as_typed,
            )
            if new is None:
                raise UserError(f"{rel}:{link.line}: no link text reaches {want!r} from {src_after!r}")
            written = ts.text
            if ts.markdown:
                if new == unquote(written).strip():
                    continue
                replacement = _encode_md(new, written, ts.angle)
            else:
                if new == written:
                    continue
                replacement = new
                if link.where == "frontmatter":
                    replacement = _yaml_escape(new, _yaml_quote_at(text, ts.start))
                    full_check = True
            spans.append((ts.start, ts.end, replacement, link, want))
        new_text = text
        if spans:
            new_text = replace_spans(text, [(a, b, r) for a, b, r, _, _ in spans])
            shift = 0
            for a, b, r, link, want in sorted(spans, key=lambda s: s[0]):
                start = link.start + shift
                delta = len(r) - (b - a)
                new_raw = new_text[start : link.end + shift + delta]
                plan.edits.append(LinkEdit(rel, link.line, link.where, text[link.start : link.end], new_raw))
                plan.checks.append(_Check(rel, link.line, new_raw, link.style, src_after, want, link.heading, link.label))
                shift += delta
        plan.texts[rel] = (data, new_text, bom)
        if full_check:
            plan.expect[rel] = wants
    return plan


def _unparsed_linkers(config, vl: VaultLinks, before: Resolver, redirect: dict[str, str], watch) -> dict[str, list[Link]]:
    """Pages the index could not parse (see :attr:`VaultLinks.unparsed`) that
    link to a page in ``redirect``: page id -> their links, read from the
    file decoded with :data:`ENCODING_ERRORS` (link syntax is ASCII, so a
    Latin-1 or Windows-1252 file's links are found and rewritten without
    touching its other bytes).

    Raises:
        UserError: such a file cannot be read, or holds a NUL byte or is over
            the size limit and writes a link that may reach the page
            (:func:`_may_link_to`); the message names the file.
    """
    out: dict[str, list[Link]] = {}
    if not vl.unparsed or not redirect:
        return out
    by_path = {row["path"]: pid for pid, row in vl.state.items() if row["kind"] == "page"}
    names = {norm(n) for pid in redirect if pid in vl.state for n in [pid.rsplit("/", 1)[-1], *vl.names(pid)] if n}
    if watch:
        names |= set(watch)
    for rel, why in sorted(vl.unparsed.items()):
        pid = by_path.get(rel)
        try:
            data = (config.vault / rel).read_bytes()
        except OSError as exc:
            raise UserError(f"refusing: {rel} cannot be read ({exc.strerror or exc}), so its links to the page cannot be updated; fix or move it first") from None
        if pid is None or b"\x00" in data or len(data) > config.thresholds.max_file_bytes:
            if _may_link_to(data, names):
                raise UserError(f"refusing: {rel} cannot be parsed ({why}) and may link to the page; fix or move it first")
            continue
        page = parse_text(rel, data, 0, config.thresholds.max_file_bytes, decode=ENCODING_ERRORS)
        if any(before.resolve(l.target, pid).page in redirect for l in page.links):
            out[pid] = page.links
    return out


def _may_link_to(data: bytes, names: set[str]) -> bool:
    """Whether a file that is not parsed as a page (a NUL byte, over the
    size limit, not indexed as a page) writes a link whose target a
    resolver would look up under one of ``names`` (normalised file names,
    titles, aliases: :func:`~brainwork.index.incremental.link_keys`).

    The links are read by the link grammar (:func:`brainwork.vault.links.body_links`,
    wikilinks and local Markdown links) over the whole text, code and
    comments included: a file whose structure is unknown is read the
    cautious way, so a link shown in a code block still counts, but a
    word that merely contains a page's name does not."""
    text = data.decode("utf-8", "replace")
    if "[[" not in text and "](" not in text:
        return False
    for link in body_links(text, 0, 1, masked=text):
        base, whole = link_keys(link)
        if base in names or whole in names:
            return True
    return False


def _trim(text: str | None) -> str | None:
    return text.strip() if text is not None else None


def _check_link(check: _Check, after: Resolver) -> str | None:
    """None if the rewritten link text is one link that keeps its heading
    and label and reaches its page, else what is wrong."""
    if check.style == "markdown":
        m = MDLINK.fullmatch(check.new.lstrip("!"))
        if not m:
            return "is no longer one Markdown link"
        dest = m.group(3)
        if dest.startswith("<") and dest.endswith(">"):
            dest = dest[1:-1]
        path = dest.split("#", 1)[0]
        target = unquote(path).strip()
    else:
        m = WIKILINK.fullmatch(check.new)
        if not m:
            return "is no longer one wikilink"
        target, heading, label = split_inner(m.group(2))
        # compared trimmed: a store indexed before labels were trimmed holds them untrimmed
        if _trim(heading) != _trim(check.heading) or _trim(label) != _trim(check.label):
            return "would lose its heading or label"
    got = after.resolve(target, check.source).page
    if got != check.want:
        return f"would resolve to {got or 'nothing'} instead of {check.want}"
    return None


def verify(config, plan: RelinkPlan, after: Resolver, new_paths: dict[str, str], texts: dict[str, str] | None = None) -> None:
    """Check the planned rewrites: every rewritten link on its own (one
    link, same heading and label, reaches its page), and files in
    ``plan.expect`` (frontmatter edits, forced files) parsed whole with every
    link reaching the page it should. ``new_paths``: old path -> path after
    (moved files); ``texts``: old path -> final text when the caller edited
    it further (e.g. a title line).

    Raises:
        UserError: a link would break or resolve elsewhere (names file and
            line); nothing has been written.
    """
    for check in plan.checks:
        problem = _check_link(check, after)
        if problem:
            raise UserError(f"{check.path}:{check.line}: {check.new!r} {problem}; nothing was written")
    for rel, wants in plan.expect.items():
        data, text, bom = plan.texts[rel]
        final = (texts or {}).get(rel, text)
        path = new_paths.get(rel, rel)
        pid = page_id(path)
        if rel in plan.lenient:  # not UTF-8: its rewritten links were checked one by one above
            continue
        parsed = parse_text(path, (bom + final).encode("utf-8"), 0, config.thresholds.max_file_bytes)
        had = {e.message for e in parse_text(rel, data, 0, config.thresholds.max_file_bytes).errors}
        if any(e.message not in had for e in parsed.errors):
            new_errors = [e.message for e in parsed.errors if e.message not in had]
            raise UserError(f"{rel}: the edit would break the file ({new_errors[0]}); nothing was written")
        if len(parsed.links) != len(wants):
            raise UserError(f"{rel}: rewriting would change the number of links ({len(wants)} -> {len(parsed.links)}); nothing was written")
        for link, want in zip(parsed.links, wants):
            if want is None:
                continue
            got = after.resolve(link.target, pid).page
            if got != want:
                raise UserError(f"{rel}:{link.line}: {link.raw!r} would resolve to {got or 'nothing'} instead of {want}; nothing was written")
