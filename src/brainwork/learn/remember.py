"""Remember: file a free-form insight where it will be found again.

``remember(config, store, "insight")`` puts a sentence onto the page about
the *thing* it concerns (:data:`brainwork.vocabulary.THING_TYPES`, never a
task or correction, which are events): the nearest thing page by embedding,
when it reaches ``thresholds.remember_similarity``, gets it under ``## Notes``
as ``- YYYY-MM-DD: insight``; otherwise a new ``topic`` page is proposed
(written with ``create=True``). ``page=`` files it on that page without a
similarity check. docs/learning-loop.md section 6a has the details.

Invariant: each write is one undoable operation
(:func:`brainwork.ops.unit_of_work.apply`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from brainwork.config import Config
from brainwork.errors import UserError
from brainwork.learn.embed import Embedder, get_embedder
from brainwork.store import Store
from brainwork.vocabulary import THING_TYPES

NOTES_HEADING = "## Notes"
#: The type a proposed page gets (a person may retype it: ``brainwork set-type``).
PROPOSED_TYPE = "topic"
#: Folder a proposed page goes into, per thing type (sample_vault/'s layout).
FOLDERS = {"customer": "customers", "project": "projects", "system": "systems", "person": "people",
           "problem": "problems", "topic": "topics"}
#: Nearest thing pages considered per type.
CANDIDATES = 5
#: A proposed title has at most this many characters.
TITLE_CHARS = 60
#: Words that end a subject phrase ("The staging Redis | needs a restart").
_VERBS = frozenset(
    """is are was were be been being has have had does do did needs need must should shall can could will would
    may might uses use used runs run takes take requires require breaks break fails fail keeps keep expects expect
    only never always prefers prefer answers answer exports export renews renew rejects reject
    sends send goes go gets get works work returns return""".split()
)
#: Words after which a lower-case word ending in -s or -ed is a verb, not a
#: plural ("descales itself", "renews the", but "machines run").
_FUNCTION = frozenset(
    """a an the its it itself themselves their them our his her my your this that these those every each all
    only no not""".split()
)
_ARTICLE = re.compile(r"^(?:the|a|an|our|their|its)\s+", re.IGNORECASE)
_WORDS = re.compile(r"\S+")


@dataclass
class Match:
    """A thing page and its cosine similarity to the insight."""

    id: str
    title: str
    type: str
    similarity: float


@dataclass
class Remembered:
    """What :func:`remember` did or proposes.

    ``action``: ``"attached"`` (the insight was appended to ``page``),
    ``"proposed"`` (nothing written: ``title``/``path`` name the page that
    would be created) or ``"created"``; ``note`` the line written;
    ``nearest`` the closest thing pages, best first; ``threshold`` the
    similarity needed to attach; ``operation`` the undo-log id (None when
    nothing was written)."""

    action: str
    insight: str
    note: str
    page: str | None = None
    title: str | None = None
    path: str | None = None
    type: str | None = None
    similarity: float | None = None
    threshold: float = 0.0
    nearest: list[Match] = field(default_factory=list)
    operation: int | None = None

    def to_json(self) -> dict:
        return {
            "action": self.action, "insight": self.insight, "note": self.note, "page": self.page,
            "title": self.title, "path": self.path, "type": self.type,
            "similarity": None if self.similarity is None else round(self.similarity, 4),
            "threshold": self.threshold,
            "nearest": [{"id": m.id, "title": m.title, "type": m.type, "similarity": round(m.similarity, 4)}
                        for m in self.nearest],
            "operation": self.operation,
        }


def nearest_things(config: Config, store: Store, insight: str, embedder: Embedder | None = None) -> list[Match]:
    """Thing pages nearest ``insight`` (at most :data:`CANDIDATES` per type),
    best first. Embeds pages whose text changed first (cached)."""
    from brainwork.learn.embed import embed_pages
    from brainwork.store import graph
    from brainwork.store import vectors as vstore

    emb = embedder or get_embedder(config)
    embed_pages(config, store, embedder=emb)
    q = emb.encode_one(insight)
    found: list[tuple[str, float, str]] = []
    for t in THING_TYPES:
        found += [(i, s, t) for i, s in vstore.nearest(store, q, CANDIDATES, type=t, model=emb.name)]
    out = []
    for i, s, t in sorted(found, key=lambda x: (-x[1], x[0])):
        page = graph.get_page(store, i, errors=False)
        if page is not None:
            out.append(Match(i, page.title, t, float(s)))
    return out


def note_line(insight: str, day: str) -> str:
    """``- YYYY-MM-DD: insight`` (whitespace collapsed)."""
    return f"- {day}: {' '.join(insight.split())}"


def append_note(text: str, line: str) -> str:
    """``text`` with ``line`` appended to its ``## Notes`` section: after the
    section's last non-blank line (the section ends at the next heading of
    level 1 or 2), or a new section at the end of the file."""
    nl = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    start = next((k for k, ln in enumerate(lines) if ln.rstrip("\r\n").strip().lower() == NOTES_HEADING.lower()), None)
    if start is None:
        body = text if text.endswith(("\n", "\r")) or not text else text + nl
        sep = "" if body.endswith(nl + nl) or not body.strip() else nl
        return f"{body}{sep}{NOTES_HEADING}{nl}{nl}{line}{nl}"
    end = len(lines)
    for k in range(start + 1, len(lines)):
        if re.match(r"#{1,2}\s", lines[k]):
            end = k
            break
    last = start
    for k in range(start + 1, end):
        if lines[k].strip():
            last = k
    at = last + 1
    if not lines[last].endswith(("\n", "\r")):
        lines[last] += nl
    insert = [line + nl]
    if last == start:
        insert = [nl, line + nl]
    if at < len(lines) and lines[at].strip():
        insert.append(nl)
    return "".join(lines[:at] + insert + lines[at:])


def proposed_title(insight: str, max_chars: int = TITLE_CHARS) -> str:
    """A thing title for ``insight``: the words before its first verb (the
    subject phrase: "The staging Redis needs a restart" -> "Staging Redis";
    a verb is a common one of :data:`_VERBS` or a lower-case -s/-ed word
    followed by a function word), leading article dropped, dates and
    ticket numbers removed; when no subject phrase is found, the insight's
    first clause. Never a diary title (no dates, shorter than
    ``diary_title_chars``)."""
    from brainwork.analysis.titles import diary_title, thing_title

    clean = thing_title(" ".join(insight.split()), max_chars)
    bare_clean = _ARTICLE.sub("", clean)
    words = _WORDS.findall(bare_clean)
    subject: list[str] = []
    for k, w in enumerate(words):
        bare = w.strip(".,;:!?'\"")
        low = bare.lower()
        after = words[k + 1].lower().strip(".,;:!?'\"") if k + 1 < len(words) else ""
        inflected = bare == low and len(low) > 3 and low.endswith(("s", "ed")) and not low.endswith(("ss", "us"))
        if low in _VERBS or (subject and inflected and after in _FUNCTION):
            break
        subject.append(w)
    title = " ".join(subject).strip(" .,;:-") if 0 < len(subject) < len(words) else bare_clean
    title = re.sub(r"'s$", "", title).strip(" .,;:-") or clean or "Untitled note"
    title = title[0].upper() + title[1:]
    d = diary_title(title, max_chars)
    return d.suggestion if d is not None and d.suggestion else title


def remember(
    config: Config,
    store: Store,
    insight: str,
    *,
    page: str | None = None,
    create: bool = False,
    today: str | date | None = None,
    embedder: Embedder | None = None,
) -> Remembered:
    """File ``insight`` (see the module doc).

    Raises:
        UserError: an empty insight; ``page`` names no page (PageNotFound)
            or an attachment; the page's file is over ``max_file_bytes``
            (:func:`brainwork.ops.fixes.too_large_to_edit`); a file changed
            meanwhile.
    """
    from brainwork.ops import unit_of_work
    from brainwork.learn.pagefile import Edits
    from brainwork.store import graph

    insight = " ".join(str(insight or "").split())
    if not insight:
        raise UserError("say what to remember")
    day = today.isoformat() if isinstance(today, date) else (today or date.today().isoformat())
    line = note_line(insight, day)
    th = config.thresholds.remember_similarity
    nearest: list[Match] = []
    if page is not None:
        target = graph.find_page(store, page)
        row = graph.get_page(store, target, errors=False)
        if row is None or row.kind != "page":
            raise UserError(f"{target!r} is not a page")
        sim = None
    else:
        nearest = nearest_things(config, store, insight, embedder)
        best = nearest[0] if nearest else None
        target = best.id if best is not None and best.similarity >= th else None
        sim = best.similarity if best is not None else None
    if target is not None:
        row = graph.get_page(store, target, errors=False)
        _refuse_oversize(config, row.path)
        edits = Edits(config)
        edits.edit(row.path, lambda t: append_note(t, line))
        op = unit_of_work.apply(config, store, "remember", f"note on {target}: {insight[:60]}", edits.changes(),
                             details={"page": target, "note": line})
        return Remembered("attached", insight, line, page=target, title=row.title, path=row.path, type=row.type,
                          similarity=sim, threshold=th, nearest=nearest[:3], operation=op.id)

    from brainwork.ops.rename import check_title, file_name_for
    from brainwork.vault.write import safe_rel_path

    title = check_title(proposed_title(insight).replace("[", "(").replace("]", ")").replace("|", "/").replace("#", ""))
    rel = safe_rel_path(f"{FOLDERS[PROPOSED_TYPE]}/{file_name_for(title)}.md")
    if (config.vault / rel).exists():
        rel = safe_rel_path(f"{FOLDERS[PROPOSED_TYPE]}/{file_name_for(title)} ({day}).md")
    result = Remembered("proposed", insight, line, title=title, path=rel, type=PROPOSED_TYPE, similarity=sim,
                        threshold=th, nearest=nearest[:3])
    if not create:
        return result
    text = new_page_text(title, PROPOSED_TYPE, day, line)
    edits = Edits(config)
    edits.create(rel, text)
    op = unit_of_work.apply(config, store, "remember", f"create {rel} for a note: {insight[:60]}", edits.changes(),
                         details={"page": rel[:-3], "note": line})
    result.action = "created"
    result.page = rel[:-3]
    result.operation = op.id
    return result


def _refuse_oversize(config: Config, rel: str) -> None:
    """Refuse to append to a file over ``max_file_bytes``, as every page
    edit does: the index never parsed it, and appending means rewriting all
    of it (and journalling its bytes twice)."""
    from brainwork.ops.fixes import too_large_to_edit

    try:
        size = (config.vault / rel).stat().st_size
    except OSError:
        return  # gone or unreadable: reading it for the edit says so, naming the file
    if size > config.thresholds.max_file_bytes:
        raise too_large_to_edit(rel, size, config.thresholds.max_file_bytes)


def new_page_text(title: str, type_: str, day: str, line: str) -> str:
    """The Markdown of a proposed page: frontmatter (title, type, created,
    ``source: agent``), a heading and the note under ``## Notes``."""
    import yaml

    head = yaml.safe_dump({"title": title, "type": type_, "created": day, "source": "agent"},
                          sort_keys=False, allow_unicode=True, width=10_000)
    return f"---\n{head}---\n\n# {title}\n\n{NOTES_HEADING}\n\n{line}\n"
