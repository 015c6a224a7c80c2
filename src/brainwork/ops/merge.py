"""Merge page SOURCE into page TARGET (irreversible).

Links to SOURCE are redirected (:mod:`brainwork.ops.relink`), SOURCE's body
and frontmatter are folded into TARGET (a scalar both set differently is a
conflict: TARGET's value stays unless ``prefer`` says otherwise), and
SOURCE's file is removed. Applied through
:func:`brainwork.ops.unit_of_work.apply` (journaled, atomic, inside the
vault) but it cannot be undone, so :func:`plan_merge` shows exactly what will
change and callers ask before :func:`merge`. Rules: docs/operations.md,
"Merge (irreversible)".
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from itertools import zip_longest
from typing import Any

from brainwork.config import Config
from brainwork.errors import UserError
from brainwork.ops import unit_of_work
from brainwork.ops.journal import FileChange
from brainwork.ops.operation import Operation
from brainwork.ops.relink import ENCODING_ERRORS, LinkEdit, LinkNote, RelinkPlan, VaultLinks, plan_relink, verify, watch_for
from brainwork.store import Store
from brainwork.store import graph
from brainwork.vault.edit import (
    EditError,
    add_to_list_field,
    append_field_lines,
    field_block,
    frontmatter_fields,
    newline_of,
    set_field,
)
from brainwork.vault.frontmatter import split_frontmatter
from brainwork.vault.parse import BOM, parse_text
from brainwork.vault.resolve import norm
from brainwork.vocabulary import EDGE_KEYS
from brainwork.wording import counted

#: Keys whose values are lists of items even when written as one scalar.
LIST_KEYS = frozenset({"tags", "tag", "aliases", "alias", "cssclasses"}) | frozenset(EDGE_KEYS)


@dataclass(frozen=True)
class FieldConflict:
    """A scalar key both pages set differently. ``chosen`` is ``"target"``
    (TARGET's value stays, the default) or ``"source"``."""

    key: str
    target_value: Any
    source_value: Any
    chosen: str = "target"

    def to_json(self) -> dict:
        return {"key": self.key, "target": self.target_value, "source": self.source_value, "chosen": self.chosen}


@dataclass
class MergePlan:
    """Everything a merge will do, for the confirmation screen.

    Ids and paths of both pages; ``source_text``/``target_text`` the pages
    as they are (decoded, BOM removed) and ``merged_text`` TARGET afterwards;
    ``changes`` for :func:`~brainwork.ops.unit_of_work.apply`; ``edits`` every redirected link
    (in all files, SOURCE's and TARGET's included); ``conflicts`` the scalar
    fields that differ; ``fields_added`` keys copied from SOURCE;
    ``items_added`` key -> list items unioned into TARGET; ``aliases_added``.
    """

    source: str
    target: str
    source_path: str
    target_path: str
    source_title: str
    target_title: str
    source_text: str
    target_text: str
    merged_text: str
    changes: list[FileChange] = field(default_factory=list)
    edits: list[LinkEdit] = field(default_factory=list)
    conflicts: list[FieldConflict] = field(default_factory=list)
    fields_added: list[str] = field(default_factory=list)
    items_added: dict[str, list[str]] = field(default_factory=dict)
    aliases_added: list[str] = field(default_factory=list)
    revived: list[LinkNote] = field(default_factory=list)

    @property
    def links_rewritten(self) -> int:
        """Links in other files redirected from SOURCE to TARGET."""
        return sum(1 for e in self.edits if e.path not in (self.source_path, self.target_path))

    @property
    def pages_touched(self) -> list[str]:
        """Files that change (TARGET rewritten, SOURCE removed, linking files)."""
        return [c.path for c in self.changes]

    def side_by_side(self) -> list[tuple[str, str, str]]:
        """Rows ``(tag, source line, target line)`` aligning the two pages,
        ``tag`` one of ``equal``, ``replace``, ``delete`` (only in SOURCE),
        ``insert`` (only in TARGET); missing sides are ``""``."""
        a = self.source_text.splitlines()
        b = self.target_text.splitlines()
        rows: list[tuple[str, str, str]] = []
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
            for left, right in zip_longest(a[i1:i2], b[j1:j2], fillvalue=""):
                rows.append((tag, left, right))
        return rows

    def target_diff(self, context: int = 3) -> str:
        """Unified diff of TARGET before -> after."""
        return "".join(difflib.unified_diff(
            self.target_text.splitlines(True), self.merged_text.splitlines(True),
            self.target_path, self.target_path + " (merged)", n=context,
        ))

    def summary(self) -> str:
        return (
            f"merge {self.source} into {self.target}: {counted(self.links_rewritten, 'link')} redirected, "
            f"{counted(len(self.pages_touched), 'file')} touched, {counted(len(self.conflicts), 'conflict')}"
        )

    def describe(self) -> str:
        """The plan as text for the command line (several lines)."""
        lines = [
            f"Merge {self.source_title!r} ({self.source_path}) INTO {self.target_title!r} ({self.target_path})",
            f"  {self.source_path} will be removed; its body goes under '## Merged from {self.source_title}'",
            f"  links redirected: {self.links_rewritten} in {counted(len({e.path for e in self.edits} - {self.source_path, self.target_path}), 'other file')}",
            f"  files touched: {len(self.pages_touched)}",
        ]
        if self.aliases_added:
            lines.append(f"  aliases added to target: {', '.join(self.aliases_added)}")
        if self.fields_added:
            lines.append(f"  fields copied from source: {', '.join(self.fields_added)}")
        for key, items in self.items_added.items():
            lines.append(f"  {key}: + {', '.join(items)}")
        if self.conflicts:
            lines.append(f"  conflicts ({len(self.conflicts)}):")
            for c in self.conflicts:
                lines.append(f"    {c.key}: target {c.target_value!r} vs source {c.source_value!r} -> keeping {c.chosen}'s")
        for e in self.edits[:20]:
            if e.path not in (self.source_path, self.target_path):
                lines.append(f"  {e.path}:{e.line}: {e.old} -> {e.new}")
        extra = self.links_rewritten - min(self.links_rewritten, 20)
        if extra > 0:
            lines.append(f"  ... and {counted(extra, 'more link')}")
        lines.append("  A merge cannot be undone.")
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {
            "source": self.source, "target": self.target, "source_path": self.source_path,
            "target_path": self.target_path, "source_title": self.source_title, "target_title": self.target_title,
            "links_rewritten": self.links_rewritten, "pages_touched": self.pages_touched,
            "conflicts": [c.to_json() for c in self.conflicts], "fields_added": self.fields_added,
            "items_added": self.items_added, "aliases_added": self.aliases_added,
            "edits": [e.to_json() for e in self.edits], "irreversible": True,
        }


@dataclass
class MergeResult:
    """A done merge: its plan and the (unrecorded, id 0) operation."""

    plan: MergePlan
    operation: Operation


def _items(key: str, value) -> list[str] | None:
    """A field value as list items, or None for a mapping (not mergeable)."""
    if value is None or value == "":
        return []
    if isinstance(value, dict):
        return None
    if isinstance(value, list):
        if any(isinstance(v, (dict, list)) for v in value):
            return None
        return [str(v) for v in value]
    if key in ("tags", "tag", "aliases", "alias") and "," in value:
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(value)]


