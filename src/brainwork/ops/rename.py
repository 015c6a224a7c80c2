"""Rename a page as Obsidian does: a new name and/or a new file path, with
every link to it rewritten (see :mod:`brainwork.ops.relink` for which links
and how), and the whole change undoable.

Rules (docs/operations.md):

- Every rewritten link gets the new name as the person typed it (not the
  case an old link happened to use); a case-only rename (``SQL Tips`` ->
  ``Sql Tips``) therefore rewrites every spelling.
- Without ``new_path``, the file follows the name when the page has no
  ``title:`` key or its file name was the title (``Old Title.md`` ->
  ``New Title.md``, characters a file name cannot hold replaced by `` - ``);
  a page with a ``title:`` and a slug file name (``renew-tls-cert.md`` titled
  "Renew TLS certificate") keeps its path and its ``title:`` line changes.
- By default the renamed page's own bytes stay as they were apart from links
  to itself (and that ``title:`` line). Only when asked (``keep_alias`` /
  ``add_title``, or ``[rename]`` in ``brainwork.toml``, see
  :class:`brainwork.config.RenameSettings`) are the old names added to
  ``aliases`` (or ``alias`` if the page uses that key) and a ``title:`` key
  written into a page that had none.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from dataclasses import dataclass, field

from brainwork.config import Config
from brainwork.errors import UserError
from brainwork.ops import unit_of_work
from brainwork.ops.journal import FileChange
from brainwork.ops.operation import Operation
from brainwork.ops.relink import ENCODING_ERRORS, BAD_TARGET_CHARS, LinkEdit, LinkNote, VaultLinks, plan_relink, verify, watch_for
from brainwork.store import Store
from brainwork.vault.edit import EditError, add_to_list_field, frontmatter_fields, set_field
from brainwork.vault.parse import page_id, parse_text
from brainwork.vault.resolve import norm
from brainwork.wording import counted
from brainwork.vault.write import MAX_NAME_BYTES, safe_rel_path, slugify, vault_file

_FILE_BAD = re.compile(r'\s*[\\/:*?"<>|#^\[\]\x00-\x1f\x7f]+\s*')


@dataclass
class RenamePlan:
    """What a rename will do, before it does it.

    ``page``/``new_id`` page ids; ``old_path``/``new_path`` vault-relative
    files; ``changes`` the file changes for :func:`~brainwork.ops.unit_of_work.apply`;
    ``edits`` every rewritten link; ``revived`` dead links the new name will
    bring to life.
    """

    page: str
    new_id: str
    old_path: str
    new_path: str
    old_title: str
    new_title: str
    changes: list[FileChange] = field(default_factory=list)
    edits: list[LinkEdit] = field(default_factory=list)
    revived: list[LinkNote] = field(default_factory=list)

    @property
    def links_rewritten(self) -> int:
        return len(self.edits)

    @property
    def files(self) -> list[str]:
        """Vault-relative files that change (the renamed page under both names)."""
        return [c.path for c in self.changes]

    def summary(self) -> str:
        what = []
        if self.new_title != self.old_title:
            what.append(f"title {self.old_title!r} -> {self.new_title!r}")
        if self.new_path != self.old_path:
            what.append(f"{self.old_path} -> {self.new_path}")
        n_files = len({e.path for e in self.edits})
        return f"rename {', '.join(what) or self.page}: {counted(self.links_rewritten, 'link')} in {counted(n_files, 'file')}"

    def to_json(self) -> dict:
        return {
            "page": self.page, "new_id": self.new_id, "old_path": self.old_path, "new_path": self.new_path,
            "old_title": self.old_title, "new_title": self.new_title, "links_rewritten": self.links_rewritten,
            "files": self.files, "edits": [e.to_json() for e in self.edits],
            "revived": [{"path": r.path, "line": r.line, "target": r.target} for r in self.revived],
        }


@dataclass
class RenameResult:
    """A done rename: its plan and the undo-log entry."""

    plan: RenamePlan
    operation: Operation


def check_title(title: str) -> str:
    """A usable page title (stripped).

    Raises:
        UserError: empty, or holds a character that ends or splits a
            wikilink (``[ ] | # ^``) or a control character.
    """
    t = (title or "").strip()
    if not t:
        raise UserError("the new title is empty")
    if BAD_TARGET_CHARS.search(t):
        raise UserError(f"a title may not contain [ ] | # ^ or control characters (links could not name it): {t!r}")
    return t


def file_name_for(title: str) -> str:
    """A file stem for ``title``: characters a file name (or wikilink)
    cannot hold become `` - ``; capped to the file-name byte limit; NFC,
    as a typed name is (a new file is never named in NFD)."""
    stem = _FILE_BAD.sub(" - ", unicodedata.normalize("NFC", title)).strip(" .-")
    stem = re.sub(r"\s+", " ", stem)
    while len((stem + ".md").encode("utf-8")) > MAX_NAME_BYTES:
        stem = stem[:-1].rstrip(" .-")
    return stem or slugify(title)


def _new_path(pid: str, row: dict, new_title: str | None, new_path: str | None, has_title_field: bool) -> str:
    old_path = row["path"]
    if new_path:
        p = unicodedata.normalize("NFC", new_path.strip())
        if not p.lower().endswith(".md"):
            p += ".md"
        p = safe_rel_path(p)
        stem = p.rsplit("/", 1)[-1][:-3]
        if BAD_TARGET_CHARS.search(stem):
            raise UserError(f"a file name may not contain [ ] | # ^ (links could not name it): {p!r}")
        return p
    stem = pid.rsplit("/", 1)[-1]
    if new_title and (not has_title_field or norm(stem) == norm(row["title"])):
        folder = old_path.rsplit("/", 1)[0] + "/" if "/" in old_path else ""
        return safe_rel_path(folder + file_name_for(new_title) + ".md")
    return old_path


def plan_rename(
    config: Config, store: Store, page: str, new_title: str | None = None, new_path: str | None = None,
    *, refresh: bool = True, keep_alias: bool | None = None, add_title: bool | None = None,
) -> RenamePlan:
    """Plan renaming ``page`` (id, path, title or alias) to ``new_title``
    and/or ``new_path`` (vault-relative, ``.md`` optional). Reads files,
    writes nothing. ``refresh`` re-indexes changed files first.
    ``keep_alias``: add the old title and old file name to the page's
    aliases; ``add_title``: write a ``title:`` key when the page has none and
    its heading or file name would not give the new name. ``None`` takes the
    vault's ``[rename]`` setting (both off by default).

    Raises:
        PageNotFound: no such page.
        UnsafePath: ``new_path`` would leave the vault or is not allowed.
        UserError: bad title, the target file exists, nothing would change,
            or other links would change target (see :mod:`relink`).
    """
    from brainwork.index.sync import sync

    if new_title is None and not new_path:
        raise UserError("give a new title or a new path")
    if refresh:
        sync(config, store)
    vl = VaultLinks.load(store)
    before = vl.resolver()
    pid = vl.find_page(store, before, page)
    row = vl.state.get(pid)
    if row is None or row["kind"] != "page":
        raise UserError(f"{page!r} is an attachment, not a page; only pages can be renamed")
    old_title = row["title"]
    old_path = row["path"]
    title = check_title(new_title) if new_title is not None else None
    data = (config.vault / old_path).read_bytes()
    try:
        text = data.decode("utf-8")
        fields = frontmatter_fields(text)
    except (UnicodeDecodeError, EditError) as exc:
        raise UserError(f"{old_path}: cannot edit this page ({exc})") from None
    has_title_field = bool(isinstance(fields.get("title"), str) and fields["title"].strip())
    path = _new_path(pid, row, title, new_path, has_title_field)
    new_id = page_id(path)
    moved = path != old_path
    if moved:
        if norm(path) != norm(old_path) and vault_file(config.vault, path).exists():
            raise UserError(f"{path} already exists; choose another name")
        key = norm(new_id)
        clash = [p for p in before.by_base.get(key.rsplit("/", 1)[-1], ()) if norm(p) == key and p != pid]
        if clash:
            raise UserError(f"{path} would clash with {vl.state[clash[0]]['path']}; choose another name")
    settings = config.rename
    keep_alias = settings.keep_alias if keep_alias is None else keep_alias
    add_title = settings.add_title if add_title is None else add_title
    old_stem = pid.rsplit("/", 1)[-1]
    new_stem = new_id.rsplit("/", 1)[-1]
    if not moved and (title is None or title == old_title):
        raise UserError(f"nothing to rename: {pid!r} already has that title and path")
    # The title the page has afterwards: the wanted one where a title line is
    # written (the page has one, or add_title), else what its heading or new
    # file name gives, as the indexer will read it.
    write_title = title is not None and (has_title_field or add_title)
    if not write_title:
        title = parse_text(path, data, 0, config.thresholds.max_file_bytes).title
    # Old names kept as aliases only when asked: the old title, and the old
    # file name when the file is renamed (outside references use either).
    keep = ([old_title] + ([old_stem] if norm(old_stem) != norm(new_stem) else [])) if keep_alias else []
    aliases = list(row["aliases"] or [])
    names_after = [title, *aliases]
    new_aliases = []
    for name in keep:
        if norm(name) != norm(title) and all(norm(name) != norm(a) for a in aliases + new_aliases):
            new_aliases.append(name)
    names_after += new_aliases
    typed = new_title.strip() if new_title is not None else None

    after = vl.renamed(before, pid, new_id, names_after)
    plan = plan_relink(
        config, vl, before, after,
        redirect={pid: new_id}, moved={pid: new_id} if moved else {},
        titles={pid: (old_title, typed or title)}, force_files=(pid,),
        watch=watch_for([pid, new_id], [old_title, title, *aliases, *new_aliases]), as_typed=True,
    )
    data, page_text, bom = plan.texts[old_path]
    # Title: only the title line; added when the title the page would have
    # anyway (its file name or first heading) is not the wanted one.
    current = parse_text(path, (bom + page_text).encode("utf-8"), 0, config.thresholds.max_file_bytes).title
    if write_title and current != title:
        page_text = set_field(page_text, "title", title)
    key = "alias" if "alias" in fields and "aliases" not in fields else "aliases"
    for name in new_aliases:
        page_text = add_to_list_field(page_text, key, name)
    verify(config, plan, after, {old_path: path}, texts={old_path: page_text})

    changes: list[FileChange] = []
    for rel, (before_bytes, text_after, b) in plan.texts.items():
        final = page_text if rel == old_path else text_after
        after_bytes = (b + final).encode("utf-8", ENCODING_ERRORS)
        if rel == old_path and moved:
            changes.append(FileChange(old_path, before_bytes, None))
            # The moved file keeps its permission bits (a 0640 page stays private).
            source_mode = stat.S_IMODE(os.stat(config.vault / old_path).st_mode)
            changes.append(FileChange(path, None, after_bytes, after_mode=source_mode))
        elif after_bytes != before_bytes:
            changes.append(FileChange(rel, before_bytes, after_bytes))
    return RenamePlan(pid, new_id, old_path, path, old_title, title, changes, plan.edits, plan.revived)


def rename(
    config: Config, store: Store, page: str, new_title: str | None = None, new_path: str | None = None,
    *, keep_alias: bool | None = None, add_title: bool | None = None,
) -> RenameResult:
    """Plan and apply a rename (undoable: one entry in the undo log).

    Returns a :class:`RenameResult`. Raises as :func:`plan_rename` and
    :func:`brainwork.ops.unit_of_work.apply`.
    """
    plan = plan_rename(config, store, page, new_title, new_path, keep_alias=keep_alias, add_title=add_title)
    op = unit_of_work.apply(
        config, store, "rename", plan.summary(), plan.changes,
        details={
            "page": plan.page, "new_id": plan.new_id, "old_title": plan.old_title, "new_title": plan.new_title,
            "links_rewritten": plan.links_rewritten, "files": len({e.path for e in plan.edits}),
        },
    )
    return RenameResult(plan, op)
