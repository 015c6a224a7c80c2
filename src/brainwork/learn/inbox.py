"""The correction inbox: unresolved corrections, newest first, each with its
task, its cluster and the rules that list it as evidence; and dismissing or
confirming one (undoable). No Textual: the workbench and the CLI share it.

In the inbox: status ``open``, ``clustered`` or missing
(:data:`brainwork.learn.consolidate.UNRESOLVED`, what the next consolidation
pass reads) and ``proposed`` (drafted by a session hook from the person's
words; consolidation never reads it until :func:`confirm_correction` makes it
open). ``promoted`` and ``dismissed`` leave it. A correction's cluster is the
last pass's (:func:`brainwork.learn.consolidate.cluster_of`); its rules come
from the rule pages (``evidence:``, ``related:``, ``promoted_from:``), so
hand-written candidates show their corrections before any pass.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date

from brainwork.analysis.titles import thing_title
from brainwork.config import Config
from brainwork.errors import UserError
from brainwork.learn.consolidate import UNRESOLVED, cluster_of
from brainwork.learn.pagefile import Edits
from brainwork.learn.rule import field_text
from brainwork.learn.rules import DECLINED_EVIDENCE
from brainwork.ops import unit_of_work
from brainwork.ops.operation import Operation
from brainwork.store import Store
from brainwork.store import graph
from brainwork.store import learning as q
from brainwork.vault.edit import set_field
from brainwork.vocabulary import PROPOSED

#: What the inbox lists: the unresolved corrections and the proposed ones.
WAITING = UNRESOLVED + (PROPOSED,)


@dataclass(frozen=True, slots=True)
class TaskRef:
    """A task a correction corrects: its page ``id`` and ``title`` (the id when it has none)."""

    id: str
    title: str


@dataclass(frozen=True, slots=True)
class RuleRef:
    """A rule listing a correction as evidence: page ``id``, ``title``, ``status`` (None when absent)."""

    id: str
    title: str
    status: str | None


@dataclass(frozen=True, slots=True)
class Rejection:
    """A rejected candidate rule whose evidence holds a correction: ``rule``
    its id, ``on`` the day it was rejected (``YYYY-MM-DD``; the page's
    ``rejected:``, else when the store recorded it; None when neither says).
    Consolidation proposes none of those corrections again, alone or
    together, until a new correction joins them."""

    rule: str
    on: str | None


@dataclass
class InboxItem:
    """One correction as the inbox shows it.

    ``wrong``/``correct``/``why``: its three fields, each on one line (``""``
    when missing); ``created``: ``YYYY-MM-DD`` text or None; ``tasks``: the
    tasks it corrects (usually one); ``cluster``: the last pass's cluster
    dict (``corrections``, ``tasks``, ``candidate``, ``similarity``,
    ``action``, ``rule``, ...; see
    :meth:`brainwork.learn.consolidate.Cluster.to_json`) or None; ``rules``:
    the rules listing it as evidence; ``considered``: when the last pass
    read it and put it in none of its clusters, that pass's time (its
    ``at``, ISO 8601), else None (not read yet: the next pass reads it);
    ``rejections``: the rejected candidates holding it (:class:`Rejection`),
    by rule id, whether or not their page is still there.
    :meth:`to_json` gives tasks and rules as ``{"id", "title"}`` /
    ``{"id", "title", "status"}`` mappings.
    """

    id: str
    path: str
    title: str
    status: str | None
    created: str | None
    wrong: str
    correct: str
    why: str
    tasks: list[TaskRef] = field(default_factory=list)
    cluster: dict | None = None
    rules: list[RuleRef] = field(default_factory=list)
    considered: str | None = None
    rejections: list[Rejection] = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)


def _one_line(value) -> str:
    """A frontmatter value as one line, its runs of white space folded."""
    return " ".join(field_text(value).split())


def _newest_first(item: InboxItem) -> tuple[str, str]:
    return (item.created or "", item.id)


def inbox(store: Store, *, include_handled: bool = False) -> list[InboxItem]:
    """The unresolved corrections (every correction with ``include_handled``),
    newest first (``created`` descending, then id descending; undated last).
    """
    rows = q.corrections(store, None if include_handled else WAITING)
    titles = {t["id"]: t["title"] for t in q.tasks(store)}
    clusters = cluster_of(store)
    last = q.last_pass(store)
    # Read by the last pass but in none of its clusters: a one-off so far,
    # which another pass over the same corrections would leave alone too.
    left_alone = set(last["corrections"]) - set(clusters) if last else set()
    rule_rows = {r["id"]: r for r in q.rules(store)}
    evidence_of: dict[str, list[str]] = {}
    for rule_id, corrs in q.rule_evidence(store).items():
        for c in corrs:
            evidence_of.setdefault(c, []).append(rule_id)
    rejected = _rejections(store, rule_rows, evidence_of)

    def cluster(cid: str) -> dict | None:
        # The last pass's cluster, unless the candidate it drafted or joined
        # no longer lists this correction (the person dropped it at
        # approval, or edited it out): that claim is stale until the next pass.
        cl = clusters.get(cid)
        named = cl.get("candidate") if cl else None
        if named and named in rule_rows and named not in evidence_of.get(cid, ()):
            return None
        return cl

    items = []
    for r in rows:
        f = r["fields"]
        items.append(
            InboxItem(
                id=r["id"],
                path=r["path"],
                title=r["title"] or r["id"],
                status=r["status"],
                created=(str(r["created"])[:10] if r["created"] else None),
                wrong=_one_line(f.get("wrong")),
                correct=_one_line(f.get("correct")),
                why=_one_line(f.get("why")),
                tasks=[TaskRef(t, titles.get(t) or t) for t in r["tasks"]],
                cluster=cluster(r["id"]),
                rules=[
                    RuleRef(rid, rule_rows[rid]["title"], rule_rows[rid]["status"])
                    for rid in sorted(evidence_of.get(r["id"], ()))
                    if rid in rule_rows
                ],
                considered=str(last["at"]) if r["id"] in left_alone else None,
                rejections=sorted(rejected.get(r["id"], {}).values(), key=lambda x: x.rule),
            )
        )
    dated = sorted((i for i in items if i.created), key=_newest_first, reverse=True)
    undated = sorted((i for i in items if not i.created), key=lambda i: i.id, reverse=True)
    return dated + undated


def _rejections(store: Store, rule_rows: dict[str, dict], evidence_of: dict[str, list[str]]) -> dict[str, dict[str, Rejection]]:
    """Per correction id, the rejected candidates holding it, by rule id: a
    rule page with ``status: rejected`` listing it as evidence, or a
    ``RejectedCluster`` row whose page is gone or still rejected (the
    corrections taken out of a rule at approval are not a rejected lesson).
    The same memory consolidation reads when it leaves a cluster alone."""
    out: dict[str, dict[str, Rejection]] = {}
    for cid, rids in evidence_of.items():
        for rid in rids:
            row = rule_rows.get(rid)
            if row and row["status"] == "rejected":
                day = field_text((row.get("fields") or {}).get("rejected"))[:10] or None
                out.setdefault(cid, {})[rid] = Rejection(rid, day)
    for row in q.rejections(store):
        page = rule_rows.get(row["rule"])
        if row["reason"] == DECLINED_EVIDENCE or (page is not None and page["status"] != "rejected"):
            continue
        for cid in row["corrections"]:
            held = out.setdefault(cid, {})
            prior = held.get(row["rule"])
            if prior is None or prior.on is None:
                held[row["rule"]] = Rejection(row["rule"], str(row["at"] or "")[:10] or None)
    return out


def dismissal_edit(why: str, today: str | date | None = None):
    """The frontmatter edit that dismisses one correction page: ``status:
    dismissed``, ``dismissed: DATE`` and, when ``why`` (one line) is given,
    ``dismissed_reason:``. Shared by the single and the batch dismissal."""
    day = today.isoformat() if isinstance(today, date) else (today or date.today().isoformat())

    def edit(text: str) -> str:
        text = set_field(text, "status", "dismissed")
        text = set_field(text, "dismissed", day)
        return set_field(text, "dismissed_reason", why) if why else text

    return edit


def dismiss_correction(
    config: Config,
    store: Store,
    name: str,
    reason: str | None = None,
    *,
    today: str | date | None = None,
) -> Operation:
    """Dismiss correction ``name``: it was not a real lesson (a one-off, a
    matter of taste, a mistake of the person). Its page gets ``status:
    dismissed``, ``dismissed: DATE`` and, with ``reason``,
    ``dismissed_reason:``; consolidation no longer reads it and rule effects
    no longer count it. One undoable operation (kind ``dismiss-correction``).

    Raises:
        PageNotFound: no such page.
        UserError: the page is not a correction, it is already promoted or
            dismissed, or its file changed meanwhile.
    """
    cid = graph.find_page(store, name)
    rows = {c["id"]: c for c in q.corrections(store)}
    if cid not in rows:
        raise UserError(f"{cid} is not a correction page (type: correction)")
    corr = rows[cid]
    if corr["status"] not in WAITING:
        raise UserError(f"{cid} is already {corr['status']}; only open, clustered or proposed corrections can be dismissed")
    why = _one_line(reason)
    edits = Edits(config)
    edits.edit(corr["path"], dismissal_edit(why, today))
    return unit_of_work.apply(
        config, store, "dismiss-correction", f"dismiss {cid}" + (f": {why}" if why else ""), edits.changes(),
        details={"correction": cid, "reason": why},
    )


def confirm_correction(
    config: Config,
    store: Store,
    name: str,
    wrong: str,
    correct: str,
    why: str,
) -> Operation:
    """Confirm proposed correction ``name`` as a lesson: the person states
    what was wrong, the correct behaviour and why it matters (the proposal
    quoted their words; the body keeps the quote). Its page gets those three
    fields and ``status: open``, so the next consolidation pass reads it;
    a title that still says "Proposed: ..." becomes the confirmed ``wrong``.
    One undoable operation (kind ``confirm-correction``).

    Raises:
        PageNotFound: no such page.
        UserError: the page is not a proposed correction, one of the three
            is empty, or its file changed meanwhile.
    """
    from brainwork.learn.capture import CORRECTION_REQUIRED, PROPOSAL_TITLE_PREFIX, TITLE_MAX

    cid = graph.find_page(store, name)
    rows = {c["id"]: c for c in q.corrections(store)}
    if cid not in rows:
        raise UserError(f"{cid} is not a correction page (type: correction)")
    corr = rows[cid]
    if corr["status"] != PROPOSED:
        raise UserError(f"{cid} is {corr['status'] or 'without a status'}, not proposed; only a proposed correction is confirmed")
    values = {"wrong": _one_line(wrong), "correct": _one_line(correct), "why": _one_line(why)}
    missing = [k for k in CORRECTION_REQUIRED if not values[k]]
    if missing:
        raise UserError(f"a confirmed correction needs what was wrong, the correct behaviour and why; missing: {', '.join(missing)}")

    def edit(text: str) -> str:
        for key in CORRECTION_REQUIRED:
            text = set_field(text, key, values[key])
        if str(corr["title"] or "").startswith(PROPOSAL_TITLE_PREFIX):
            # A thing-title (no dates, shorter than the diary-title limit,
            # cut at a clause or word boundary): the whole quote as the
            # title made every confirmed proposal a diary-title finding.
            title = thing_title(values["wrong"], config.thresholds.diary_title_chars) or values["wrong"]
            title = title if len(title) <= TITLE_MAX else title[: TITLE_MAX - 1].rstrip() + "…"
            text = set_field(text, "title", title)
        return set_field(text, "status", "open")

    edits = Edits(config)
    edits.edit(corr["path"], edit)
    return unit_of_work.apply(
        config, store, "confirm-correction", f"confirm {cid}", edits.changes(),
        details={"correction": cid},
    )
