"""Capture: the write path of the learning loop.

:func:`capture` writes one new record page (task, correction, source, tool,
decision or artifact) with its key fields and typed edges; one call per
record, cheap enough to run after every task. Invariants: every referenced
page must exist (names resolve against the vault's files, not the store);
the page is created atomically, never over another file, and the same record
captured twice on one day gives the same page
(:func:`brainwork.ops.journal.create_new_file`), so capture never opens the
store and runs beside other writers; a record holding a secret is refused
(:class:`SecretInRecord`) unless ``allow_secret``, and a secret never reaches
the file name; no embedding (the model costs ~4 s to load). Fields, names and
edges: docs/learning-loop.md, "Capture: the write path".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date

from typing import TYPE_CHECKING, Callable

from brainwork.config import Config
from brainwork.errors import PageNotFound, UserError
from brainwork.wording import noun
from brainwork.ops import gitcommit
from brainwork.ops.journal import create_new_file
from brainwork.thresholds import MAX_FILE_BYTES
from brainwork.vault.frontmatter import FrontmatterError, parse_yaml, split_frontmatter
from brainwork.vault.resolve import page_id
from brainwork.vault.write import safe_rel_path, slugify
from brainwork.vocabulary import EDGE_KEYS, PROPOSED, SESSION_KEY, TYPE_FIELDS

if TYPE_CHECKING:
    from brainwork.store import Store

#: The record types capture writes, and the folder each goes into.
FOLDERS: dict[str, str] = {
    "task": "tasks",
    "correction": "corrections",
    "source": "sources",
    "tool": "tools",
    "decision": "decisions",
    "artifact": "artifacts",
}
CAPTURE_TYPES: tuple[str, ...] = tuple(FOLDERS)
#: Types whose file names start with the creation date (events, not things).
DATED_TYPES = ("task", "correction")
#: A correction teaches nothing without these three: what went wrong, what
#: is correct, and why it matters.
CORRECTION_REQUIRED = ("wrong", "correct", "why")
#: The field a title is taken from when none is given, per type.
TITLE_FROM: dict[str, tuple[str, ...]] = {
    "task": ("request", "summary"),
    "correction": ("wrong", "correct"),
    "source": ("ref",),
    "tool": ("name",),
    "decision": ("choice",),
    "artifact": ("location",),
}
#: Convenience keys accepted in the JSON object / options -> the edge key written.
ALIASES: dict[str, str] = {"task": "corrects"}
#: Edge keys whose page must be of one type. A correction's ``corrects``
#: link is what recall and consolidation follow from a task to its lessons;
#: a name that resolves by title to another record (an earlier correction
#: of the same mistake) would hang the lesson off no task.
LINK_TYPES: dict[str, str] = {"corrects": "task"}
#: Keys besides type fields and edge keys. ``session``: the agent session the
#: record comes from (a session hook finds its page again by it); ``turn``:
#: which of the session's user turns a proposed correction quotes.
COMMON_KEYS = ("title", "tags", "aliases", "body", "created", "source", "type", SESSION_KEY, "turn")
TITLE_MAX = 200
#: How a proposed correction's title starts (:func:`propose_correction`'s
#: callers); confirming it drops the prefix.
PROPOSAL_TITLE_PREFIX = "Proposed: "
#: The most characters one field of a record holds (``wrong``, ``correct``,
#: ``why``, ``request``, a tag, a page name, ...). A field is a few
#: sentences: the longest in sample_vault/ is 228 characters and the session
#: hook sends a task's request cut at 2,000, so 4,000 leaves room for a long
#: paragraph while a pasted log or file (megabytes) is refused, not written
#: into the frontmatter every pass re-reads and embeds.
FIELD_MAX = 4_000
#: The most characters a record's Markdown body holds: details, commands and
#: excerpts (the longest body in sample_vault/ is ~700 characters); a whole
#: log or document belongs in a file linked from the record (an artifact).
BODY_MAX = 100_000
#: Control characters other than tab and newline (a CR is a line end, read as
#: one). They are kept, escaped as visible ``\xNN`` text, rather than
#: dropped or refused: the session hooks capture transcript text without a
#: person to retry, and a colour code pasted from a terminal (``\x1b[31m``)
#: or a stray NUL then stays readable in the page instead of changing the
#: text unseen; a raw NUL or escape never reaches the YAML, the file or the
#: store.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_BOOL = {"true": "true", "yes": "true", "1": "true", "false": "false", "no": "false", "0": "false"}


@dataclass
class CaptureResult:
    """What :func:`capture` wrote.

    ``id`` the new page id (vault-relative path without ``.md``), ``path``
    its file, ``links`` edge key -> the page ids linked, ``operation`` the
    undo-log id (0 if not recorded).
    """

    id: str
    path: str
    type: str
    title: str
    links: dict[str, list[str]] = field(default_factory=dict)
    operation: int = 0
    secrets: list[str] = field(default_factory=list)  # "line N: kind masked" of allowed secrets

    def to_json(self) -> dict:
        return {"id": self.id, "path": self.path, "type": self.type, "title": self.title,
                "links": self.links, "operation": self.operation, "secrets": self.secrets}


class SecretInRecord(UserError):
    """The record holds a secret and ``allow_secret`` was not given; the
    message says where and what kind, masked (never the value)."""


#: A title word naming a credential: the word after it is its value.
_CREDENTIAL_WORD = re.compile(r"(?i)(password|passwd|pwd|secret|token|key|pass|credential)s?[:=]?$")


def secrets_in(text: str, name: str = "record.md") -> list[str]:
    """``"line N: <kind> <masked value>"`` for every suspected secret in
    ``text`` (the quality bar's scan), empty when there is none."""
    from brainwork.analysis.secrets import scan_texts

    return [f"line {h.line}: {h.kind} {h.masked}" for h in scan_texts([(name, text)]).get(name, [])]


def file_stem(title: str) -> str:
    """The slug a page titled ``title`` is named by. A title holding a secret
    keeps only its plain words (letters only, not right after a word like
    ``token`` or ``password``), so the value never reaches a file name,
    a folder listing or a link."""
    if not secrets_in(title, "title.md"):
        return slugify(title)
    words, after_keyword = [], False
    for word in title.split():
        plain = word.strip(".,;:!?()[]'\"")
        if plain.isalpha() and len(plain) <= 20 and not after_keyword:
            words.append(plain)
        after_keyword = bool(_CREDENTIAL_WORD.search(word))
    return slugify(" ".join(words)) if words else "record"


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be written as UTF-8, or None: the first lone
    surrogate (half of a UTF-16 pair, e.g. from a ``"\\ud800"`` JSON escape,
    or a byte that was not UTF-8 decoded with ``surrogateescape``), which no
    page, YAML writer or JSON reply can encode."""
    for index, char in enumerate(text):
        if "\ud800" <= char <= "\udfff":
            return f"lone surrogate U+{ord(char):04X} at character {index + 1}"
    return None


def _escape_controls(text: str) -> str:
    """``text`` with line ends as ``\\n`` and every other control character
    (see :data:`_CONTROL`) as visible ``\\xNN`` text."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _checked(value: str, key: str, limit: int) -> str:
    """``value`` as written: refused when it is not UTF-8 text or longer
    than ``limit`` characters (the message names the field and its size,
    never the text), control characters escaped."""
    problem = text_problem(value)
    if problem:
        raise UserError(f"field {key!r} is not UTF-8 text ({problem}); nothing was written")
    if len(value) > limit:
        raise UserError(f"field {key!r} is {len(value):,} characters ({len(value.encode('utf-8')):,} bytes); "
                        f"a field holds at most {limit:,}; nothing was written")
    return _escape_controls(value)


def _text(value, key: str) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if not isinstance(value, str):
        raise UserError(f"field {key!r} must be text, got {type(value).__name__}")
    return _checked(value, key, FIELD_MAX).strip()


def _list(value, key: str) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        items = value.split(",") if key in ("tags", "aliases") else [value]
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise UserError(f"field {key!r} must be text or a list of text")
    return [t for t in (_text(i, key) for i in items) if t]


def _link_name(name: str) -> str:
    """The page a field value names, read as the index reads a link's
    target: ``"[[a/b#h|label]]"``, ``"![[a/b]]"``, ``"[[a/b\\|label]]"`` or
    ``"a/b"`` -> ``"a/b"``."""
    name = name.strip()
    if not any(c in name for c in "[|#"):
        # A plain name (the session hook's ``corrects``: a page id) is its
        # own target; the link grammar is not loaded for it.
        return name
    # Imported here: the link grammar's module loads markdown-it (~20 ms),
    # which importing this module (the CLI, the hooks) does not need.
    from brainwork.vault.links import WIKILINK, split_inner

    m = WIKILINK.fullmatch(name)
    return split_inner(m.group(2) if m else name)[0]


def _option(edge_key: str) -> str:
    """The command-line option an edge key is given by (``corrects`` is ``--task``)."""
    return "--task" if edge_key == "corrects" else "--" + edge_key.replace("_", "-")


def _empty_edge(edge_key: str) -> str:
    """The error for an edge given an empty page name."""
    if edge_key == "corrects":
        return ("--task is empty: name the task this corrects "
                "(leave --task out for a correction of no task); nothing was written")
    return f"{_option(edge_key)} is empty: name the page it links to, or leave it out; nothing was written"


def _q(text: str) -> str:
    """A YAML double-quoted scalar (JSON string syntax is valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def _tag(t: str) -> str:
    t = t.strip().lstrip("#").strip()
    return re.sub(r"\s+", "-", t)


class VaultNames:
    """Page names resolved against the vault's files, without the store.

    Ids, paths and file names come from one scan of the vault; titles and
    aliases are read (each page parsed) only when a name is none of those,
    since that costs a read of every page.
    """

    def __init__(self, config: Config):
        from brainwork.index.scan import scan_vault
        from brainwork.vault.resolve import Resolver

        self.config = config
        files = scan_vault(config.vault, config.ignore_folders, config.store)
        self._md = [f.rel for f in files if f.is_markdown]
        self._ids = [page_id(r) for r in self._md]
        self._by_files = Resolver(self._ids)
        self._by_names = None
        self._types: dict[str, str | None] = {}

    def _names(self):
        from brainwork.vault.parse import parse_file
        from brainwork.vault.resolve import Resolver

        if self._by_names is None:
            names: dict[str, list[str]] = {}
            self._titles: dict[str, str] = {}
            for rel, pid in zip(self._md, self._ids):
                page = parse_file(self.config.vault, rel)
                names[pid] = [page.title, *page.aliases]
                self._titles[pid] = page.title
                self._types[pid] = page.type
            self._by_names = Resolver(self._ids, (), names)
        return self._by_names

    def find(self, name: str) -> str:
        """The id of the page ``name`` designates (id, path with or without
        ``.md``, file name, title or alias), resolved like a wikilink.

        Raises:
            PageNotFound: nothing fits; the message suggests the closest titles.
        """
        hit = self._by_files.resolve(name)
        if hit.page is not None:
            return hit.page
        hit = self._names().resolve(name)
        if hit.page is not None:
            return hit.page
        from brainwork.vault.resolve import similar_names

        close = similar_names(name, {pid: [title, pid.rsplit("/", 1)[-1]] for pid, title in self._titles.items()})
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise PageNotFound(f"no page named {name!r}{hint}")

    def type_of(self, pid: str) -> str | None:
        """The ``type`` of page ``pid`` (an id :meth:`find` returned) as its
        file says now; None for a page of no type."""
        if pid not in self._types:
            rel = self._md[self._ids.index(pid)] if pid in self._ids else f"{pid}.md"
            self._types[pid] = _file_type(self.config, rel)
        return self._types[pid]


def _file_type(config: Config, rel: str) -> str | None:
    """The ``type`` in the frontmatter of ``rel`` (vault-relative), None for
    none or an unreadable file. Only the frontmatter is read: a session hook
    proposing a correction must not load the link parser."""
    try:
        with open(config.vault / rel, "rb") as fh:
            text = fh.read(MAX_FILE_BYTES).decode("utf-8", "replace")
        yaml_text = split_frontmatter(text).yaml_text
        meta = parse_yaml(yaml_text) if yaml_text else {}
    except (OSError, FrontmatterError):
        return None
    t = meta.get("type") if isinstance(meta, dict) else None
    return (t.strip() or None) if isinstance(t, str) else None


def plan(
    config: Config, find: "VaultNames | Callable[[str], str] | Store", type_: str, data: dict, today: date | None = None,
) -> tuple[str, str, dict[str, list[str]], str]:
    """Validate ``data`` and build the page without writing it.

    ``find`` turns a page name into its id: a :class:`VaultNames` (or its
    :meth:`~VaultNames.find`) against the vault's files, a
    :class:`~brainwork.store.Store` through the graph instead.

    Returns ``(rel_path, text, links, title)``; ``rel_path`` is the name the
    page gets if no other file takes it first. Raises :class:`UserError`
    for an unknown type or field, a bad enum value, a correction missing
    wrong/correct/why, no title to be had, a referenced page that does
    not exist, a page of the wrong type for its edge (:data:`LINK_TYPES`: a
    correction's ``task`` that names a correction), or an edge given an
    empty name (``"task": ""``: a correction of no task leaves the key
    out). See :func:`capture` for the keys of ``data``.
    """
    return _build(config, find, type_, data, today, proposal=False)


def _build(config: Config, find, type_: str, data: dict, today: date | None, *, proposal: bool):
    """:func:`plan`; with ``proposal`` a correction is built as proposed
    (:func:`propose_correction`) instead of open."""
    if type_ not in FOLDERS:
        raise UserError(f"cannot capture a {type_!r}; types: {', '.join(CAPTURE_TYPES)}")
    if not isinstance(data, dict):
        raise UserError("the record must be a JSON object")
    spec = TYPE_FIELDS[type_]
    data = dict(data)
    if "type" in data and data["type"] not in (None, type_):
        raise UserError(f"the record says type {data['type']!r} but a {type_} is being captured")
    unknown = [k for k in data if k not in spec and k not in EDGE_KEYS and k not in ALIASES and k not in COMMON_KEYS]
    if unknown:
        known = sorted(set(spec) | set(EDGE_KEYS) | set(ALIASES) | set(COMMON_KEYS) - {"type"})
        raise UserError(f"unknown {noun(len(unknown), 'field')} {', '.join(map(repr, sorted(unknown)))} for a {type_}; known: {', '.join(known)}")

    fields: dict[str, str] = {}
    for key, allowed in spec.items():
        value = _text(data.get(key), key)
        if key == "right_choice" and value:
            norm = _BOOL.get(value.lower())
            if norm is None:
                raise UserError(f"right_choice must be true or false, got {value!r}")
            value = norm
        if allowed is not None and value and value not in allowed:
            raise UserError(f"{key} must be one of {', '.join(allowed)}; got {value!r}")
        if value:
            fields[key] = value
    if proposal:
        if type_ != "correction":
            raise UserError("only a correction can be proposed")
        if not fields.get("wrong"):
            raise UserError("a proposed correction needs the person's words (wrong)")
        if fields.get("status", PROPOSED) != PROPOSED:
            raise UserError("a proposed correction starts proposed (a person confirms it to open)")
        fields["status"] = PROPOSED
    elif type_ == "correction":
        missing = [k for k in CORRECTION_REQUIRED if not fields.get(k)]
        if missing:
            raise UserError(
                f"a correction needs what was wrong, the correct behaviour and why it matters; "
                f"missing: {', '.join(missing)} (--{' --'.join(missing)})"
            )
        if fields.get("status", "open") != "open":
            raise UserError("a captured correction starts open (status is set later by consolidation and approval)")
        fields["status"] = "open"

    title = _text(data.get("title"), "title")
    if not title:
        for key in TITLE_FROM[type_]:
            if fields.get(key):
                title = fields[key]
                break
    title = re.sub(r"\s+", " ", title).strip()
    if not title:
        raise UserError(f"give the {type_} a title (--title) or one of: {', '.join(TITLE_FROM[type_])}")
    if len(title) > TITLE_MAX:
        title = title[: TITLE_MAX - 1].rstrip() + "…"

    created = _text(data.get("created"), "created") or (today or date.today()).isoformat()
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", created):
        raise UserError(f"created must be a date YYYY-MM-DD, got {created!r}")
    try:  # the shape alone let 2026-13-45 through, into the file name too
        day = date.fromisoformat(created)
    except ValueError:
        raise UserError(f"created must be a real date YYYY-MM-DD, got {created!r}") from None
    now = today or date.today()
    if day > now and not proposal:
        # A record says when something happened; a future date would sort it
        # after work not done yet and put its mistake after a rule's approval.
        # (A hook's proposal is dated by its session and confirmed later.)
        raise UserError(f"created {created} is after today ({now.isoformat()}); a record is dated when it happened")
    session = _text(data.get(SESSION_KEY), SESSION_KEY)
    turn = _text(data.get("turn"), "turn")
    if turn and not turn.isdigit():
        raise UserError(f"turn must be a whole number, got {turn!r}")
    source = _text(data.get("source"), "source") or "agent"
    if source not in ("agent", "manual"):
        raise UserError(f"source must be agent or manual, got {source!r}")
    tags = [t for t in (_tag(t) for t in _list(data.get("tags"), "tags")) if t]
    aliases = [re.sub(r"\s+", " ", a) for a in _list(data.get("aliases"), "aliases")]
    body = data.get("body")
    body = "" if body is None else _checked(str(body), "body", BODY_MAX)

    type_of = _type_lookup(config, find)
    if isinstance(find, VaultNames):
        find = find.find
    elif not callable(find):
        from brainwork.store import graph

        store = find
        find = lambda name: graph.find_page(store, name)  # noqa: E731
    # Edges: every referenced page must exist, and a name given must name
    # one: an empty value is refused, not dropped, since it is usually a
    # shell variable left empty by a command that failed
    # (``--task "$T"``) and dropping it would write an unlinked record.
    # No value at all (absent, null, an empty list) is no edge.
    links: dict[str, list[str]] = {}
    for key, value in data.items():
        edge_key = ALIASES.get(key, key)
        if edge_key not in EDGE_KEYS:
            continue
        items = value if isinstance(value, (list, tuple)) else [] if value is None else [value]
        if any(isinstance(i, str) and not i.strip() for i in items):
            raise UserError(_empty_edge(edge_key))
        for name in _list(value, key):
            target = _link_name(name)
            if not target:
                raise UserError(f"{_option(edge_key)} {name!r} names no page; nothing was written")
            try:
                pid = find(target)
            except UserError as exc:
                raise type(exc)(f"{key}: {exc}") from None
            want = LINK_TYPES.get(edge_key)
            if want is not None and (got := type_of(pid)) != want:
                what = f"a {got}" if got else "a page of no type"
                shown = f"{pid} is" if target == pid else f"{name!r} is {pid},"
                raise UserError(
                    f"the {want} this {type_} corrects: {shown} {what}, not a {want}; name the {want} "
                    f"(its id, title or alias), or leave {_option(edge_key)} out for a correction of no {want}; "
                    "nothing was written"
                )
            if pid not in links.setdefault(edge_key, []):
                links[edge_key].append(pid)

    folder = FOLDERS[type_]
    stem = file_stem(title)
    if type_ in DATED_TYPES:
        stem = f"{created}-{stem}"
    rel = safe_rel_path(f"{folder}/{stem}.md")

    lines = ["---", f"title: {_q(title)}", f"type: {type_}", f"created: {created}"]
    if aliases:
        lines.append(f"aliases: [{', '.join(_q(a) for a in aliases)}]")
    if tags:
        lines.append(f"tags: [{', '.join(_q(t) for t in tags)}]")
    lines.append(f"source: {source}")
    if session:
        lines.append(f"{SESSION_KEY}: {_q(session)}")
    if turn:
        lines.append(f"turn: {int(turn)}")
    for key, value in fields.items():
        allowed = spec[key]
        plain = allowed is not None or key == "right_choice"
        lines.append(f"{key}: {value if plain else _q(value)}")
    for key, ids in links.items():
        if len(ids) == 1:
            lines.append(f"{key}: {_q(f'[[{ids[0]}]]')}")
        else:
            lines.append(f"{key}:")
            lines.extend(f"  - {_q(f'[[{i}]]')}" for i in ids)
    lines.append("---")
    text = "\n".join(lines) + "\n"
    if body.strip():
        text += "\n" + body.strip("\n") + "\n"

    # Guard: the page must read back exactly as meant (quoting, no injection).
    split = split_frontmatter(text)
    try:
        meta = parse_yaml(split.yaml_text or "")
    except FrontmatterError as exc:
        raise RuntimeError(f"capture built a page that does not read back: {exc}") from None
    if split.yaml_text is None or str(meta.get("title")) != title or meta.get("type") != type_ or (
        session and str(meta.get(SESSION_KEY)) != session
    ) or any(
        (str(meta.get(k)).lower() if k == "right_choice" else str(meta.get(k))) != v for k, v in fields.items()
    ):
        raise RuntimeError(f"capture built a page that does not read back: {meta}")
    return rel, text, links, title


def _type_lookup(config: Config, find) -> "Callable[[str], str | None]":
    """``type_of(page id)`` for the pages ``find`` (as :func:`plan` takes
    it) resolves: from the graph for a store, else from the page's file."""
    if isinstance(find, VaultNames):
        return find.type_of
    owner = getattr(find, "__self__", None)
    if isinstance(owner, VaultNames):
        return owner.type_of
    if not callable(find):
        from brainwork.store import graph

        def from_store(pid: str) -> str | None:
            page = graph.get_page(find, pid, errors=False)
            return page.type if page is not None else None

        return from_store
    return lambda pid: _file_type(config, f"{pid}.md")


def capture(
    config: Config, store: "Store | None", type_: str, data: dict, today: date | None = None, *, allow_secret: bool = False,
) -> CaptureResult:
    """Write one new record page; see the module doc.

    Args:
        store: None (the command line: names resolve against the vault's
            files and the store's holder indexes the page later), or the
            caller's open store, which then indexes the page and records it
            in the undo log at once (the workbench, tests).
        type_: one of :data:`CAPTURE_TYPES`.
        data: ``title``, ``tags`` (list or comma-separated), ``aliases``,
            ``body`` (Markdown after the frontmatter), ``created``
            (YYYY-MM-DD, default today), ``source`` (agent|manual, default
            agent), the type's fields (e.g. ``wrong``, ``correct``, ``why``),
            and edge keys (``used``, ``cited``, ``produced``, ``corrects``,
            ``cited_by``, ... — a page name or a list; ``task`` is short for
            ``corrects``).
        today: the creation date (default: today, local time).
        allow_secret: write a record that holds a secret (see the module
            doc) instead of refusing it.

    Returns:
        :class:`CaptureResult` (new page id, path, links, undo-log id when
        ``store`` was given, else 0; ``secrets`` found and allowed).

    Raises:
        SecretInRecord: the record holds a secret and not ``allow_secret``;
            nothing was written.
        UserError: invalid record (see :func:`plan`), or the vault cannot be
            written.
    """
    rel, text, links, title = plan(config, VaultNames(config), type_, data, today)
    found = secrets_in(text, rel)
    if found and not allow_secret:
        raise SecretInRecord(
            f"refusing: the {type_} holds what looks like a secret ({'; '.join(found[:3])}"
            f"{f'; and {len(found) - 3} more' if len(found) > 3 else ''}); remove it, or pass --allow-secret"
        )
    result = _write(config, store, type_, rel, text, links, title, "capture")
    result.secrets = found
    return result


def propose_correction(config: Config, data: dict, today: date | None = None, names: VaultNames | None = None) -> CaptureResult:
    """Write one *proposed* correction: drafted by a session hook from the
    person's own words, not yet a lesson anyone stated.

    ``data`` as for :func:`capture` of a correction, except that only
    ``wrong`` (the person's words) is required: ``correct`` and ``why`` are
    left for the person. The page gets ``status: proposed``; it waits in the
    inbox until a person confirms it (:func:`brainwork.learn.inbox.confirm_correction`:
    wrong, correct and why filled in, status open) or dismisses it.
    Consolidation reads only unresolved corrections, never proposed ones.
    Written like a capture (store-free, atomic, idempotent, undoable once
    the store's holder adopts it; kind ``propose-correction``).

    Raises:
        UserError: no ``wrong``, a status other than proposed, or a
            referenced page that does not exist.
    """
    rel, text, links, title = _build(config, names or VaultNames(config), "correction", data, today, proposal=True)
    return _write(config, None, "correction", rel, text, links, title, "propose-correction")


def _write(config: Config, store, type_: str, rel: str, text: str, links, title: str, kind: str) -> CaptureResult:
    folder, _, name = rel.rpartition("/")
    rel, _created = create_new_file(
        config, folder, name[: -len(".md")], text.encode("utf-8"),
        kind=kind, describe=lambda taken: (f"{kind} {type_} {page_id(taken)}", {"page": page_id(taken), "type": type_}),
    )
    gitcommit.commit_capture(config, kind, type_, rel, text.encode("utf-8"))  # opt-in ([git] commit); never raises
    op_id = 0
    if store is not None:
        from brainwork.ops import changeset

        for op in changeset.adopt_created(config, store):
            if op.paths == [rel]:
                op_id = op.id
    return CaptureResult(page_id(rel), rel, type_, title, links, op_id)