def _chosen(prefer, key: str) -> str:
    if isinstance(prefer, dict):
        choice = prefer.get(key, "target")
    else:
        choice = prefer or "target"
    if choice not in ("source", "target"):
        raise UserError(f"prefer must be 'source' or 'target', not {choice!r}")
    return choice


def _body_of(text: str) -> str:
    split = split_frontmatter(text)
    body = text[split.body_start :] if split.yaml_text is not None else text
    return body


def incoming_links(store: Store, page_id: str) -> int:
    """Links to ``page_id`` written in other files (0 for a page that is
    gone: the merge plan then reports it)."""
    try:
        edges = graph.page_edges(store, page_id)
    except Exception:  # a page that vanished between the finding and the plan
        return 0
    return sum(1 for e in edges.in_ if e.file != page_id)


def merge_direction(store: Store, page: str, other: str) -> tuple[str, str]:
    """``(source, target)`` for merging a duplicate pair, ``page`` the
    finding's page and ``other`` its partner: the page more links point to
    is kept (fewer links to rewrite), ``page`` on a tie. The duplicate
    finding's merge fix (the findings pane's ``m``) and the review queue's
    merge proposals both follow it."""
    if incoming_links(store, other) > incoming_links(store, page):
        return page, other
    return other, page


def plan_merge(
    config: Config, store: Store, source: str, target: str, *, prefer: str | dict[str, str] | None = None,
    refresh: bool = True,
) -> MergePlan:
    """Plan merging page ``source`` into page ``target`` (ids, paths, titles
    or aliases). Writes nothing. ``prefer``: ``"source"``/``"target"`` for
    every conflicting scalar field, or ``{key: "source"|"target"}``.

    Raises:
        PageNotFound: either page does not exist.
        UserError: both are the same page, one is an attachment, a page
            cannot be read or edited, or other links would change target.
    """
    from brainwork.index.sync import sync

    if refresh:
        sync(config, store)
    sid = graph.find_page(store, source)
    tid = graph.find_page(store, target)
    if sid == tid:
        raise UserError(f"cannot merge {sid!r} into itself")
    vl = VaultLinks.load(store)
    for pid in (sid, tid):
        if not vl.is_page(pid):
            raise UserError(f"{pid!r} is an attachment, not a page; only pages can be merged")
    srow, trow = vl.state[sid], vl.state[tid]
    s_title, t_title = srow["title"], trow["title"]
    t_names = [t_title, *(trow["aliases"] or [])]
    new_aliases = []
    for name in [s_title, *(srow["aliases"] or [])]:
        if all(norm(name) != norm(n) for n in t_names + new_aliases):
            new_aliases.append(name)

    before = vl.resolver()
    after = vl.resolver(drop={sid}, names={tid: t_names + new_aliases})
    relink = plan_relink(
        config, vl, before, after, redirect={sid: tid}, moved={sid: tid},
        titles={sid: (s_title, t_title)}, keep_name=False, force_files=(sid, tid),
        watch=watch_for([sid, tid], [s_title, *(srow["aliases"] or []), *t_names]),
    )
    s_path, t_path = srow["path"], trow["path"]
    s_data, s_text, _ = relink.texts[s_path]
    t_data, t_text, t_bom = relink.texts[t_path]
    try:
        s_orig = s_data.decode("utf-8").removeprefix(BOM)
        t_orig = t_data.decode("utf-8").removeprefix(BOM)
        s_fields = frontmatter_fields(s_text)
        t_fields = frontmatter_fields(t_text)
    except (UnicodeDecodeError, EditError) as exc:
        raise UserError(f"cannot merge: a page's frontmatter cannot be edited ({exc})") from None

    merged = t_text
    conflicts: list[FieldConflict] = []
    fields_added: list[str] = []
    items_added: dict[str, list[str]] = {}
    alias_key = "alias" if "alias" in t_fields and "aliases" not in t_fields else "aliases"
    for key, s_value in s_fields.items():
        if key in ("title", "aliases", "alias"):
            continue
        t_value = t_fields.get(key)
        if t_value is None or t_value == "" or t_value == []:
            if t_value is None and key not in t_fields:
                block = field_block(s_text, key)
                if block:
                    merged = append_field_lines(merged, block)
                    fields_added.append(key)
                continue
            if isinstance(s_value, str):
                merged = set_field(merged, key, s_value)
                fields_added.append(key)
                continue
        s_items, t_items = _items(key, s_value), _items(key, t_value)
        listy = key in LIST_KEYS or isinstance(s_value, list) or isinstance(t_value, list)
        if listy and s_items is not None and t_items is not None:
            for item in s_items:
                updated = add_to_list_field(merged, key, item)
                if updated != merged:
                    items_added.setdefault(key, []).append(item)
                    merged = updated
            continue
        if isinstance(s_value, str) and isinstance(t_value, str) and s_value.strip() == t_value.strip():
            continue
        if s_value == t_value:
            continue
        choice = _chosen(prefer, key)
        if choice == "source":
            if isinstance(s_value, str):
                merged = set_field(merged, key, s_value)
            else:
                raise UserError(f"cannot take source's {key!r}: it is not a single text value")
        conflicts.append(FieldConflict(key, t_value, s_value, choice))
    for name in new_aliases:
        merged = add_to_list_field(merged, alias_key, name)

    nl = newline_of(merged)
    body = _body_of(s_text).replace("\r\n", "\n")
    body = body.lstrip("\n")
    first, _, rest = body.partition("\n")
    if first.startswith("# ") and first[2:].strip().rstrip("#").strip() == s_title:
        body = rest.lstrip("\n")
    section = f"## Merged from {s_title}\n\n{body}"
    if not section.endswith("\n"):
        section += "\n"
    if merged and not merged.endswith(("\n", "\r")):
        merged += nl
    merged += nl + section.replace("\n", nl)

    # Check: the merged page's links all reach pages the two pages reached.
    reached = set(relink.expect[s_path]) | set(relink.expect[t_path])
    check = parse_text(t_path, (t_bom + merged).encode("utf-8"), 0, config.thresholds.max_file_bytes)
    for link in check.links:
        got = after.resolve(link.target, tid).page
        if got not in reached and got != tid:
            raise UserError(f"merged page: {link.raw!r} would resolve to {got or 'nothing'}; nothing was written")
    others = [rel for rel in relink.texts if rel not in (s_path, t_path)]
    sub = RelinkPlan(
        texts={r: relink.texts[r] for r in others},
        expect={r: relink.expect[r] for r in others if r in relink.expect},
        checks=[c for c in relink.checks if c.path in others],
    )
    verify(config, sub, after, {})

    changes: list[FileChange] = []
    for rel in others:
        data, text, bom = relink.texts[rel]
        new = (bom + text).encode("utf-8", ENCODING_ERRORS)
        if new != data:
            changes.append(FileChange(rel, data, new))
    changes.append(FileChange(t_path, t_data, (t_bom + merged).encode("utf-8")))
    changes.append(FileChange(s_path, s_data, None))
    return MergePlan(
        source=sid, target=tid, source_path=s_path, target_path=t_path, source_title=s_title,
        target_title=t_title, source_text=s_orig, target_text=t_orig, merged_text=merged, changes=changes,
        edits=relink.edits, conflicts=conflicts, fields_added=fields_added, items_added=items_added,
        aliases_added=new_aliases, revived=relink.revived,
    )


def merge(config: Config, store: Store, plan: MergePlan) -> MergeResult:
    """Apply a plan from :func:`plan_merge` (irreversible; not in the undo
    log). The plan must still be current: if any file changed since it was
    made, :func:`~brainwork.ops.unit_of_work.apply` refuses and nothing is written.

    Raises:
        UserError: a file changed since planning (plan again).
    """
    op = unit_of_work.apply(
        config, store, "merge", plan.summary(), plan.changes, reversible=False,
        details={"source": plan.source, "target": plan.target, "links_rewritten": plan.links_rewritten,
                 "conflicts": [c.to_json() for c in plan.conflicts]},
    )
    return MergeResult(plan, op)


def merge_pages(
    config: Config, store: Store, source: str, target: str, *, prefer: str | dict[str, str] | None = None,
) -> MergeResult:
    """:func:`plan_merge` then :func:`merge`, without asking (the caller
    has confirmed)."""
    return merge(config, store, plan_merge(config, store, source, target, prefer=prefer))
