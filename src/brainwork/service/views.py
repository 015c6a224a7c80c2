"""Read-models of the workbench's panes, without Textual.

What the Findings pane and the correction inbox show, computed from the
quality bar (:func:`brainwork.analysis.findings.check`) and the inbox
(:func:`brainwork.learn.inbox.inbox`) into frozen records: groups and their
counts, the order, the row and detail texts. The screens in ``tui/`` keep
only widgets, keys, styles and workers: a worker calls these functions and
the screen renders the records. An adapter (the MCP server, a hook, a
future web view) can show the same panes from the same functions.

Nothing here imports Textual (an import-linter contract checks it); the
texts carry no markup, so any renderer can style them.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:
    from brainwork.learn.inbox import InboxItem, Rejection
    from brainwork.store import Store
    from brainwork.store.graph import PageRow

# ---------------------------------------------------------------------------
# Findings (pane 2)
# ---------------------------------------------------------------------------

#: Groups are listed in this order (most harmful first); unknown codes follow
#: alphabetically.
CODE_ORDER = (
    "secret", "parse-error", "dead-link", "ambiguous-link", "duplicate", "untyped", "invalid-field",
    "diary-title", "orphan", "stub", "oversize",
)

#: What each code means, shown beside the group's count.
CODE_TITLES = {
    "secret": "credentials in pages",
    "parse-error": "files that could not be read completely",
    "dead-link": "links to no page",
    "ambiguous-link": "links that fit several pages",
    "duplicate": "suspected duplicate pairs",
    "untyped": "no type, or one outside the vocabulary",
    "invalid-field": "dates that are no date, values outside the vocabulary",
    "diary-title": "titles naming an event, not a thing",
    "orphan": "pages nothing links to or from",
    "stub": "pages with almost no text",
    "oversize": "pages too big to use",
}

#: Groups with more findings than this start folded (a vault without types
#: has one "untyped" finding per page, which would hide every other code).
FOLD_OVER = 40

#: Every fix a finding can offer, in the order they are listed (see :func:`fixes_for`).
FIXES = ("rename", "retarget", "create", "unlink", "set_type", "merge", "split", "edit", "dismiss")

#: Evidence keys :func:`finding_detail` shows in their own lines, not in the
#: generic evidence list.
_SHOWN_APART = {"suggestions", "retargets", "candidates", "suggested", "suggestion", "suggested_title",
                "title_suggestion", "thing_title"}


# -- reading findings -----------------------------------------------------------
def _get(finding: Any, name: str, default: Any = None) -> Any:
    return getattr(finding, name, default)


def evidence_of(finding: Any) -> Mapping:
    """A finding's evidence mapping (``{}`` when it has none)."""
    return _get(finding, "evidence") or {}


def suggestions_of(finding: Any) -> list[tuple[str, float | None]]:
    """Suggested pages of a finding as ``[(page id, similarity or None)]``
    (:meth:`brainwork.analysis.finding.Finding.suggested_pages`)."""
    return finding.suggested_pages() if finding is not None else []


def suggested_title(finding: Any) -> str | None:
    """The thing-title a ``diary-title`` finding suggests (its ``target``,
    else the evidence's ``suggestion``), if any; None for other codes."""
    if _get(finding, "code") != "diary-title":
        return None
    for value in (_get(finding, "target"), evidence_of(finding).get("suggestion")):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def fixes_for(finding: Any | None) -> list[str]:
    """The fix actions (of :data:`FIXES`) ``finding`` offers, in that order."""
    if finding is None:
        return []
    code = _get(finding, "code")
    page = _get(finding, "page")
    out = []
    if page:
        out.append("rename")
    if code in ("dead-link", "ambiguous-link") and _get(finding, "target"):
        out.append("retarget")
    if code == "dead-link" and _get(finding, "target"):
        out += ["create", "unlink"]
    if code == "untyped" and page:
        out.append("set_type")
    if code == "duplicate" and page and _get(finding, "other"):
        out.append("merge")
    if code == "oversize" and page:
        out.append("split")
    if _get(finding, "path"):
        out.append("edit")
    if _get(finding, "key"):
        out.append("dismiss")
    return out


