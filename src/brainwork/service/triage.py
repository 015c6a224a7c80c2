"""Batch triage: one operation for many marked rows (the inbox's and the
findings' multi-select).

Each function plans every row's file edits (or store actions) first and
hands them to :func:`brainwork.ops.changeset.apply` together, so a batch is
journaled as one operation and is ONE entry in the undo log: one ``u``
undoes all of it. A row that cannot be part of the batch (already handled,
no suggested fix, or a fix touching a file an earlier row's fix changes) is
left out and named in the result's ``skipped``; when nothing is left the
batch raises :class:`~brainwork.errors.UserError` and writes nothing.

Nothing here imports Textual; the workbench's panes call these in their
operation workers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any, Iterable

from brainwork.config import Config
from brainwork.errors import UserError
from brainwork.ops import changeset
from brainwork.ops.changeset import FileChange, Operation
from brainwork.store import Store
from brainwork.wording import counted


@dataclass(frozen=True, slots=True)
class Skipped:
    """A row left out of a batch: its ``id`` (correction id or finding key)
    and ``reason`` (one line)."""

    id: str
    reason: str


@dataclass
class BatchResult:
    """A done batch: the one undo-log ``operation``, the ids it handled
    (``done``, in the order given) and the ones it left out."""

    operation: Operation
    done: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)

    def describe(self, verb: str, noun: str = "row") -> str:
        """``Dismissed 3 corrections in one operation (1 left out: …).  (u undoes all of it)``."""
        n = len(self.done)
        text = f"{verb} {n} {noun}{'s' if n != 1 else ''} in one operation"
        if self.skipped:
            first = self.skipped[0]
            text += f" ({len(self.skipped)} left out: {first.id}: {first.reason}"
            text += ", …)" if len(self.skipped) > 1 else ")"
        return text + ".  (u undoes all of it)"


def _ensure(done: list[str], skipped: list[Skipped], what: str) -> None:
    if not done:
        reason = skipped[0].reason if skipped else "nothing was marked"
        raise UserError(f"{what}: nothing to do ({reason})")


# -- corrections (inbox) -----------------------------------------------------------
def dismiss_corrections(
    config: Config, store: Store, names: Iterable[str], reason: str | None = None,
    *, today: str | date | None = None,
) -> BatchResult:
    """Dismiss every correction of ``names`` as one undoable operation (kind
    ``dismiss-corrections``): each page gets ``status: dismissed``,
    ``dismissed: DATE`` and, with ``reason``, ``dismissed_reason:`` — the
    same edit :func:`brainwork.learn.inbox.dismiss_correction` makes for one.
    Corrections already promoted or dismissed, and names that are not
    corrections, are skipped.

    Raises:
        UserError: none of them can be dismissed, or a file changed meanwhile.
    """
    from brainwork.learn.inbox import WAITING, _one_line, dismissal_edit
    from brainwork.learn.pagefile import Edits
    from brainwork.store import graph
    from brainwork.store import learning as q

    rows = {c["id"]: c for c in q.corrections(store)}
    why = _one_line(reason)
    edit = dismissal_edit(why, today)
    edits = Edits(config)
    done: list[str] = []
    skipped: list[Skipped] = []
    for name in names:
        try:
            cid = graph.find_page(store, name)
        except UserError as exc:
            skipped.append(Skipped(name, str(exc)))
            continue
        corr = rows.get(cid)
        if corr is None:
            skipped.append(Skipped(cid, "not a correction page"))
        elif corr["status"] not in WAITING:
            skipped.append(Skipped(cid, f"already {corr['status']}"))
        elif cid not in done:
            edits.edit(corr["path"], edit)
            done.append(cid)
    _ensure(done, skipped, "dismiss corrections")
    summary = f"dismiss {counted(len(done), 'correction')}" + (f": {why}" if why else "")
    op = changeset.apply(
        config, store, "dismiss-corrections", summary, edits.changes(),
        details={"corrections": done, "reason": why},
    )
    return BatchResult(op, done, skipped)


# -- findings ------------------------------------------------------------------------
#: The fix a finding's suggestion stands for, by code (see :func:`suggested_fix`).
SUGGESTED_FIXES = {"untyped": "set type", "dead-link": "retarget", "ambiguous-link": "retarget",
                   "diary-title": "rename"}


@dataclass(frozen=True, slots=True)
class SuggestedFix:
    """The fix a finding suggests: ``kind`` (``set type``, ``retarget``,
    ``rename``), the ``page`` it changes and the suggested ``value`` (a
    type, the page to link to, a title); ``label`` one line for people."""

    kind: str
    page: str
    value: str
    target: str | None = None
    line: int | None = None

    @property
    def label(self) -> str:
        if self.kind == "set type":
            return f"set the type of {self.page} to {self.value}"
        if self.kind == "retarget":
            return f"point [[{self.target}]] on {self.page} at {self.value}"
        return f"rename {self.page} to {self.value!r}"


def suggested_fix(finding: Any, page_types: Iterable[str]) -> SuggestedFix | None:
    """The fix ``finding`` suggests, or None: an untyped page's suggested
    type (when the vocabulary has it), a dead or ambiguous link's first
    suggested page, a diary title's suggested thing title. Other codes (a
    merge cannot be undone, a split or a new page need a person's choices)
    suggest none."""
    from brainwork.service.views import suggested_title, suggestions_of

    code = getattr(finding, "code", None)
    page = getattr(finding, "page", None)
    if not page:
        return None
    if code == "untyped":
        value = getattr(finding, "target", None) or (getattr(finding, "evidence", None) or {}).get("suggestion")
        return SuggestedFix("set type", page, value) if value and value in set(page_types) else None
    if code in ("dead-link", "ambiguous-link") and getattr(finding, "target", None):
        sugg = suggestions_of(finding)
        if sugg:
            return SuggestedFix("retarget", page, sugg[0][0], target=finding.target, line=getattr(finding, "line", None) or None)
        return None
    if code == "diary-title":
        title = suggested_title(finding)
        return SuggestedFix("rename", page, title) if title else None
    return None


def apply_suggested_fixes(config: Config, store: Store, findings: Iterable[Any]) -> BatchResult:
    """Apply the suggested fix (:func:`suggested_fix`) of every finding as
    one undoable operation (kind ``batch-fix``). The vault is synced once,
    then each fix is planned against the files as they are; a finding
    without a suggested fix, whose fix fails to plan, or whose fix touches
    a file an earlier fix of the batch changes, is skipped (fix it on its
    own afterwards). ``done`` holds the findings' keys.

    Raises:
        UserError: no finding could be fixed, or a file changed meanwhile.
    """
    from brainwork.index.sync import sync
    from brainwork.ops.fixes import plan_retarget, plan_set_type
    from brainwork.ops.rename import plan_rename

    sync(config, store)
    changes: list[FileChange] = []
    touched: set[str] = set()
    done: list[str] = []
    skipped: list[Skipped] = []
    lines: list[str] = []
    for f in findings:
        key = getattr(f, "key", None) or f"{getattr(f, 'code', '?')}:{getattr(f, 'page', '?')}"
        fix = suggested_fix(f, config.page_types)
        if fix is None:
            skipped.append(Skipped(key, "no suggested fix"))
            continue
        try:
            if fix.kind == "set type":
                planned, summary, _ = plan_set_type(config, store, fix.page, fix.value, refresh=False)
                planned_changes = [planned]
            elif fix.kind == "retarget":
                planned, summary, _ = plan_retarget(config, store, fix.page, fix.target or "", fix.value, fix.line, refresh=False)
                planned_changes = [planned]
            else:
                plan = plan_rename(config, store, fix.page, fix.value, refresh=False)
                planned_changes, summary = plan.changes, plan.summary()
        except UserError as exc:
            skipped.append(Skipped(key, str(exc)))
            continue
        paths = {c.path for c in planned_changes}
        if paths & touched:
            skipped.append(Skipped(key, "its file is changed by another fix of the batch; fix it on its own"))
            continue
        touched |= paths
        changes += planned_changes
        done.append(key)
        lines.append(summary)
    _ensure(done, skipped, "apply suggested fixes")
    summary = f"fix {counted(len(done), 'finding')}: " + "; ".join(lines[:3]) + ("; …" if len(lines) > 3 else "")
    op = changeset.apply(config, store, "batch-fix", summary, changes, details={"findings": done, "fixes": lines})
    return BatchResult(op, done, skipped)


def dismiss_findings(config: Config, store: Store, keys: Iterable[str], reason: str = "") -> BatchResult:
    """Dismiss every finding of ``keys`` as one undoable operation (kind
    ``dismiss``; store actions only, as :func:`brainwork.ops.fixes.dismiss`
    for one). The vault is synced once first and a key no current finding
    has (a typo, or a finding fixed since it was listed) is left out with
    ``brainwork dismiss``'s refusal as its reason (it names close keys):
    dismissing it would hide nothing.

    Raises:
        UserError: no key given, or none of them is a current finding's.
    """
    from brainwork.index.sync import sync

    wanted = list(dict.fromkeys(k for k in keys if k))
    if wanted:
        sync(config, store)
    done, skipped = _current_keys(config, store, wanted)
    _ensure(done, skipped, "dismiss findings")
    op = changeset.apply(
        config, store, "dismiss", f"dismiss {counted(len(done), 'finding')}" + (f" ({reason})" if reason else ""), [],
        store_actions=[{"do": "dismiss", "key": k, "reason": reason} for k in done],
        details={"keys": done, "reason": reason},
    )
    return BatchResult(op, done, skipped)


def _current_keys(config: Config, store: Store, keys: list[str]) -> tuple[list[str], list[Skipped]]:
    """``keys`` split into those a current finding has (dismissed ones
    count, as for one dismissal) and the rest, each left out with the
    refusal of :func:`brainwork.ops.fixes.dismiss` (the one place that
    words it). Each code's check runs once for all its keys; only a key it
    does not list is handed to that refusal, which runs the check again to
    name close keys."""
    from brainwork.analysis.finding import CODES
    from brainwork.analysis.findings import check
    from brainwork.ops.fixes import require_finding

    codes = {k.split(":", 1)[0] for k in keys} & set(CODES)
    current = {f.key for f in check(config, store, sorted(codes), include_dismissed=True)} if codes else set()
    done: list[str] = []
    skipped: list[Skipped] = []
    for key in keys:
        if key not in current:
            try:
                require_finding(config, store, key)
            except UserError as e:
                skipped.append(Skipped(key, str(e)))
                continue
        done.append(key)
    return done, skipped
