"""Split a page at its ``## `` headings into linked pages (undoable).

For a page ``folder/Stem.md`` with sections ``## A`` and ``## B`` (headings
inside code blocks do not count):

- each section becomes a new page ``folder/Stem - A.md`` (file-name-safe,
  unique; title ``Stem - A`` unless the file name had to change
  characters, then a ``title:`` key carries it) holding ``# A`` and the
  section's text, the original page's ``type`` and ``related: "[[Stem]]"``
  pointing back;
- in the original page each section keeps its ``## A`` heading followed by
  ``Moved to [[Stem - A]].``, so links to ``[[Stem#A]]`` still land on the
  heading and lead on; the text before the first ``## `` stays as it was.

An oversize page is split at its ``## `` headings into linked pages
(docs/operations.md, "split"); the oversize threshold is
:attr:`brainwork.thresholds.Thresholds.oversize_bytes` (the quality bar's
``oversize`` finding suggests this operation), but any page with ``## ``
headings can be split.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from brainwork.config import Config
from brainwork.errors import UserError
from brainwork.ops import unit_of_work
from brainwork.ops.journal import FileChange
from brainwork.ops.operation import Operation
from brainwork.ops.relink import VaultLinks, plan_relink, watch_for
from brainwork.ops.rename import file_name_for
from brainwork.store import Store
from brainwork.store import graph
from brainwork.vault.edit import newline_of, render_scalar
from brainwork.vault.links import WIKILINK_PARTS, mask_non_links
from brainwork.vault.parse import BOM, page_id, parse_text
from brainwork.vault.resolve import norm
from brainwork.vault.write import safe_rel_path
from brainwork.wording import counted

_H2 = re.compile(r"^##[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


@dataclass(frozen=True)
class Section:
    """One new page: ``heading`` as written, ``title``, ``path``, ``text``."""

    heading: str
    title: str
    path: str
    text: str


@dataclass
class SplitPlan:
    """What a split will do: ``page``/``path`` of the original,
    ``sections`` (the new pages), ``original_text`` after the split,
    ``changes`` for :func:`~brainwork.ops.unit_of_work.apply`."""

    page: str
    path: str
    sections: list[Section] = field(default_factory=list)
    original_text: str = ""
    changes: list[FileChange] = field(default_factory=list)

    def summary(self) -> str:
        return f"split {self.page} into {counted(len(self.sections), 'page')}: " + ", ".join(s.path for s in self.sections)

    def to_json(self) -> dict:
        return {"page": self.page, "path": self.path, "sections": [{"heading": s.heading, "title": s.title, "path": s.path} for s in self.sections]}


@dataclass
class SplitResult:
    plan: SplitPlan
    operation: Operation


def _plain_heading(heading: str) -> str:
    """Heading text without link markup (``[[x|label]]`` -> ``label``)."""
    text = WIKILINK_PARTS.sub(lambda m: m.group(2) or m.group(1), heading)
    return re.sub(r"\s+", " ", text).strip()


def plan_split(config: Config, store: Store, page: str, *, refresh: bool = True) -> SplitPlan:
    """Plan splitting ``page`` at its ``## `` headings. Writes nothing.

    Raises:
        PageNotFound: no such page.
        UserError: no ``## `` heading, unreadable page, or a new page name
            would change where existing links point.
    """
    from brainwork.index.sync import sync

    if refresh:
        sync(config, store)
    pid = graph.find_page(store, page)
    vl = VaultLinks.load(store)
    if not vl.is_page(pid):
        raise UserError(f"{pid!r} is an attachment, not a page")
    row = vl.state[pid]
    rel = row["path"]
    data = (config.vault / rel).read_bytes()
    try:
        raw = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"{rel}: not UTF-8; cannot split") from None
    bom = BOM if raw.startswith(BOM) else ""
    text = raw[len(bom):]
    nl = newline_of(text)
    parsed = parse_text(rel, data, 0, config.thresholds.max_file_bytes)
    body_start = len(text) - len(parsed.body)
    body = parsed.body
    heads = list(_H2.finditer(mask_non_links(body)))
    if not heads:
        raise UserError(f"{rel} has no '## ' headings to split at")

    folder = rel.rsplit("/", 1)[0] + "/" if "/" in rel else ""
    stem = pid.rsplit("/", 1)[-1]
    taken = {norm(p) for p in vl.state}
    page_type = parsed.type
    # One resolver over all pages serves every lookup below: building one
    # reads every page's names (~0.2 s CPU per 50,000 pages), and a page
    # with hundreds of links would otherwise pay that once per link.
    before = vl.resolver()
    own = before.resolve(stem, pid)
    back = stem if own.page == pid and not own.ambiguous else pid
    sections: list[Section] = []
    out = [text[:body_start], body[: heads[0].start()]]
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(body)
        heading = body[m.start(1) : m.end(1)].strip()
        plain = _plain_heading(heading) or f"Part {i + 1}"
        title = f"{parsed.title} - {plain}"
        base = file_name_for(f"{stem} - {plain}")
        path = safe_rel_path(f"{folder}{base}.md")
        n = 2
        while norm(page_id(path)) in taken:
            path = safe_rel_path(f"{folder}{base} {n}.md")
            n += 1
        taken.add(norm(page_id(path)))
        new_stem = page_id(path).rsplit("/", 1)[-1]
        content = body[m.end() : end]
        line_end = content.find("\n")
        content = content[line_end + 1 :] if line_end >= 0 else ""
        head_lines = ["---"]
        if title != new_stem:
            head_lines.append(f"title: {render_scalar(title)}")
        if page_type:
            head_lines.append(f"type: {render_scalar(page_type)}")
        head_lines.append(f"related: {render_scalar(f'[[{back}]]')}")
        head_lines.append("---")
        content = content.strip("\r\n")
        new_text = nl.join(head_lines) + nl + f"# {heading}" + nl + (nl + content + nl if content.strip() else "")
        sections.append(Section(heading, title, path, new_text))
        stub = body[m.start() : m.end()] + nl + nl + f"Moved to [[{new_stem}]]." + nl
        if i + 1 < len(heads):
            stub += nl
        out.append(stub)
    original = "".join(out)

    # Nothing else may change target because of the new names.
    new_ids = {page_id(s.path): [s.title] for s in sections}
    after = vl.resolver(add_pages=new_ids)
    plan_relink(config, vl, before, after, redirect={}, moved={}, titles={},
                watch=watch_for(list(new_ids), [s.title for s in sections]))
    before_targets = {before.resolve(l.target, pid).page for l in parsed.links}
    for s in sections:
        sp = parse_text(s.path, s.text.encode("utf-8"))
        for link in sp.links:
            got = after.resolve(link.target, page_id(s.path)).page
            if got not in before_targets and got not in (pid, None):
                raise UserError(f"{s.path}: {link.raw!r} would resolve to {got}; nothing was written")
    for s in sections:
        stem_s = page_id(s.path).rsplit("/", 1)[-1]
        if after.resolve(stem_s, pid).page != page_id(s.path):
            raise UserError(f"the link [[{stem_s}]] would not reach {s.path}; nothing was written")

    changes = [FileChange(rel, data, (bom + original).encode("utf-8"))]
    changes += [FileChange(s.path, None, s.text.encode("utf-8")) for s in sections]
    return SplitPlan(pid, rel, sections, original, changes)


def split_page(config: Config, store: Store, page: str) -> SplitResult:
    """Plan and apply a split (undoable). Raises as :func:`plan_split`."""
    plan = plan_split(config, store, page)
    op = unit_of_work.apply(config, store, "split", plan.summary(), plan.changes, details=plan.to_json())
    return SplitResult(plan, op)