def group_findings(findings: list[Any]) -> list[tuple[str, list[int]]]:
    """``[(code, [indexes into findings])]`` in :data:`CODE_ORDER`, each
    group in the checker's order."""
    groups: dict[str, list[int]] = {}
    for i, f in enumerate(findings):
        groups.setdefault(_get(f, "code") or "?", []).append(i)
    order = {c: i for i, c in enumerate(CODE_ORDER)}
    return sorted(groups.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0]))


def location(finding: Any) -> str:
    """``page:line`` (or the file's path when the finding names no page)."""
    where = _get(finding, "page") or _get(finding, "path") or "?"
    line = _get(finding, "line")
    return f"{where}:{line}" if line else where


def matches(finding: Any, needle: str) -> bool:
    """Whether ``needle`` (case-insensitive) is in the finding's code, page,
    path, message, target or other page."""
    needle = needle.casefold()
    return any(
        needle in str(_get(finding, name) or "").casefold()
        for name in ("code", "page", "path", "message", "target", "other")
    )


def value_text(value: Any) -> str:
    """An evidence value as text: floats to two places (whole numbers from 2
    up as integers), lists joined by ", " (``—`` when empty), mappings as
    ``key: value`` pairs."""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) >= 2 else f"{value:.2f}"
    if isinstance(value, (list, tuple)):
        return ", ".join(value_text(v) for v in value) or "—"
    if isinstance(value, Mapping):
        if set(value) == {"line", "heading"}:  # a split point: where a page could be cut
            return f'line {value["line"]} "{value["heading"]}"'
        return ", ".join(f"{k}: {value_text(v)}" for k, v in value.items())
    return str(value)


# -- records -------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class FindingRow:
    """One finding in the list: ``index`` into the checked findings (the
    list's option ids), its stable ``key``, ``message`` and ``location``."""

    index: int
    key: str | None
    message: str
    location: str


@dataclass(frozen=True, slots=True)
class FindingGroup:
    """One code's group: ``title`` (what the code means, ``""`` for an
    unknown code), ``total`` findings of the code, and the ``rows`` the
    filter lets through (in the checker's order)."""

    code: str
    title: str
    total: int
    rows: tuple[FindingRow, ...]


@dataclass(frozen=True, slots=True)
class FindingsView:
    """The findings list: ``groups`` with at least one row shown, in
    :data:`CODE_ORDER`; ``total`` findings checked, ``shown`` after the
    filter ``text_filter``; ``totals`` per code (before the filter)."""

    total: int
    shown: int
    text_filter: str
    groups: tuple[FindingGroup, ...]
    totals: dict[str, int]

    @property
    def big_codes(self) -> set[str]:
        """Codes with more than :data:`FOLD_OVER` findings (folded on the first check)."""
        return {code for code, n in self.totals.items() if n > FOLD_OVER}

    @property
    def empty_text(self) -> str:
        """What the pane says instead of the list, ``""`` when it has rows."""
        if not self.total:
            return "No findings: the vault meets the quality bar."
        if not self.groups:
            return f"No finding matches “{self.text_filter}”; esc clears the filter."
        return ""

    @property
    def title(self) -> str:
        """``Findings · 12`` (with the filter, ``Findings · 12 · “ci”``)."""
        text = f" · “{self.text_filter}”" if self.text_filter else ""
        return f"Findings · {self.total}{text}"

    @property
    def subtitle(self) -> str:
        return f"{self.shown} shown · enter opens · / filters" if self.total else ""


def findings_view(findings: list[Any], text_filter: str = "") -> FindingsView:
    """Group ``findings`` (as :func:`brainwork.analysis.findings.check`
    returns them) by code and keep those containing ``text_filter``
    (stripped, case-insensitive; :func:`matches`)."""
    needle = text_filter.strip()
    shown = [i for i, f in enumerate(findings) if not needle or matches(f, needle)]
    visible = set(shown)
    groups = []
    totals = {}
    for code, indexes in group_findings(findings):
        totals[code] = len(indexes)
        rows = tuple(
            FindingRow(i, _get(findings[i], "key"), _get(findings[i], "message") or "", location(findings[i]))
            for i in indexes
            if i in visible
        )
        if rows:
            groups.append(FindingGroup(code, CODE_TITLES.get(code, ""), len(indexes), rows))
    return FindingsView(len(findings), len(shown), text_filter, tuple(groups), totals)


