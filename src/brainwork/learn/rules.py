"""Rules and the approval gate: nothing becomes doctrine without an explicit
human decision.

A rule page (``type: rule``) moves ``candidate`` -> ``active`` ->
``retired``, or ``candidate`` -> ``rejected``, through :func:`approve`
(:func:`plan_approval` says beforehand what it will do), :func:`reject`,
:func:`retire` and :func:`link_corrections`; docs/learning-loop.md section 5
says which keys each writes.

Invariants: each decision is one undoable operation
(:func:`brainwork.ops.unit_of_work.apply`: ``brainwork undo`` reverts it
byte for byte); only the keys the decision names change, everything else in
the files keeps its bytes (:mod:`brainwork.vault.edit`); another rule is
retired only when ``supersedes`` names it, never by a suggestion alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, timezone

from brainwork.config import Config
from brainwork.errors import PageNotFound, UserError
from brainwork.learn.doctrine import doctrine
from brainwork.learn.pagefile import Edits, add_items, link, link_target
from brainwork.learn.prune import suggestions
from brainwork.learn.replay import replay
from brainwork.learn.rule import (
    EVIDENCE_KEY, PROMOTED_KEY, PROMOTED_TO_KEY, PROPOSED_SUPERSEDES_KEY, Rule, get_rule, list_rules,
)
from brainwork.wording import counted
from brainwork.ops import unit_of_work
from brainwork.ops.operation import Operation
from brainwork.store import Store
from brainwork.store import graph
from brainwork.store import learning as q
from brainwork.vault.edit import add_to_list_field, set_field
from brainwork.vault.frontmatter import split_frontmatter
from brainwork.vault.links import WIKILINK, split_inner

#: The reason recorded (``RejectedCluster`` row of the approved rule) for the
#: corrections taken out of a rule's evidence at approval: consolidation
#: does not propose them as that rule's evidence again.
DECLINED_EVIDENCE = "not evidence of the approved rule (taken out at approval)"


@dataclass
class Decision:
    """What one approval-gate action did: ``action`` (``approve`` |
    ``supersede`` | ``reject`` | ``retire`` | ``link``), the rule, the
    corrections whose status changed, the rules retired, and the undo-log
    operation (``operation.id``; ``brainwork undo`` reverts it)."""

    action: str
    rule: str
    corrections: list[str]
    retired: list[str]
    operation: Operation
    #: Evidence corrections an approval sent back to the inbox (``open``).
    back: list[str] = field(default_factory=list)
    #: A supersession consolidation suggested and the approval did not apply.
    suggested: str | None = None

    def to_json(self) -> dict:
        return {
            "action": self.action,
            "rule": self.rule,
            "corrections": self.corrections,
            "back_to_inbox": self.back,
            "retired": self.retired,
            "suggested_supersedes": self.suggested,
            "operation": self.operation.id,
            "files": self.operation.paths,
        }


def _today(today: str | date | None) -> str:
    if today is None:
        return date.today().isoformat()
    return today.isoformat() if isinstance(today, date) else str(today)


def _now() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


# -- a drafted candidate's body ----------------------------------------------
#: Lines of the body :mod:`brainwork.learn.consolidate` drafts that approval
#: restates when the person keeps only part of the evidence.
EVIDENCE_HEADING = "## Evidence"
CENTRAL_LINE = '- Rule: the first instruction of the "correct" of the most central correction, '
#: The sentence of a drafted body that states its evidence counts.
_COUNTS_SENTENCE = re.compile(r"(?m)^(Drafted by `brainwork consolidate` on [^\n]*?Evidence: )[^.\n]*\.")
#: The cluster's mean similarity in that sentence, and the central
#: correction's mean similarity to the others on :data:`CENTRAL_LINE`:
#: figures over every drafted correction, with the pass's vectors.
_DRAFT_SIMILARITY = re.compile(r"(?m)^(Drafted by `brainwork consolidate` on [^\n(]*?) \(mean similarity \d+\.\d+\)")
_CENTRAL_SIMILARITY = re.compile(r" \(mean similarity to the others \d+\.\d+\)")
#: The drafted line naming the key terms the evidence shares
#: (:func:`brainwork.learn.consolidate.draft_rule` writes it).
SHARED_TERMS_LINE = "- Shared terms: "


def counts_text(n_corrections: int, n_tasks: int, unlinked: int) -> str:
    """``"3 corrections in 2 tasks"`` — the true counts, with corrections
    linked to no task said as such (they are not counted as tasks)."""
    text = f"{n_corrections} correction{'s' if n_corrections != 1 else ''}"
    if n_tasks:
        text += f" in {n_tasks} task{'s' if n_tasks != 1 else ''}"
    if unlinked:
        text += f" ({unlinked} linked to no task)" if n_tasks else " linked to no task"
    return text


def restate_counts(text: str, evidence: list[dict]) -> str:
    """``text`` (a drafted candidate page) with its "Evidence: N corrections
    in M tasks." sentence restated for ``evidence`` (correction rows), so
    the counts stay true when later passes add corrections; a page without
    that sentence (hand-written, or edited away) is returned unchanged."""
    tasks = {t for c in evidence for t in c["tasks"]}
    counts = counts_text(len(evidence), len(tasks), sum(1 for c in evidence if not c["tasks"]))
    return _COUNTS_SENTENCE.sub(lambda m: f"{m.group(1)}{counts}.", text, count=1)


def _wikilink_target(line: str, at: int) -> str | None:
    """The target of the wikilink starting at ``line[at]``, or None."""
    m = WIKILINK.match(line, at)
    return split_inner(m.group(2))[0].strip() if m else None


def restate_evidence(text: str, kept: list[dict], dropped: set[str]) -> str:
    """``text`` (a candidate page) once an approval kept only the correction
    rows ``kept`` as its evidence and sent the ids ``dropped`` back to the
    inbox: the drafted "Evidence: ..." sentence counts ``kept``, the items
    of dropped corrections under :data:`EVIDENCE_HEADING` are removed, and
    the :data:`CENTRAL_LINE` of a dropped central correction names it as
    code instead of a wikilink, so the page neither states nor links
    evidence it no longer has. With some dropped, what the pass computed
    over every drafted correction goes too: the shared terms line and the
    cluster's and the central correction's mean similarities (measured with
    the pass's vectors, which approval does not have; the terms come from
    :mod:`brainwork.learn.consolidate`, above this module). Only those
    drafted lines change; the frontmatter and hand-written text keep their
    bytes."""
    start = split_frontmatter(text).body_start
    if dropped:
        out: list[str] = []
        in_evidence = False
        for line in text[start:].splitlines(keepends=True):
            if line.startswith("#"):
                in_evidence = line.rstrip() == EVIDENCE_HEADING
            elif in_evidence and line.startswith("- ") and _wikilink_target(line, 2) in dropped:
                continue
            elif line.startswith(CENTRAL_LINE):
                target = _wikilink_target(line, len(CENTRAL_LINE))
                if target in dropped:
                    end = WIKILINK.match(line, len(CENTRAL_LINE)).end()
                    line = f"{CENTRAL_LINE}`{target}`{line[end:]}"
                line = _CENTRAL_SIMILARITY.sub("", line, count=1)
            elif not in_evidence and line.startswith(SHARED_TERMS_LINE):
                continue
            out.append(line)
        text = text[:start] + _DRAFT_SIMILARITY.sub(r"\1", "".join(out), count=1)
    return restate_counts(text, kept)


def _corrections_by_id(store: Store) -> dict[str, dict]:
    return {c["id"]: c for c in q.corrections(store)}


def _set_correction_status(edits: Edits, corr: dict, status: str, *, only_from: tuple) -> bool:
    if corr["status"] not in only_from:
        return False
    edits.edit(corr["path"], lambda t: set_field(t, "status", status))
    return True


#: Fields of a candidate the person may edit when approving it (frontmatter
#: keys; ``text`` is the ``rule:`` key).
EDITABLE = ("title", "text", "why", "apply")
_FIELD_KEY = {"title": "title", "text": "rule", "why": "why", "apply": "apply"}


@dataclass
class ApprovalPlan:
    """What approving a candidate would do, before it is done (the CLI's
    ``approve --dry-run`` prints it, the workbench's approve step shows it).

    ``promote``: evidence correction ids that will be promoted (they support
    the approved text); ``back``: evidence ids that go back to the inbox
    (status ``open``, no longer linked to the rule); ``edits``: the fields
    changed, ``{"title"|"text"|"why"|"apply": new value}``; ``supersedes``:
    the active rule retired (only when asked for); ``suggested``: the
    candidate's ``proposed_supersedes:`` when it is not acted on (a
    suggestion, never applied by itself)."""

    rule: Rule
    promote: list[str]
    back: list[str]
    edits: dict[str, str]
    supersedes: Rule | None
    suggested: str | None

    def to_json(self) -> dict:
        return {
            "rule": self.rule.id,
            "promote": self.promote,
            "back_to_inbox": self.back,
            "edits": self.edits,
            "supersedes": self.supersedes.id if self.supersedes else None,
            "suggested_supersedes": self.suggested,
        }


def _resolve_evidence(store: Store, rule: Rule, names, what: str) -> list[str]:
    out = []
    for n in names:
        cid = graph.find_page(store, n)
        if cid not in rule.evidence:
            listed = ", ".join(rule.evidence) or "none"
            raise UserError(f"{cid} is not evidence of {rule.id} ({what}; its evidence: {listed})")
        out.append(cid)
    return out


def plan_approval(
    store: Store,
    name: str,
    *,
    title: str | None = None,
    text: str | None = None,
    why: str | None = None,
    apply: str | None = None,
    evidence=None,
    drop=(),
    supersedes: str | None = None,
) -> ApprovalPlan:
    """Check an approval and say what it would do (no writes).

    ``evidence``: the corrections (names) that support the approved text
    and are promoted; None: all of the candidate's evidence. ``drop``:
    corrections taken out of that set. Every other evidence correction goes
    back to the inbox. ``title``/``text``/``why``/``apply``: new values
    (None: unchanged). ``supersedes``: an active rule this one replaces;
    a candidate's ``proposed_supersedes:`` is never taken by itself.

    Raises:
        UserError: not a candidate rule; an edited field is empty; a name in
            ``evidence``/``drop`` is not evidence of the rule; nothing would
            be promoted although the candidate has evidence; the superseded
            page is not an active rule (or is the rule itself).
        PageNotFound: a name designates no page.
    """
    rule = get_rule(store, name)
    if rule.status != "candidate":
        raise UserError(f"{rule.id} is {rule.status or 'without a status'}; only candidate rules can be approved")
    edits: dict[str, str] = {}
    for key, value in (("title", title), ("text", text), ("why", why), ("apply", apply)):
        if value is None:
            continue
        value = " ".join(value.split())
        if not value:
            raise UserError(f"the rule {'text' if key == 'text' else key} is empty")
        current = {"title": rule.title, "text": rule.text, "why": rule.why, "apply": rule.apply}[key]
        if value != " ".join((current or "").split()):
            edits[key] = value
    keep = set(rule.evidence) if evidence is None else set(_resolve_evidence(store, rule, evidence, "--evidence"))
    keep -= set(_resolve_evidence(store, rule, drop, "--drop"))
    if rule.evidence and not keep:
        raise UserError(f"no correction left to promote; keep at least one of {rule.id}'s evidence, or reject it")
    older: Rule | None = None
    if supersedes:
        older = get_rule(store, supersedes)
        if older.id == rule.id:
            raise UserError(f"{rule.id} cannot supersede itself")
        if older.status != "active":
            raise UserError(f"{older.id} is {older.status or 'without a status'}; only an active rule can be superseded")
    suggested = rule.proposed_supersedes if rule.proposed_supersedes and (older is None or older.id != rule.proposed_supersedes) else None
    return ApprovalPlan(
        rule,
        [c for c in rule.evidence if c in keep],
        [c for c in rule.evidence if c not in keep],
        edits,
        older,
        suggested,
    )


def approve(
    config: Config,
    store: Store,
    name: str,
    *,
    text: str | None = None,
    title: str | None = None,
    why: str | None = None,
    apply: str | None = None,
    evidence=None,
    drop=(),
    supersedes: str | None = None,
    keep_older: bool = False,
    today: str | date | None = None,
) -> Decision:
    """Approve candidate rule ``name``: it becomes active doctrine, doing
    only what the person chose (see :func:`plan_approval` for the
    arguments and errors).

    In one undoable operation: the edited fields are written; ``status:
    active``, ``activated: DATE``; the chosen evidence becomes
    ``promoted_from:`` links and those corrections ``promoted``; the other
    evidence corrections lose their links to the rule (``evidence:``,
    ``related:``, ``promoted_from:`` on the rule, ``promoted_to:`` on the
    correction) and are ``open`` again, back in the inbox. Only with
    ``supersedes`` is another rule retired (``retired:``,
    ``retired_reason:`` naming this rule; this rule gets ``supersedes:``).
    ``keep_older`` is accepted for compatibility and changes nothing: a
    proposed supersession is never applied without ``supersedes``.
    ``today``: the ``activated``/``retired`` date (default: today).

    Returns a :class:`Decision` (``back``: the corrections returned to the
    inbox); undo with :func:`brainwork.ops.undo.undo`.
    """
    del keep_older  # a plain approve never retires another rule
    plan = plan_approval(store, name, title=title, text=text, why=why, apply=apply, evidence=evidence, drop=drop,
                         supersedes=supersedes)
    rule, older = plan.rule, plan.supersedes
    day = _today(today)
    corrs = _corrections_by_id(store)
    edits = Edits(config)
    promote_links = [link(c) for c in plan.promote]
    back = set(plan.back)

    def edit_rule(t: str) -> str:
        for key, value in plan.edits.items():
            t = set_field(t, _FIELD_KEY[key], value)
        t = set_field(t, "status", "active")
        t = set_field(t, "activated", day)
        t = _unlink(t, ("related", PROMOTED_KEY), store, back)
        t = add_items(t, PROMOTED_KEY, promote_links)
        t = set_field(t, EVIDENCE_KEY, None)
        t = _drop_redundant_related(t, store, set(plan.promote))
        t = set_field(t, PROPOSED_SUPERSEDES_KEY, None)
        t = restate_evidence(t, [corrs[c] for c in plan.promote if c in corrs], back)
        if older is not None:
            t = add_to_list_field(t, "supersedes", link(older.id)) if _has_key(t, "supersedes") else set_field(t, "supersedes", link(older.id))
        return t

    edits.edit(rule.path, edit_rule)
    changed = [
        c for c in plan.promote
        if c in corrs and _set_correction_status(edits, corrs[c], "promoted", only_from=("open", "clustered", None))
    ]
    returned = []
    for c in plan.back:
        if c not in corrs:
            continue
        corr = corrs[c]

        def edit_back(t: str, reopen: bool = corr["status"] in ("clustered", None)) -> str:
            t = _unlink(t, (PROMOTED_TO_KEY,), store, {rule.id})
            return set_field(t, "status", "open") if reopen else t

        edits.edit(corr["path"], edit_back)
        returned.append(c)
    retired = []
    if older is not None:
        def edit_older(t: str) -> str:
            t = set_field(set_field(t, "status", "retired"), "retired", day)
            return set_field(t, "retired_reason", f"superseded by {rule.id}")

        edits.edit(older.path, edit_older)
        retired.append(older.id)
    kind = "supersede-rule" if older else "approve-rule"
    summary = f"approve {rule.id}" + (f" superseding {older.id}" if older else "")
    if plan.edits:
        summary += f" (edited: {', '.join(plan.edits)})"
    if returned:
        summary += f"; {counted(len(returned), 'correction')} back to the inbox"
    details = {
        "rule": rule.id, "corrections": changed, "back_to_inbox": returned, "retired": retired,
        "edited": bool(plan.edits), "fields": sorted(plan.edits),
    }
    if older is not None:
        details["superseded"] = {
            "old": {"id": older.id, "text": older.text, "why": older.why},
            "new": {"id": rule.id, "text": plan.edits.get("text", rule.text), "why": plan.edits.get("why", rule.why)},
        }
    op = unit_of_work.apply(config, store, kind, summary, edits.changes(), details=details)
    if returned:
        # Derived memory (like a rejection's): inert once the rule is no longer active.
        q.record_rejection(store, rule.id, returned, DECLINED_EVIDENCE, _now())
    return Decision("supersede" if older else "approve", rule.id, changed, retired, op, back=returned,
                    suggested=plan.suggested)


def reject(config: Config, store: Store, name: str, reason: str, *, today: str | date | None = None) -> Decision:
    """Reject candidate rule ``name`` with ``reason`` (required).

    The page keeps its evidence links and gets ``status: rejected``,
    ``rejected: DATE`` and ``rejected_reason:``; the cluster is also recorded
    in the store (``RejectedCluster``) so consolidation does not propose the
    same corrections again even if the page is deleted later.

    Raises:
        UserError: empty reason, the page is not a candidate rule, or a file
            changed meanwhile. PageNotFound: no such page.
    """
    if not reason or not reason.strip():
        raise UserError("a reason is required to reject a rule (--reason)")
    rule = get_rule(store, name)
    if rule.status != "candidate":
        raise UserError(f"{rule.id} is {rule.status or 'without a status'}; only candidate rules can be rejected")
    day = _today(today)
    reason = " ".join(reason.split())
    edits = Edits(config)
    edits.edit(
        rule.path,
        lambda t: set_field(set_field(set_field(t, "status", "rejected"), "rejected", day), "rejected_reason", reason),
    )
    op = unit_of_work.apply(
        config, store, "reject-rule", f"reject {rule.id}: {reason}", edits.changes(),
        details={"rule": rule.id, "reason": reason, "corrections": rule.evidence},
    )
    q.record_rejection(store, rule.id, rule.evidence, reason, _now())
    return Decision("reject", rule.id, [], [], op)


def retire(config: Config, store: Store, name: str, reason: str | None = None, *, today: str | date | None = None) -> Decision:
    """Retire active rule ``name`` (it leaves the doctrine), e.g. after a
    pruning suggestion; ``reason`` is recorded as ``retired_reason:``.

    Raises:
        UserError: the rule is not active. PageNotFound: no such page.
    """
    rule = get_rule(store, name)
    if rule.status != "active":
        raise UserError(f"{rule.id} is {rule.status or 'without a status'}; only active rules can be retired")
    day = _today(today)

    def edit(t: str) -> str:
        t = set_field(set_field(t, "status", "retired"), "retired", day)
        return set_field(t, "retired_reason", " ".join(reason.split())) if reason and reason.strip() else t

    edits = Edits(config)
    edits.edit(rule.path, edit)
    op = unit_of_work.apply(config, store, "retire-rule", f"retire {rule.id}", edits.changes(), details={"rule": rule.id})
    return Decision("retire", rule.id, [], [rule.id], op)


def link_corrections(config: Config, store: Store, name: str, corrections: list[str]) -> Decision:
    """Attach ``corrections`` (names) to rule ``name`` as evidence.

    For an active rule they become ``promoted_from:`` links and their status
    ``promoted``; for a candidate, ``evidence:`` links and status
    ``clustered``. Dismissed corrections are refused.

    Raises:
        UserError: the rule is rejected or retired, a name is not a
            correction, or nothing would change. PageNotFound: no such page.
    """
    rule = get_rule(store, name)
    if rule.status not in ("active", "candidate"):
        raise UserError(f"{rule.id} is {rule.status or 'without a status'}; link corrections to an active or candidate rule")
    corrs = _corrections_by_id(store)
    ids = []
    for n in corrections:
        cid = graph.find_page(store, n)
        if cid not in corrs:
            raise UserError(f"{cid} is not a correction page")
        if corrs[cid]["status"] == "dismissed":
            raise UserError(f"{cid} was dismissed; it cannot be evidence for a rule")
        ids.append(cid)
    active = rule.status == "active"
    key = PROMOTED_KEY if active else EVIDENCE_KEY
    new = [c for c in ids if c not in rule.evidence]
    edits = Edits(config)
    if new:
        edits.edit(rule.path, lambda t: add_items(t, key, [link(c) for c in new]))
    status = "promoted" if active else "clustered"
    allowed = ("open", "clustered", None) if active else ("open", None)
    changed = [c for c in ids if _set_correction_status(edits, corrs[c], status, only_from=allowed)]
    changes = edits.changes()
    if not changes:
        raise UserError(f"{', '.join(ids)} already linked to {rule.id}")
    op = unit_of_work.apply(
        config, store, "link-correction", f"link {counted(len(ids), 'correction')} to {rule.id}", changes,
        details={"rule": rule.id, "corrections": ids},
    )
    return Decision("link", rule.id, changed, [], op)


def _has_key(text: str, key: str) -> bool:
    from brainwork.vault.edit import field_block

    return field_block(text, key) is not None


def _unlink(text: str, keys: tuple[str, ...], store: Store, targets: set[str]) -> str:
    """Remove from the list (or scalar) fields ``keys`` every link whose
    target resolves to one of ``targets`` (page ids); other items keep
    their bytes."""
    from brainwork.vault.edit import frontmatter_fields, remove_from_list_field

    if not targets:
        return text
    fields = frontmatter_fields(text)
    for key in keys:
        value = fields.get(key)
        items = value if isinstance(value, list) else [value] if isinstance(value, str) else []
        for item in items:
            target = link_target(str(item))
            if target is None:
                continue
            try:
                pid = graph.find_page(store, target)
            except PageNotFound:
                continue
            if pid in targets:
                text = remove_from_list_field(text, key, item) if isinstance(value, list) else set_field(text, key, None)
    return text


def _drop_redundant_related(text: str, store: Store, evidence: set[str]) -> str:
    """Remove a ``related:`` key that lists only evidence corrections (a
    hand-written candidate's provenance, now carried by ``promoted_from``)."""
    from brainwork.vault.edit import frontmatter_fields

    value = frontmatter_fields(text).get("related")
    items = value if isinstance(value, list) else [value] if isinstance(value, str) else []
    if not items:
        return text
    for item in items:
        target = link_target(str(item))
        if target is None:
            return text
        try:
            if graph.find_page(store, target) not in evidence:
                return text
        except PageNotFound:
            return text
    return set_field(text, "related", None)


def overview(config: Config, store: Store, status: str | None = None, *, today=None, report=None) -> dict:
    """What ``brainwork rules --json`` prints and the Rules pane shows.

    ``{"rules": [...], "pruning": [...], "doctrine": {"tokens", "budget",
    "over_budget"}, "replay": {...}}``. Each rule is :meth:`Rule.to_json`
    plus ``doctrine_tokens`` (its cost in the doctrine, active rules only)
    and ``replay``: its lesson's figures
    (:meth:`brainwork.learn.replay.LessonReplay.to_json`: repeat rate
    before/after activation with counts, verdict) or None for a rule
    without evidence. ``pruning`` lists merge/retire suggestions
    (:mod:`brainwork.learn.prune`); ``replay`` the replay's totals
    (:meth:`brainwork.learn.replay.Replay.to_json` without ``lessons``).
    ``report``: a replay the caller already ran (loads the model otherwise).

    Raises:
        UserError: unknown ``status``.
    """

    rules = list_rules(store, status)
    every = rules if status is None else list_rules(store)
    report = report if report is not None else replay(config, store, rules=every)
    doc = doctrine(config, store)
    cost = {d.id: d.tokens for d in doc.rules}
    out = []
    for r in rules:
        item = r.to_json()
        lesson = report.lesson(r.id)
        item["doctrine_tokens"] = cost.get(r.id)
        item["replay"] = None if lesson is None else lesson.to_json()
        out.append(item)
    prune = suggestions(config, store, today=today, rules=every, report=report)
    totals = {k: v for k, v in report.to_json().items() if k != "lessons"}
    return {
        "rules": out,
        "pruning": [s.to_json() for s in prune],
        "doctrine": {"tokens": doc.tokens, "budget": doc.budget, "over_budget": doc.over_budget},
        "replay": totals,
    }