@dataclass(frozen=True, slots=True)
class FindingDetail:
    """The evidence panel of one finding: ``code``, ``location``,
    ``message``, the ``fixes`` it offers (of :data:`FIXES`), then ``fields``:
    ``(label, value)`` lines (target, other page, score, suggestions, a
    suggested title, then the evidence with empty values left out)."""

    code: str
    location: str
    message: str
    fixes: tuple[str, ...]
    fields: tuple[tuple[str, str], ...]


def finding_detail(finding: Any) -> FindingDetail:
    """What the evidence panel shows for ``finding``."""
    fields: list[tuple[str, str]] = []
    evidence = evidence_of(finding)
    sugg = suggestions_of(finding)
    # A check's score is one of its figures (an oversize page's bytes, a
    # stub's characters, a pair's similarity, the best suggestion's):
    # shown once, where it has a name.
    named = {v for v in evidence.values() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    named.update(score for _, score in sugg[:1] if score is not None)
    for name in ("target", "other", "score"):
        value = _get(finding, name)
        if value in (None, "") or (name == "score" and value in named):
            continue
        fields.append((name, value_text(value)))
    if sugg:
        shown = ", ".join(f"{pid} ({score:.2f})" if score is not None else pid for pid, score in sugg)
        fields.append(("candidates" if _get(finding, "code") == "ambiguous-link" else "suggested", shown))
    title = suggested_title(finding)
    if title and title != _get(finding, "target"):
        fields.append(("suggested title", title))
    for key, value in evidence.items():
        if key in _SHOWN_APART or value in (None, "", [], {}):
            continue
        fields.append((key.replace("_", " "), value_text(value)))
    return FindingDetail(
        _get(finding, "code") or "?", location(finding), _get(finding, "message") or "",
        tuple(fixes_for(finding)), tuple(fields),
    )


# -- what the fixes need --------------------------------------------------------
def new_page_path(target: str, from_path: str) -> str:
    """The file :func:`brainwork.ops.fixes.create_page` makes for a dead
    link ``target`` written in ``from_path``: the target's own path when it
    names a folder, else a file named after it beside ``from_path``."""
    from brainwork.ops.rename import file_name_for

    name = target.strip()
    if name.lower().endswith(".md"):
        name = name[:-3]
    if "/" in name or "\\" in name:
        return name.replace("\\", "/") + ".md"
    folder = posixpath.dirname(from_path)
    stem = file_name_for(name)
    return f"{folder}/{stem}.md" if folder else f"{stem}.md"


def page_title(pages: "Iterable[PageRow]", page_id: str) -> str:
    """The title of ``page_id`` in ``pages`` (its id when it has none or is not listed)."""
    for p in pages:
        if p.id == page_id:
            return p.title or page_id
    return page_id


def folder_type(pages: "Iterable[PageRow]", folder: str, page_types: Iterable[str]) -> str | None:
    """The type most typed pages directly in ``folder`` have, if it is one
    of ``page_types`` (a new page there gets it suggested)."""
    counts: dict[str, int] = {}
    for p in pages:
        if p.type and posixpath.dirname(p.path) == folder:
            counts[p.type] = counts.get(p.type, 0) + 1
    best = max(counts.items(), key=lambda kv: kv[1], default=None)
    return best[0] if best and best[0] in set(page_types) else None


# ---------------------------------------------------------------------------
# The correction inbox (pane 4)
# ---------------------------------------------------------------------------

#: Statuses of a correction that consolidation still reads (a person can
#: dismiss it or link it to a rule); a proposed one can be confirmed or dismissed.
_LINKABLE = (None, "open", "clustered")
_DISMISSABLE = _LINKABLE + ("proposed",)
#: Handled corrections, shown dimmed when every correction is listed.
_HANDLED = ("promoted", "dismissed")
#: Shown for a field the correction does not record.
NOT_RECORDED = "(not recorded)"


def short_id(page_id: str) -> str:
    """``rules/verify-full-cert-chain`` -> ``verify-full-cert-chain``."""
    return page_id.rsplit("/", 1)[-1]


def _rejected_target(item: "InboxItem") -> "Rejection | None":
    """The rejected candidate that decides what happens to ``item`` next:
    the one the last pass's cluster drafted or joined, if the person has
    rejected it since; else, outside every cluster of that pass, the first
    rejected candidate holding it (that pass left it alone because of it).
    None when a cluster names a live candidate or rule."""
    by_rule = {r.rule: r for r in item.rejections}
    c = item.cluster
    if c:
        return by_rule.get(c.get("candidate") or "")
    return item.rejections[0] if item.rejections else None


def _rejected_words(r: "Rejection") -> str:
    on = f" on {r.on}" if r.on else ""
    return f"rejected{on}: not proposed again until a new correction joins its evidence"


def cluster_label(item: "InboxItem") -> str:
    """The list's cluster column: the rule a correction's cluster went to,
    with the cluster's size; ``rejected: NAME`` when that candidate (or,
    outside every cluster, one holding it) was rejected; or the rule
    listing it as evidence; or ``—``."""
    c = item.cluster
    gone = _rejected_target(item)
    if gone:
        n = len(c.get("corrections") or ()) if c else 0
        return f"rejected: {short_id(gone.rule)}" + (f" ({n})" if n else "")
    if c:
        n = len(c.get("corrections") or ())
        target = c.get("candidate") or c.get("rule")
        if c.get("action") == "evidence" and c.get("rule"):
            return f"≈ {short_id(c['rule'])} ({n})"
        if target:
            return f"{short_id(target)} ({n})"
        return f"{n} corrections"
    if item.rules:
        return short_id(item.rules[0].id)
    return "—"


def cluster_text(item: "InboxItem") -> str:
    """The detail's explanation of the correction's cluster, one line each."""
    c = item.cluster
    lines = []
    if c:
        n = len(c.get("corrections") or ())
        t = len(c.get("tasks") or ())
        head = f"{n} correction{'s' if n != 1 else ''} from {t} task{'s' if t != 1 else ''}"
        if n > 1:
            head += f", similarity {float(c.get('similarity') or 0):.2f}"
        lines.append(head + " (last consolidation)")
        action = c.get("action")
        gone = _rejected_target(item)
        if gone:
            verb = "was evidence of" if action == "existing" else "drafted"
            lines.append(f"{verb} the candidate rule {gone.rule}, {_rejected_words(gone)}")
        elif action == "evidence":
            lines.append(f"proposed as evidence for the active rule {c.get('rule')}: l links it")
        elif action == "existing":
            lines.append(f"evidence of the candidate rule {c.get('candidate')}")
        elif action == "supersede":
            lines.append(f"drafted {c.get('candidate')}, to supersede {c.get('rule')}")
        elif c.get("candidate"):
            lines.append(f"drafted the candidate rule {c.get('candidate')}")
        others = [x for x in c.get("corrections") or () if x != item.id]
        if others:
            lines.append("with " + ", ".join(short_id(x) for x in others[:6]) + (" …" if len(others) > 6 else ""))
    elif item.rejections:
        gone = item.rejections[0]
        lines.append(f"in the candidate rule {gone.rule}, {_rejected_words(gone)}")
    elif item.considered:
        # Read by the last pass and left alone: another pass over the same
        # corrections would leave it alone too, so "c" is not the way on.
        lines.append(f"considered by the last consolidation ({item.considered[:10]}): no recurring lesson yet, "
                     "it waits for a like correction or l links it to a rule")
    else:
        lines.append("not clustered yet (c runs consolidation)")
    named = {c.get("candidate"), c.get("rule")} if c else set()
    if not c and item.rejections:
        named.add(item.rejections[0].rule)
    for r in item.rules:
        if r.id not in named:
            lines.append(f"evidence of {r.id} ({r.status or 'no status'})")
    return "\n".join(lines)


def can_dismiss(item: "InboxItem | None") -> bool:
    return item is not None and item.status in _DISMISSABLE


def can_link(item: "InboxItem | None") -> bool:
    return item is not None and item.status in _LINKABLE


def can_confirm(item: "InboxItem | None") -> bool:
    return item is not None and item.status == "proposed"


def link_proposal(item: "InboxItem") -> tuple[str | None, str]:
    """``(rule id to preselect or None, note)`` for linking ``item`` to a
    rule: the active rule consolidation proposed it as evidence for, else
    the first rule already listing it."""
    evidence = bool(item.cluster and item.cluster.get("action") == "evidence")
    proposed = None
    if evidence:
        proposed = item.cluster.get("rule")  # type: ignore[union-attr]
    elif item.rules:
        proposed = item.rules[0].id
    note = (
        f"Consolidation proposed {proposed}." if proposed and evidence
        else "An active rule gets it as promoted_from (it becomes promoted); a candidate as evidence."
    )
    return proposed, note


@dataclass(frozen=True, slots=True)
class InboxRow:
    """One correction in the list: ``created`` (``—`` when undated),
    ``status`` (``open`` when none), ``title``, ``task`` (the first task's
    title, ``(+N)`` more, ``—`` when none), ``cluster`` (:func:`cluster_label`);
    ``waiting``: consolidation has not handled it (status open or none);
    ``handled``: promoted or dismissed."""

    id: str
    created: str
    status: str
    title: str
    task: str
    cluster: str
    waiting: bool
    handled: bool


@dataclass(frozen=True, slots=True)
class RuleChoice:
    """A rule a correction can be linked to: ``status`` active or candidate;
    ``text`` the rule's sentence."""

    id: str
    title: str
    status: str | None
    text: str | None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class InboxDetail:
    """The detail of one correction: ``heading`` (status and date after the
    title), what was ``wrong``, the ``correct`` behaviour and ``why``
    (:data:`NOT_RECORDED` when missing), its ``tasks`` (``(id, title)``),
    then ``note_label``/``note``: the cluster (:func:`cluster_text`), or for
    a proposed correction what to do with it (``note_dim``)."""

    id: str
    title: str
    heading: str
    wrong: str
    correct: str
    why: str
    tasks: tuple[tuple[str, str], ...]
    note_label: str
    note: str
    note_dim: bool


#: Said in the detail when no task links to the correction.
NO_TASK = "no task links to it (corrects: [[task]] is missing)"


def inbox_detail(item: "InboxItem") -> InboxDetail:
    if item.status == "proposed":
        label, note, dim = (
            "Proposed",
            "a session hook drafted it from the person's words: y confirms it "
            "(what was wrong, the correct behaviour, why), d dismisses it",
            True,
        )
    else:
        label, note, dim = "Cluster", cluster_text(item), False
    return InboxDetail(
        id=item.id,
        title=item.title,
        heading=f"{item.status or 'open'} · {item.created or 'undated'}",
        wrong=item.wrong or NOT_RECORDED,
        correct=item.correct or NOT_RECORDED,
        why=item.why or NOT_RECORDED,
        tasks=tuple((t.id, t.title) for t in item.tasks),
        note_label=label,
        note=note,
        note_dim=dim,
    )


def inbox_row(item: "InboxItem") -> InboxRow:
    task = item.tasks[0].title if item.tasks else "—"
    if len(item.tasks) > 1:
        task += f" (+{len(item.tasks) - 1})"
    return InboxRow(
        id=item.id,
        created=item.created or "—",
        status=item.status or "open",
        title=item.title,
        task=task,
        cluster=cluster_label(item),
        waiting=item.status in (None, "open"),
        handled=item.status in _HANDLED,
    )


@dataclass(frozen=True, slots=True)
class InboxView:
    """The inbox pane: ``items`` newest first (:func:`brainwork.learn.inbox.inbox`)
    with one ``rows`` entry each, and the ``rules`` (active first, then
    candidates) a correction can be linked to; ``include_handled``: every
    correction is listed, not only the open ones."""

    items: tuple["InboxItem", ...]
    rows: tuple[InboxRow, ...]
    rules: tuple[RuleChoice, ...]
    include_handled: bool

    @property
    def counts(self) -> "InboxCounts":
        """The listed corrections by state (:class:`InboxCounts`)."""
        return inbox_counts(self.items)

    @property
    def title(self) -> str:
        """``Correction inbox · 7 open · 8 clustered · 1 proposed`` (each
        state counted apart; every correction listed: the handled ones too)."""
        return self.title_marked(0)

    def title_marked(self, marked: int) -> str:
        """:attr:`title` with ``· 3 marked`` when rows are marked."""
        c = self.counts
        parts = [f"{c.open} open", f"{c.clustered} clustered"]
        if c.proposed:
            parts.append(f"{c.proposed} proposed")
        if self.include_handled:
            parts.append(f"{c.handled} handled")
        if marked:
            parts.append(f"{marked} marked")
        return "Correction inbox · " + " · ".join(parts)

    @property
    def empty_text(self) -> str:
        """What the pane says instead of the list, ``""`` when it has rows."""
        if self.items:
            return ""
        if not self.include_handled:
            return (
                "No open corrections. New ones arrive with `brainwork capture correction`; "
                "a shows the handled ones (promoted into a rule or dismissed) too."
            )
        return "The vault has no correction pages yet (`brainwork capture correction` records one)."


@dataclass(frozen=True, slots=True)
class InboxCounts:
    """Corrections by state: ``open`` (status open or none: consolidation
    has not clustered them yet), ``clustered`` (in a cluster of the last
    pass, waiting for its candidate rule or a link), ``proposed`` (drafted
    by a session hook, waiting for a person), ``handled`` (promoted or
    dismissed; listed only with every correction)."""

    open: int
    clustered: int
    proposed: int
    handled: int


def inbox_counts(items: "Iterable[InboxItem]") -> InboxCounts:
    n = {"open": 0, "clustered": 0, "proposed": 0, "handled": 0}
    for i in items:
        if i.status in (None, "open"):
            n["open"] += 1
        elif i.status == "clustered":
            n["clustered"] += 1
        elif i.status == "proposed":
            n["proposed"] += 1
        else:
            n["handled"] += 1
    return InboxCounts(**n)


def without(view: InboxView, ids: Iterable[str], status: str) -> InboxView:
    """``view`` after corrections ``ids`` became ``status`` (dismissed,
    promoted, open ...), without reading the store: what the pane shows at
    once after its own operation, until the re-read lands. A correction no
    longer waiting leaves the list unless every correction is listed."""
    from dataclasses import replace

    gone = set(ids)
    handled = status in _HANDLED
    items = []
    for item in view.items:
        if item.id in gone:
            if handled and not view.include_handled:
                continue
            item = replace(item, status=status)
        items.append(item)
    return InboxView(tuple(items), tuple(inbox_row(i) for i in items), view.rules, view.include_handled)


@dataclass(frozen=True, slots=True)
class RankedRule:
    """A rule offered for linking corrections, with ``score``: cosine
    similarity of the corrections' centroid to the rule page (``basis``
    ``"meaning"``), or word overlap 0-1 when either has no vector
    (``"words"``)."""

    rule: RuleChoice
    score: float
    basis: str

    def to_json(self) -> dict[str, Any]:
        return {**self.rule.to_json(), "score": round(self.score, 2), "basis": self.basis}


def _correction_text(item: "InboxItem") -> str:
    return " ".join(x for x in (item.title, item.wrong, item.correct, item.why) if x)


def rank_rules(store: "Store", rules: Iterable[RuleChoice], items: "Iterable[InboxItem]") -> tuple[RankedRule, ...]:
    """``rules`` closest first to the corrections ``items``: by cosine of
    the centroid of their cached vectors to each rule's vector
    (:func:`brainwork.learn.embed.vectors`; the cache only, so the model is
    never loaded here), else by word overlap (rapidfuzz ``token_set_ratio``
    of the corrections' fields to the rule's title and text, scaled to 0-1)
    for a rule or corrections without vectors. Ties keep ``rules``' order
    (active first)."""
    from rapidfuzz import fuzz, utils

    from brainwork.learn import embed
    from brainwork.learn.similarity import centroid

    rules = list(rules)
    items = list(items)
    vecs = embed.vectors(store, [r.id for r in rules] + [i.id for i in items]) if rules and items else {}
    centre = centroid([vecs[i.id] for i in items if i.id in vecs]) if items else None
    text = " ".join(_correction_text(i) for i in items)
    ranked = []
    for r in rules:
        rv = vecs.get(r.id)
        if centre is not None and rv is not None:
            ranked.append(RankedRule(r, float(centre @ rv), "meaning"))
        else:
            score = fuzz.token_set_ratio(text, f"{r.title} {r.text or ''}", processor=utils.default_process) / 100
            ranked.append(RankedRule(r, float(score), "words"))
    order = {r.id: k for k, r in enumerate(rules)}
    ranked.sort(key=lambda x: (x.basis != "meaning", -x.score, order[x.rule.id]))
    return tuple(ranked)


@dataclass(frozen=True, slots=True)
class ProposalDraft:
    """The confirm form's first values for a proposed correction, drafted
    from the person's quoted words: ``wrong`` (what they pushed back on:
    the quote), ``correct`` (the quote without its leading "no,"/"don't"
    ..., when that leaves an instruction) and ``why`` (the part after
    "because"/"since"/"so that", when there is one)."""

    quote: str
    wrong: str
    correct: str
    why: str


#: Words a push-back starts with (case-insensitive), dropped from the quote
#: to draft the correct behaviour.
_PUSHBACK = ("no", "nope", "not that", "wrong", "stop", "actually", "wait", "hmm", "please", "instead",
             "that's wrong", "that is wrong", "that's not right", "that is not right")
#: How a sentence that tells the agent what it did begins ("you only checked
#: the leaf"): the action objected to, not the instruction that follows it.
_TOLD_BACK = ("you ", "you'", "that's ", "that is ", "this is ", "it's ", "it is ", "that was ")
#: Words that introduce the reason in a push-back.
_BECAUSE = (" because ", " since ", " so that ", " otherwise ")


def draft_from_quote(quote: str, wrong: str = "", correct: str = "", why: str = "") -> ProposalDraft:
    """:class:`ProposalDraft` for a proposed correction whose ``wrong`` field
    holds the person's words (``quote``); fields already written win."""
    import re

    q = " ".join((quote or "").split())
    rest = q
    lower = rest.lower()
    changed = True
    while changed:
        changed = False
        for w in _PUSHBACK:
            if lower.startswith(w) and (len(lower) == len(w) or not lower[len(w)].isalnum()):
                rest = rest[len(w):].lstrip(" ,.;:!-—")
                lower = rest.lower()
                changed = True
    # "That's wrong — you only checked the leaf on disk. Check the chain the
    # load balancer serves.": leading sentences that tell the agent what it
    # did are the wrong part; the instruction after them is the correct one.
    told: list[str] = []
    sentences = [x for x in re.split(r"(?<=[.!?])\s+", rest) if x]
    while len(sentences) > 1 and sentences[0].lower().startswith(_TOLD_BACK):
        told.append(sentences.pop(0))
    if told:
        rest = " ".join(sentences)
        lower = rest.lower()
    told_wrong = " ".join(told).rstrip(" .")
    if told_wrong:
        told_wrong = told_wrong[0].upper() + told_wrong[1:]
    reason = ""
    for b in _BECAUSE:
        at = lower.find(b)
        if at > 0:
            rest, reason = rest[:at].rstrip(" ,;"), rest[at + len(b):].strip()
            break
    rest = rest.strip()
    if rest and rest[0].islower():
        rest = rest[0].upper() + rest[1:]
    if reason and reason[0].islower():
        reason = reason[0].upper() + reason[1:]
    rest = rest.rstrip(" .") if told else rest
    guess_correct = rest if rest and rest != q and len(re.findall(r"\w+", rest)) >= 2 else ""
    return ProposalDraft(q, wrong or told_wrong or q, correct or guess_correct, why or reason)


def inbox_view(store: "Store", *, include_handled: bool = False) -> InboxView:
    """Read the inbox and the linkable rules from ``store``."""
    from brainwork.learn.inbox import inbox
    from brainwork.learn.rules import list_rules

    items = tuple(inbox(store, include_handled=include_handled))
    rules = tuple(
        RuleChoice(r.id, r.title, r.status, r.text)
        for r in sorted(list_rules(store), key=lambda r: (r.status != "active", r.activated or "", r.id))
        if r.status in ("active", "candidate")
    )
    return InboxView(items, tuple(inbox_row(i) for i in items), rules, include_handled)


# ---------------------------------------------------------------------------
# The review queue of ``brainwork dream``
# ---------------------------------------------------------------------------

#: What each proposal kind does when accepted, shown in the detail.
DREAM_KINDS = {
    "candidate-rules": "consolidation drafts the candidate rules (undoable; review them in the Rules pane)",
    "merge": "the two pages are merged (cannot be undone: asks first)",
    "retitle": "the page is renamed and every link to it rewritten (undoable)",
    "merge-rules": "the two active rules are merged (cannot be undone: asks first)",
    "retire-rule": "the rule is retired: it leaves the doctrine (undoable)",
}


@dataclass(frozen=True, slots=True)
class DreamRow:
    """One proposal in the list: ``id``, ``kind``, ``state`` (``pending``,
    ``accepted``, ``declined``, ``undone``), the one-line ``summary``;
    ``waiting``: still pending."""

    id: int
    kind: str
    state: str
    summary: str
    waiting: bool


@dataclass(frozen=True, slots=True)
class DreamDetail:
    """The detail of one proposal: ``reason`` (why the pass proposes it: its
    summary), what accepting ``does`` and whether it is ``reversible``, and
    the ``evidence``: ``(label, value)`` lines from its payload."""

    id: int
    kind: str
    state: str
    reason: str
    does: str
    reversible: bool
    evidence: tuple[tuple[str, str], ...]
    decided: str | None
    operation: int | None


@dataclass(frozen=True, slots=True)
class DreamView:
    """The review pane: ``proposals`` (:class:`brainwork.learn.dream.Proposal`)
    by id, one ``rows`` entry each; ``include_decided``: accepted, declined
    and undone ones are listed too."""

    proposals: tuple[Any, ...]
    rows: tuple[DreamRow, ...]
    include_decided: bool

    @property
    def pending(self) -> int:
        return sum(1 for r in self.rows if r.waiting)

    @property
    def title(self) -> str:
        text = f"Review queue · {self.pending} pending"
        if self.include_decided:
            text += f" · {len(self.rows) - self.pending} decided"
        return text

    @property
    def empty_text(self) -> str:
        if self.rows:
            return ""
        if self.include_decided:
            return "The review queue is empty: `brainwork dream` (e.g. nightly from cron) fills it."
        return ("Nothing waits for review. `brainwork dream` (e.g. nightly from cron) gathers proposals; "
                "a shows the decided ones.")


def dream_detail(proposal: Any) -> DreamDetail:
    """What the review pane's detail shows for ``proposal``."""
    evidence = []
    for key, value in (proposal.payload or {}).items():
        if value in (None, "", [], {}):
            continue
        evidence.append((key.replace("_", " "), value_text(value)))
    return DreamDetail(
        proposal.id, proposal.kind, proposal.state, proposal.summary,
        DREAM_KINDS.get(proposal.kind, "carried out as one operation"), proposal.reversible, tuple(evidence),
        proposal.decided, proposal.operation,
    )


def dream_rows(proposals: Iterable[Any], include_decided: bool) -> DreamView:
    items = tuple(p for p in proposals if include_decided or p.state == "pending")
    rows = tuple(DreamRow(p.id, p.kind, p.state, p.summary, p.state == "pending") for p in items)
    return DreamView(items, rows, include_decided)


def dream_view(store: "Store", *, include_decided: bool = False) -> DreamView:
    """Read the review queue (:func:`brainwork.learn.dream.queue`)."""
    from brainwork.learn.dream import queue

    return dream_rows(queue(store, None), include_decided)


def dream_decided(view: DreamView, proposal_id: int, state: str) -> DreamView:
    """``view`` after proposal ``proposal_id`` became ``state``, without
    reading the store (what the pane shows at once after the decision)."""
    from dataclasses import replace

    items = [replace(p, state=state) if p.id == proposal_id else p for p in view.proposals]
    return dream_rows(items, view.include_decided)


# ---------------------------------------------------------------------------
# Marks (multi-select in the inbox and the findings)
# ---------------------------------------------------------------------------
class Marks:
    """The marked rows of a list, by row id, in the order they were marked;
    ``anchor`` is the last row marked or unmarked, where a range starts.
    Ids that leave the list are dropped by :meth:`keep`."""

    def __init__(self) -> None:
        self._ids: dict[str, None] = {}
        self.anchor: str | None = None

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, row_id: object) -> bool:
        return row_id in self._ids

    def __iter__(self):
        return iter(list(self._ids))

    def toggle(self, row_id: str) -> bool:
        """Mark ``row_id``, or unmark it when marked; True when now marked."""
        self.anchor = row_id
        if row_id in self._ids:
            del self._ids[row_id]
            return False
        self._ids[row_id] = None
        return True

    def mark_range(self, order: list[str], row_id: str) -> int:
        """Mark every row of ``order`` from the anchor to ``row_id`` (both
        included; only ``row_id`` when there is no anchor in ``order``).
        Returns how many rows became marked."""
        if row_id not in order:
            return 0
        end = order.index(row_id)
        start = order.index(self.anchor) if self.anchor in order else end
        lo, hi = min(start, end), max(start, end)
        added = 0
        for rid in order[lo : hi + 1]:
            if rid not in self._ids:
                self._ids[rid] = None
                added += 1
        self.anchor = row_id
        return added

    def clear(self) -> int:
        n = len(self._ids)
        self._ids.clear()
        self.anchor = None
        return n

    def keep(self, ids: Iterable[str]) -> None:
        """Drop marks of rows no longer listed."""
        present = set(ids)
        for rid in [r for r in self._ids if r not in present]:
            del self._ids[rid]
        if self.anchor not in present:
            self.anchor = None
