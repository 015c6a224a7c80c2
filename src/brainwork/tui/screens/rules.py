"""The rule approval pane (pane 5): candidates to decide, active rules and
what they cost and achieve.

Every decision (approve, supersede, reject, retire, consolidate) is one
vault operation, undoable with ``u``. Reads run in one thread worker
(group ``rules``) from the embeddings cache; pages never embedded are
embedded first in that worker, which holds the store exclusively only to
write the vectors (after any running index sync). Keys and walkthrough:
docs/architecture.md ("The panes").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import numpy as np
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import DataTable, OptionList, Static, TextArea
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from brainwork.config import Config
from brainwork.learn import embed
from brainwork.learn.consolidate import rule_similarities
from brainwork.learn.replay import FEWER, NOT_FEWER, Replay, rate_text, replay
from brainwork.learn.rules import approve, list_rules, overview, reject, retire
from brainwork.learn.similarity import mean_pairwise
from brainwork.store import Store
from brainwork.store import learning as q
from brainwork.tui.learning import ConsolidationPhase, ReloadWhenShown
from brainwork.tui.modals.approve_rule import ApprovalChoice, ApproveRuleScreen
from brainwork.tui.modals.pick_rule import PickRuleScreen
from brainwork.tui.modals.reason import ReasonScreen
from brainwork.tui.modals.replay import ReplayScreen
from brainwork.tui.screens.base import PaneScreen
from brainwork.tui.widgets.effect_chart import EffectChart
from brainwork.tui.widgets.fitted_table import ColumnSpec, FittedTable
from brainwork.wording import counted

#: Characters of the dim second line under a rule in the list (it fits the
#: list at its narrowest).
PROMPT_EXTRA = 30
#: Key of an overview item patched from a decision whose figures the
#: re-read has not brought yet (see :meth:`RulesView.decided`).
FIGURES_PENDING = "figures_pending"
#: Order of the status groups in the list, with their headings.
GROUPS = (("candidate", "Candidates"), ("active", "Active"), ("retired", "Retired"), ("rejected", "Rejected"))


#: Width of the labels beside a rule's text (Why, Applies to, Replaced by,
#: ...): the longest one whole.
META_LABEL_WIDTH = len("Replaced by")


@dataclass
class RulesView:
    """Everything the pane shows, read in one worker.

    ``rules``: :func:`brainwork.learn.rules.overview` items by id (rule
    fields, effect figures, ``doctrine_tokens``); ``order``: ids in list
    order; ``pruning``/``doctrine``: as ``overview`` returns them;
    ``evidence``: per rule, ``[{"id", "title", "created", "status",
    "tasks": [{"id", "title"}], "similarity"}]`` (similarity:
    :func:`brainwork.learn.consolidate.rule_similarities`, the figure a
    drafted candidate page gives; None without figures); ``cluster``: per
    rule, ``(similarity, source)`` (:func:`pass_similarity`, else
    :data:`PAIRWISE_MEAN`), the source shown beside it; ``embedded``: pages embedded for this read.
    """

    rules: dict[str, dict]
    order: list[str]
    pruning: list[dict]
    doctrine: dict
    evidence: dict[str, list[dict]] = field(default_factory=dict)
    cluster: dict[str, tuple[float, str]] = field(default_factory=dict)
    embedded: int = 0
    #: False while pages still wait to be embedded: replay figures, pruning
    #: and similarities are not known yet (None / empty).
    figures: bool = True
    #: The replay the figures come from (None without figures).
    replay: Replay | None = None

    def decided(self, decision, fields: dict | None = None, today: str | None = None) -> "RulesView":
        """This view after ``decision`` (a :class:`brainwork.learn.rules.Decision`)
        without reading the store: what the pane shows the moment its
        operation returns (the re-read after it, which also recomputes
        figures and pruning, reconciles). ``fields``: the title, text, why
        and apply an approval wrote."""
        from copy import deepcopy
        from datetime import date

        day = today or date.today().isoformat()
        rules = deepcopy(self.rules)
        rule = rules.get(decision.rule)
        status = {"approve": "active", "supersede": "active", "reject": "rejected", "retire": "retired"}.get(decision.action)
        if rule is not None and status:
            rule["status"] = status
            if status == "active":
                rule["activated"] = rule.get("activated") or day
                rule.update({k: v for k, v in (fields or {}).items() if v is not None})
                # Its figures (replay since activation) come with the re-read.
                rule["replay"] = None
                rule[FIGURES_PENDING] = True
            elif status == "retired":
                rule["retired"] = day
        for rid in decision.retired:
            if rid in rules and rid != decision.rule:
                rules[rid]["status"] = "retired"
                rules[rid]["retired"] = day
        evidence = {rid: [dict(e) for e in rows] for rid, rows in self.evidence.items()}
        promoted, back = set(decision.corrections), set(decision.back)
        for row in evidence.get(decision.rule, []):
            if row["id"] in promoted:
                row["status"] = "promoted"
            elif row["id"] in back:
                row["status"] = "open"
        if back and rule is not None:
            rule["evidence"] = [c for c in rule.get("evidence") or () if c not in back]
            evidence[decision.rule] = [r for r in evidence.get(decision.rule, []) if r["id"] not in back]
        order = []
        for group, _ in GROUPS:
            ids = [i for i in self.order if rules[i]["status"] == group]
            if group == "active":
                ids.sort(key=lambda i: (rules[i].get("activated") or "", i))
            order += ids
        order += [i for i in self.order if i not in order]
        return RulesView(rules, order, self.pruning, self.doctrine, evidence, dict(self.cluster), self.embedded,
                         self.figures, self.replay)


def _needed_ids(store: Store) -> list[str]:
    """Pages whose vectors the pane's figures use: tasks and corrections
    (the replay ranks prior tasks and sorts corrections into lessons) and
    live rules."""
    ids = {t["id"] for t in q.tasks(store)} | {c["id"] for c in q.corrections(store)}
    for r in q.rules(store):
        if r["status"] in ("candidate", "active"):
            ids.add(r["id"])
            ids.update(r["evidence"])
    return sorted(ids)


def missing_vectors(store: Store) -> list[str]:
    """Of :func:`_needed_ids`, the pages without a cached vector."""
    ids = _needed_ids(store)
    have = embed.vectors(store, ids)
    return [i for i in ids if i not in have]


#: Keys of an overview item that need vectors (replay figures).
EFFECT_KEYS = ("replay",)


def _overview_without_vectors(config: Config, store: Store) -> dict:
    """:func:`brainwork.learn.rules.overview` without the figures that need
    vectors (replay None, no pruning): shown while pages are embedded."""
    from brainwork.learn.doctrine import doctrine

    doc = doctrine(config, store)
    cost = {d.id: d.tokens for d in doc.rules}
    rules = []
    for r in list_rules(store):
        item = r.to_json()
        item["doctrine_tokens"] = cost.get(r.id)
        item.update({k: None for k in EFFECT_KEYS})
        rules.append(item)
    return {"rules": rules, "pruning": [], "doctrine": {"tokens": doc.tokens, "budget": doc.budget, "over_budget": doc.over_budget}}


def read_rules_view(config: Config, store: Store, today: str | None = None, *, figures: bool = True) -> RulesView:
    """Read the pane's data (no writes; vectors come from the cache).

    ``today``: the date pruning counts staleness to (default: today).
    ``figures=False``: leave out what needs vectors (replay, pruning,
    similarities) — for a first paint while missing vectors are embedded.
    """
    report = replay(config, store) if figures else None
    data = overview(config, store, today=today, report=report) if figures else _overview_without_vectors(config, store)
    by_id = {r["id"]: r for r in data["rules"]}
    order: list[str] = []
    for status, _ in GROUPS:
        group = [r for r in data["rules"] if r["status"] == status]
        if status == "active":
            group.sort(key=lambda r: (r["activated"] or "", r["id"]))
        elif status == "candidate":
            group.sort(key=lambda r: (r["created"] or "", r["id"]), reverse=True)
        order += [r["id"] for r in group]
    order += [r["id"] for r in data["rules"] if r["id"] not in order]
    corrections = {c["id"]: c for c in q.corrections(store)}
    titles = {t["id"]: t["title"] for t in q.tasks(store)}
    live = [r for r in data["rules"] if r["status"] in ("candidate", "active")]
    wanted = {r["id"] for r in live} | {c for r in live for c in r["evidence"]}
    vecs = embed.vectors(store, sorted(wanted)) if wanted and figures else {}
    # The replay above loaded the model already: the rule texts and the
    # corrections' "correct" are encoded with it (cached per process).
    emb = embed.get_embedder(config) if live and figures else None
    last = q.last_pass(store)
    clusters = pass_similarity(last["clusters"] if last else [])
    view = RulesView(by_id, order, data["pruning"], data["doctrine"], figures=figures, replay=report)
    for r in live:
        rows = []
        known = [corrections[cid] for cid in r["evidence"] if cid in corrections]
        sims = dict(zip((c["id"] for c in known), rule_similarities(r["text"] or r["title"], known, emb))) if emb else {}
        for cid in r["evidence"]:
            c = corrections.get(cid)
            sim = sims.get(cid)
            rows.append({
                "id": cid,
                "title": (c["title"] if c else cid),
                "created": (str(c["created"])[:10] if c and c["created"] else None),
                "status": c["status"] if c else None,
                "tasks": [{"id": t, "title": titles.get(t) or t} for t in (c["tasks"] if c else [])],
                "similarity": sim,
            })
        rows.sort(key=lambda x: (x["created"] or "", x["id"]), reverse=True)
        view.evidence[r["id"]] = rows
        if r["id"] in clusters:
            view.cluster[r["id"]] = clusters[r["id"]]
        else:
            mat = [vecs[c] for c in r["evidence"] if c in vecs]
            if len(mat) >= 2:
                view.cluster[r["id"]] = (mean_pairwise(np.stack(mat)), PAIRWISE_MEAN)
    return view


#: The source of a rule's similarity when no pass clustered two or more of
#: its corrections: the mean pairwise cosine of all its evidence.
PAIRWISE_MEAN = "pairwise mean"
LAST_PASS = "last consolidation"


def pass_similarity(clusters: Iterable[dict]) -> dict[str, tuple[float, str]]:
    """Per rule, one similarity for what the last pass clustered for it
    (``clusters``: the pass's cluster dicts, see
    :meth:`brainwork.learn.consolidate.Cluster.to_json`) and where it comes
    from. A pass can report several clusters for one rule (two groups each
    joining the same candidate): their similarities are averaged weighted by
    their number of corrections, and the source says how many. A cluster of
    one correction has no pair to compare (its figure is 1.0 by definition)
    and is left out; a rule with only such clusters gets none here.
    The clusters proposed as evidence for an active rule are matched to it,
    not drafted from it, and count for no rule."""
    parts: dict[str, list[tuple[int, float]]] = {}
    for cl in clusters:
        key = cl.get("candidate") or (cl.get("rule") if cl.get("action") != "evidence" else None)
        n = len(cl.get("corrections") or ())
        if key and n >= 2:
            parts.setdefault(key, []).append((n, float(cl.get("similarity") or 0.0)))
    out = {}
    for key, ps in parts.items():
        total = sum(n for n, _ in ps)
        figure = sum(n * sim for n, sim in ps) / total
        out[key] = (figure, LAST_PASS if len(ps) == 1 else f"{LAST_PASS}: {len(ps)} clusters, weighted by size")
    return out


class RulesLoaded(Message):
    """The pane's data was read (``view``), or reading failed softly (``note``)."""

    def __init__(self, request_id: int, view: RulesView):
        super().__init__()
        self.request_id = request_id
        self.view = view


class RulesDecided(Message):
    """A decision of this pane (``action``: approve, supersede, reject,
    retire) on ``rule`` returned; the pane shows it before the re-read."""

    def __init__(self, action: str, rule: str):
        super().__init__()
        self.action = action
        self.rule = rule


class RulesProgressed(Message):
    """Reading needs pages embedded first: ``text`` says what is happening."""

    def __init__(self, request_id: int, text: str):
        super().__init__()
        self.request_id = request_id
        self.text = text


def short_id(page_id: str) -> str:
    return page_id.rsplit("/", 1)[-1]


def _rate(side: dict | None) -> str:
    return rate_text(side["rate"] if side else None)


def _side_counts(side: dict) -> str:
    """``  2 of 5 tasks``, or ``  no tasks yet`` (not ``0 of 0 tasks``)."""
    return f"  {side['repeated']} of {counted(side['tasks'], 'task')}" if side["tasks"] else "  no tasks yet"


def effect_numbers(rule: dict) -> Text:
    """The numbers beside the chart: the lesson's repeat-correction rate on
    tasks of its kind before and after activation, with counts, and the
    verdict (:mod:`brainwork.learn.replay`)."""
    text = Text()
    lesson = rule.get("replay")
    if not lesson:
        text.append("No evidence: no lesson\nto replay.", style="dim")
        return text
    before, after = lesson["before"], lesson["after"]
    text.append("Repeats on tasks of its kind\n", style="bold")
    text.append(f"before  {_rate(before)}")
    text.append(_side_counts(before) + "\n", style="dim")
    if after is not None:
        text.append(f"after   {_rate(after)}")
        text.append(_side_counts(after) + "\n", style="dim")
    verdict = lesson["verdict"]
    style = {FEWER: "bold green", NOT_FEWER: "bold red"}.get(verdict, "dim")
    text.append(verdict, style=style)
    in_room = f"{lesson['repeats_in_room']} of {counted(lesson['repeats'], 'repeat')}" if lesson["repeats"] else "no repeats"
    text.append(f"\nin the room: {in_room}", style="dim")
    text.append(f"\nsince {rule.get('activated') or '?'} · p: replay", style="dim")
    return text


def doctrine_share(rule: dict, doctrine: dict) -> str:
    """``123 tokens · 42% of the doctrine · 8% of the 1,500 budget``."""
    tokens = rule.get("doctrine_tokens")
    if tokens is None:
        return ""
    total = doctrine.get("tokens") or 0
    budget = doctrine.get("budget") or 0
    parts = [f"{tokens} tokens"]
    if total:
        parts.append(f"{tokens / total:.0%} of the doctrine")
    if budget:
        parts.append(f"{tokens / budget:.0%} of the {budget:,} budget")
    return " · ".join(parts)


def doctrine_summary(view: RulesView) -> Text:
    """The doctrine's size and the pruning suggestions, for the list's foot."""
    d = view.doctrine
    active = sum(1 for r in view.rules.values() if r["status"] == "active")
    text = Text()
    text.append("Doctrine  ", style="bold")
    share = f" ({d['tokens'] / d['budget']:.0%})" if d.get("budget") else ""
    text.append(f"{d['tokens']:,} / {d['budget']:,} tokens{share}\n", style="bold red" if d.get("over_budget") else "")
    text.append(f"          {counted(active, 'active rule')}\n", style="dim")
    if d.get("over_budget"):
        text.append("over budget: tighten, merge or retire rules\n", style="red")
    text.append("Pruning   ", style="bold")
    if not view.figures:
        text.append("after embedding…", style="dim")
    elif not view.pruning:
        text.append("nothing to prune", style="dim")
    for s in view.pruning:
        if s["kind"] == "merge":
            a, b = s["rules"]
            text.append(f"\n• merge {short_id(a)} and {short_id(b)} (similarity {s['similarity']:.2f})")
        else:
            text.append(f"\n• retire {short_id(s['rules'][0])}: quiet for {s['days']} days (R)")
    return text


class RuleList(OptionList):
    """The rules, grouped by status (option ids are rule ids)."""

    HELP_TITLE = "rule list"
    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
    ]


#: The evidence table's columns (``sim``: :func:`rule_similarities`, the
#: figure a drafted candidate page labels
#: :data:`brainwork.learn.consolidate.RULE_SIMILARITY_LABEL`;
#: headed by its last words, as the head line's "similarity" is the
#: cluster's).
EVIDENCE_COLUMNS = (
    ColumnSpec("created", "created", width=10),
    ColumnSpec("title", "correction", weight=60, minimum=12),
    ColumnSpec("task", "task", weight=40, minimum=8),
    ColumnSpec("sim", "to rule", width=7),
    ColumnSpec("status", "status", width=9),
)


class EvidenceTable(FittedTable):
    """A rule's evidence corrections (row keys are correction ids)."""

    HELP_TITLE = "evidence list"


class RuleText(TextArea):
    """The rule's text, editable for candidates."""

    HELP_TITLE = "rule text"


class RulesScreen(ReloadWhenShown, ConsolidationPhase, PaneScreen):
    """Rule approval (pane 5)."""

    PANE_ID = "rules"
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    AUTO_FOCUS = "#rule-list"
    #: The date decisions are recorded with and pruning counts to (None:
    #: today). Tests set it so snapshots do not age.
    TODAY: str | None = None

    BINDINGS = [
        Binding("a", "approve", "Approve", tooltip="Edit title, rule, why and apply, choose the evidence, approve (retires nothing)"),
        Binding("e", "edit", "Edit text", tooltip="Edit the candidate's rule text in place (esc: back to the list)"),
        Binding("r", "reject", "Reject", tooltip="Reject the candidate (asks the reason; u undoes)"),
        Binding("s", "supersede", "Supersede", tooltip="Pick an older active rule, compare both texts, approve and retire it"),
        Binding("R", "retire", "Retire", tooltip="Retire an active rule (it leaves the doctrine)"),
        Binding("c", "consolidate", "Consolidate", tooltip="Cluster open corrections and draft candidate rules"),
        Binding("o", "open_rule", "Open in graph", show=False, tooltip="Show the rule's page in the graph pane"),
        Binding("p", "replay", "Replay", show=False, tooltip="Repeat corrections before/after each rule, and whether the lesson was in the room"),
        Binding("escape", "leave_text", "Back to the list", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.view: RulesView | None = None
        #: Edited rule texts not yet approved, by rule id.
        self.edits: dict[str, str] = {}
        self.current: str | None = None
        self._request = 0
        self._next_candidate = False
        self._showing_text_of: str | None = None
        #: What the figures wait for ("" when they are there).
        self._waiting = ""

    # -- layout -------------------------------------------------------------------
    def compose_body(self) -> Iterable[Widget]:
        with Horizontal(id="rules-body"):
            with Vertical(id="rules-left"):
                yield RuleList(id="rule-list")
                yield Static("", id="rules-doctrine")
            with Vertical(id="rule-detail"):
                yield Static("", id="rule-message")
                with VerticalScroll(id="rule-top"):
                    yield Static("", id="rule-head")
                    yield RuleText("", id="rule-text", soft_wrap=True, show_line_numbers=False, tab_behavior="focus")
                    yield Static("", id="rule-meta")
                    with Horizontal(id="rule-effect"):
                        yield EffectChart(id="effect-chart")
                        yield Static("", id="effect-numbers")
                yield Static("", id="evidence-head")
                yield EvidenceTable(EVIDENCE_COLUMNS, id="evidence-table")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#rules-left").border_title = "Rules"
        self.watch(self.app, "background", self._background_changed)
        self._message("Reading the rules…")
        self.load()
        self.app.learning.ensure_embedder()
        self.query_one(RuleList).focus()

    # -- reading ------------------------------------------------------------------
    def load(self) -> None:
        """Re-read rules, effects, doctrine and pruning in a worker."""
        if not self.app.store.is_open:
            return
        self._request += 1
        self._read(self._request)

    @work(thread=True, group="rules", exclusive=True, exit_on_error=False)
    def _read(self, request_id: int) -> None:
        worker = get_current_worker()
        app = self.app
        with app.store.use() as store:
            missing = missing_vectors(store)
            if missing:  # show the rules now; the figures follow once embedded
                first = read_rules_view(app.config, store, self.TODAY, figures=False)
        embedded = 0
        if missing and not worker.is_cancelled:
            self.post_message(RulesLoaded(request_id, first))
            if embed.loaded_embedder(app.config) is None:
                self.post_message(RulesProgressed(request_id, f"Loading the embedding model to embed {counted(len(missing), 'page')}…"))
            emb = app.learning.load_embedder()
            self.post_message(RulesProgressed(request_id, f"Embedding {counted(len(missing), 'page')} ({emb.name})…"))
            app.operations.wait_for_index()
            embedded = app.learning.embed_without_holding(emb, ids=missing)
        if worker.is_cancelled:
            return
        with app.store.use() as store:
            view = read_rules_view(app.config, store, self.TODAY)
        view.embedded = embedded
        if not worker.is_cancelled:
            self.post_message(RulesLoaded(request_id, view))

    def on_rules_progressed(self, message: RulesProgressed) -> None:
        if message.request_id == self._request:
            self._waiting = message.text
            self._update_subtitle()
            if self.view is None:
                self._message(message.text)
            elif not self.view.figures and self.rule_is("active"):
                self.query_one("#effect-numbers", Static).update(Text(f"Replay: {message.text}", style="dim"))

    def on_rules_loaded(self, message: RulesLoaded) -> None:
        if message.request_id != self._request:
            return
        self._show_view(message.view)

    def _show_view(self, view: RulesView, patched: bool = False) -> None:
        """Fill the list and show the highlighted rule from ``view``
        (``patched``: made from an operation's result, not read)."""
        self.view = view
        if view.figures:
            self._waiting = ""
        # Keep edits only for rules that are still candidates. One decided
        # elsewhere (an agent's `brainwork approve`, another workbench) loses
        # its unsaved edit here, so the person is told and the text is put on
        # the clipboard rather than dropped without a word.
        kept = {k: v for k, v in self.edits.items() if view.rules.get(k, {}).get("status") == "candidate"}
        for rid in self.edits.keys() - kept.keys():
            self._edit_overtaken(rid, self.edits[rid], view.rules.get(rid, {}).get("status"))
        self.edits = kept
        rule_list = self.query_one(RuleList)
        keep = self.current
        rule_list.clear_options()
        options: list[Option] = []
        for status, heading in GROUPS:
            ids = [i for i in view.order if view.rules[i]["status"] == status]
            if not ids:
                continue
            options.append(Option(Content.from_markup(f"[b $accent]{heading}[/] [$text-muted]({len(ids)})[/]"), disabled=True))
            for rid in ids:
                options.append(Option(self._prompt(view.rules[rid]), id=rid))
        others = [i for i in view.order if view.rules[i]["status"] not in dict(GROUPS)]
        if others:
            options.append(Option(Content.from_markup(f"[b $accent]Other[/] [$text-muted]({len(others)})[/]"), disabled=True))
            options += [Option(self._prompt(view.rules[i]), id=i) for i in others]
        rule_list.add_options(options)
        self.query_one("#rules-doctrine", Static).update(doctrine_summary(view))
        left = self.query_one("#rules-left")
        cands = sum(1 for r in view.rules.values() if r["status"] == "candidate")
        left.border_title = f"Rules · {counted(cands, 'candidate')}"
        self._update_subtitle()
        if not view.order:
            self._message(
                "No rule pages yet. Candidates are drafted by consolidation (c) from corrections that "
                "recur in different tasks; approve them here to make them doctrine."
            )
            self.current = None
            self.refresh_bindings()
            return
        if self._next_candidate and (view.figures or patched):
            if not patched:
                self._next_candidate = False
            keep = next((i for i in view.order if view.rules[i]["status"] == "candidate"), keep)
        target = keep if keep in view.rules else next(
            (i for i in view.order if view.rules[i]["status"] == "candidate"), view.order[0]
        )
        rule_list.highlighted = rule_list.get_option_index(target)
        self._show_rule(target)

    def _edit_overtaken(self, rule_id: str, text: str, status: str | None) -> None:
        """Tell the person that ``rule_id`` was decided outside this pane while
        its text had an unsaved edit, and copy that text to the clipboard."""
        now = f"is now {status}" if status else "no longer exists"
        self.app.copy_to_clipboard(text)
        excerpt = text if len(text) <= 160 else text[:159] + "…"
        self.app.notify(
            f"{rule_id} {now} (decided outside this pane); your unsaved edit of its text was not applied. "
            f"It is on the clipboard: {excerpt}",
            title="Edit not applied",
            severity="warning",
            timeout=20,
        )

    def _prompt(self, rule: dict) -> Content:
        title = rule["title"] or rule["id"]
        if rule["status"] == "candidate":
            extra = counted(len(rule["evidence"]), "correction")
            if rule["id"] in self.edits:
                extra += " · edited"
        elif rule["status"] == "active" and (self.view is not None and not self.view.figures or rule.get(FIGURES_PENDING)):
            extra = "replay: computing…"
        elif rule["status"] == "active":
            lesson = rule.get("replay")
            if lesson and lesson["verdict"] in (FEWER, NOT_FEWER):
                word = "fewer repeats" if lesson["verdict"] == FEWER else "no fewer"
                extra = f"{word} · {_rate(lesson['before'])}→{_rate(lesson['after'])}"
            elif lesson:
                extra = lesson["verdict"]
            else:
                extra = "no evidence to replay"
        elif rule["status"] == "retired":
            extra = f"retired {rule['retired']}" if rule.get("retired") else ""
        elif rule["status"] == "rejected":
            extra = rule.get("rejected_reason") or ""
        else:
            extra = rule["status"] or "no status"
        if not extra:
            return Content(title)
        if len(extra) > PROMPT_EXTRA:
            extra = extra[: PROMPT_EXTRA - 1] + "…"
        return Content.from_markup("$title\n[$text-muted]  $extra[/]", title=title, extra=extra)

    def _message(self, text: str) -> None:
        message = self.query_one("#rule-message", Static)
        message.update(text)
        message.display = True
        for wid in ("#rule-top", "#evidence-head", "#evidence-table"):
            self.query_one(wid).display = False

    def _update_subtitle(self) -> None:
        left = self.query_one("#rules-left")
        left.border_subtitle = self._phase or ("embedding…" if self._waiting else "c consolidates")

    # -- the highlighted rule -------------------------------------------------------
    @on(OptionList.OptionHighlighted, "#rule-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id and event.option.id != self.current:
            self._show_rule(event.option.id)

    @on(OptionList.OptionSelected, "#rule-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id and self.rule_is("candidate"):
            self.action_edit()

    @property
    def rule(self) -> dict | None:
        """The highlighted rule's overview item."""
        if self.view is None or self.current is None:
            return None
        return self.view.rules.get(self.current)

    def rule_is(self, status: str) -> bool:
        rule = self.rule
        return rule is not None and rule["status"] == status

    def _any_rule(self, status: str) -> bool:
        """Whether any rule of the list has ``status``."""
        return self.view is not None and any(r["status"] == status for r in self.view.rules.values())

    def _show_rule(self, rule_id: str) -> None:
        view = self.view
        if view is None or rule_id not in view.rules:
            return
        self.current = rule_id
        rule = view.rules[rule_id]
        self.query_one("#rule-message").display = False
        for wid in ("#rule-top",):
            self.query_one(wid).display = True
        detail = self.query_one("#rule-detail")
        detail.border_title = f"{rule_id} · {rule['status'] or 'no status'}"

        head = Text(rule["title"] or rule_id, style="bold")
        dates = [f"created {rule['created']}" if rule.get("created") else ""]
        if rule.get("activated"):
            dates.append(f"active since {rule['activated']}")
        if rule.get("retired"):
            dates.append(f"retired {rule['retired']}")
        if rule["status"] == "candidate":
            dates.append(counted(len(rule["evidence"]), "correction"))
        dates = [d for d in dates if d]
        if dates:
            head.append("\n" + " · ".join(dates), style="dim")
        self.query_one("#rule-head", Static).update(head)

        box = self.query_one(RuleText)
        candidate = rule["status"] == "candidate"
        original = rule["text"] or ""
        self._showing_text_of = None  # changes below are not edits
        box.load_text(self.edits.get(rule_id, original))
        box.read_only = not candidate
        self._showing_text_of = rule_id
        self._text_title()

        self.query_one("#rule-meta", Static).update(self._meta(rule))
        effect = self.query_one("#rule-effect")
        if rule["status"] == "active" and (not view.figures or rule.get(FIGURES_PENDING)):
            effect.display = True
            self.query_one(EffectChart).clear_effect()
            self.query_one(EffectChart).display = False
            self.query_one("#effect-numbers", Static).update(
                Text(f"Replay: {self._waiting or 'computing…'}", style="dim")
            )
        elif rule["status"] == "active":
            effect.display = True
            self.query_one(EffectChart).display = True
            lesson = rule.get("replay") or {}
            before, after = lesson.get("before") or {}, lesson.get("after") or {}
            verdict = lesson.get("verdict")
            self.query_one(EffectChart).show_effect(
                before.get("rate"), after.get("rate"), before.get("tasks") or 0, after.get("tasks") or 0,
                True if verdict == FEWER else False if verdict == NOT_FEWER else None,
            )
            self.query_one("#effect-numbers", Static).update(effect_numbers(rule))
        else:
            effect.display = False
            self.query_one(EffectChart).clear_effect()
        self._show_evidence(rule)
        self.refresh_bindings()

    def _text_title(self) -> None:
        box = self.query_one(RuleText)
        rule = self.rule
        if rule is None:
            return
        if rule["status"] != "candidate":
            box.border_title = "rule"
            box.border_subtitle = ""
        elif self.current in self.edits:
            box.border_title = "rule text · edited"
            box.border_subtitle = "a approves this text · ctrl+z undoes the edit"
        else:
            box.border_title = "rule text"
            box.border_subtitle = "e edits · esc back to the list"

    def _meta(self, rule: dict) -> Table:
        table = Table.grid(padding=(0, 2))
        table.add_column(width=META_LABEL_WIDTH, no_wrap=True, style="bold")
        table.add_column()
        if rule.get("why"):
            table.add_row("Why", Text(rule["why"]))
        if rule.get("apply"):
            table.add_row("Applies to", Text(rule["apply"]))
        if rule.get("proposed_supersedes"):
            table.add_row("Suggested", Text(f"supersede {rule['proposed_supersedes']} (s to choose it; a retires nothing)", style="yellow"))
        if rule.get("supersedes"):
            table.add_row("Supersedes", Text(", ".join(rule["supersedes"])))
        if rule.get("superseded_by"):
            table.add_row("Replaced by", Text(", ".join(rule["superseded_by"])))
        if rule.get("rejected_reason"):
            table.add_row("Rejected", Text(rule["rejected_reason"]))
        if rule["status"] == "active" and rule.get("doctrine_tokens") is not None:
            table.add_row("Doctrine", Text(doctrine_share(rule, self.view.doctrine if self.view else {})))
        return table

    def _show_evidence(self, rule: dict) -> None:
        view = self.view
        head = self.query_one("#evidence-head", Static)
        table = self.query_one(EvidenceTable)
        rows = view.evidence.get(rule["id"], []) if view else []
        if rule["status"] not in ("candidate", "active") and not rows:
            head.display = False
            table.display = False
            return
        head.display = True
        table.display = bool(rows)
        tasks = {t["id"] for r in rows for t in r["tasks"]}
        text = Text()
        text.append("Evidence ", style="bold")
        if not rows:
            text.append("none recorded", style="dim")
        else:
            text.append(f"{counted(len(rows), 'correction')} from {counted(len(tasks), 'task')}")
            sim = view.cluster.get(rule["id"]) if view else None
            if sim is not None:
                text.append(f" · similarity {sim[0]:.2f} ", style="")
                text.append(f"({sim[1]})", style="dim")
        head.update(text)
        table.set_rows([
            (r["id"], (
                Text(r["created"] or "—"),
                Text(r["title"], overflow="ellipsis", no_wrap=True),
                Text(r["tasks"][0]["title"] if r["tasks"] else "—", style="dim", overflow="ellipsis", no_wrap=True),
                Text("—" if r["similarity"] is None else f"{r['similarity']:.2f}"),
                Text(r["status"] or "", style="dim"),
            ))
            for r in rows
        ])

    @on(DataTable.RowSelected, "#evidence-table")
    def _evidence_selected(self, event: DataTable.RowSelected) -> None:
        rows = self.view.evidence.get(self.current or "", []) if self.view else []
        row = event.cursor_row
        if 0 <= row < len(rows):
            r = rows[row]
            self.app.open_page(r["tasks"][0]["id"] if r["tasks"] else r["id"])

    @on(TextArea.Changed, "#rule-text")
    def _text_changed(self, event: TextArea.Changed) -> None:
        rid = self._showing_text_of
        rule = self.rule
        if rid is None or rule is None or rid != self.current or rule["status"] != "candidate":
            return
        text = event.text_area.text
        if " ".join(text.split()) == " ".join((rule["text"] or "").split()):
            self.edits.pop(rid, None)
        else:
            self.edits[rid] = text
        self._text_title()
        rule_list = self.query_one(RuleList)
        try:
            rule_list.replace_option_prompt(rid, self._prompt(rule))
        except Exception:  # the list is being rebuilt
            pass

    # -- actions ------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # A key that works on some other rule of the list is greyed; one
        # that no rule of the list takes (no candidate to approve, no active
        # rule to retire) is hidden.
        if action in ("approve", "reject", "supersede", "edit"):
            return True if self.rule_is("candidate") else None if self._any_rule("candidate") else False
        if action == "retire":
            return True if self.rule_is("active") else None if self._any_rule("active") else False
        if action == "open_rule":
            return True if self.rule is not None else None
        if action == "replay":
            return True if self.view is not None and self.view.replay is not None else None
        if action == "consolidate":
            return True if self.app.store.is_open else None
        if action == "leave_text":
            return True if isinstance(self.focused, TextArea) else False
        return True

    def action_edit(self) -> None:
        if self.rule_is("candidate"):
            box = self.query_one(RuleText)
            box.focus()
            box.move_cursor(box.document.end)

    def action_leave_text(self) -> None:
        self.query_one(RuleList).focus()

    def action_open_rule(self) -> None:
        if self.current:
            self.app.open_page(self.current)

    def action_consolidate(self) -> None:
        self.app.learning.consolidate()

    def action_replay(self) -> None:
        if self.view is not None and self.view.replay is not None:
            self.app.push_screen(ReplayScreen(self.view.replay))

    def _edited_text(self) -> str | None:
        text = self.edits.get(self.current or "")
        return " ".join(text.split()) if text is not None else None

    def action_approve(self) -> None:
        """The approve step: edit the four fields, choose the evidence
        (:class:`~brainwork.tui.modals.approve_rule.ApproveRuleScreen`);
        retires nothing."""
        self._approve_step(None)

    def _approve_step(self, older: str | None) -> None:
        rule = self.rule
        if rule is None or rule["status"] != "candidate" or self.view is None:
            return
        older_item = self.view.rules.get(older) if older else None
        if older and older_item is None:
            return
        rid, today = rule["id"], self.TODAY
        evidence = self.view.evidence.get(rid, [])

        def chosen(choice: ApprovalChoice | None) -> None:
            if choice is None:
                return
            self.app.operations.run(
                "approve rule",
                lambda config, store: approve(
                    config, store, rid, title=choice.title, text=choice.text, why=choice.why, apply=choice.apply,
                    evidence=choice.evidence, supersedes=choice.supersedes, today=today,
                ),
                message=self._decided,
                done=lambda decision: self._show_decision(decision, {
                    "title": choice.title, "text": choice.text, "why": choice.why, "apply": choice.apply,
                }),
            )
            self.query_one(RuleList).focus()

        self.app.push_screen(ApproveRuleScreen(rule, evidence, text=self._edited_text() or None, older=older_item), chosen)

    def action_supersede(self) -> None:
        rule = self.rule
        if rule is None or rule["status"] != "candidate" or self.view is None:
            return
        active = [
            {"id": r["id"], "title": r["title"], "status": r["status"], "text": r["text"]}
            for r in (self.view.rules[i] for i in self.view.order)
            if r["status"] == "active"
        ]
        if not active:
            self.notify("There is no active rule to supersede; a approves the candidate on its own.",
                        title="Supersede", severity="warning")
            return
        rid = rule["id"]

        def picked(older: str | None) -> None:
            if older is not None:
                self._approve_step(older)

        self.app.push_screen(
            PickRuleScreen(
                f"{rid} supersedes which active rule?", active,
                preselect=rule.get("proposed_supersedes"),
                note="Next: both texts side by side; confirming makes the candidate active and retires the rule you "
                     "pick (u undoes both).",
            ),
            picked,
        )

    def action_reject(self) -> None:
        rule = self.rule
        if rule is None or rule["status"] != "candidate":
            return
        rid, today = rule["id"], self.TODAY

        def rejected(reason: str | None) -> None:
            if reason:
                self.app.operations.run(
                    "reject rule",
                    lambda config, store: reject(config, store, rid, reason, today=today),
                    message=self._decided, done=lambda decision: self._show_decision(decision, {"rejected_reason": reason}),
                )

        self.app.push_screen(
            ReasonScreen(
                f"Reject {rid}",
                "The reason is kept on the page; consolidation will not propose these corrections "
                "again unless new ones join them. u undoes.",
                required=True, confirm="Reject",
            ),
            rejected,
        )

    def action_retire(self) -> None:
        rule = self.rule
        if rule is None or rule["status"] != "active":
            return
        rid, today = rule["id"], self.TODAY

        def retired(reason: str | None) -> None:
            if reason is not None:
                self.app.operations.run(
                    "retire rule",
                    lambda config, store: retire(config, store, rid, reason or None, today=today),
                    message=self._decided, done=lambda decision: self._show_decision(decision, next_candidate=False),
                )

        self.app.push_screen(
            ReasonScreen(f"Retire {rid}", "It leaves the doctrine; its page and evidence stay. u undoes.",
                         required=False, confirm="Retire"),
            retired,
        )

    def _show_decision(self, decision, fields: dict | None = None, *, next_candidate: bool = True) -> None:
        """Show the decision at once: the list and the detail from the view
        patched with it (:meth:`RulesView.decided`), the cursor on the next
        candidate (the notification says what became of the decided one).
        The re-read the operation started reconciles (figures, pruning)."""
        if self.view is None:
            return
        view = self.view.decided(decision, fields, self.TODAY)
        if decision.action == "reject" and fields and decision.rule in view.rules:
            view.rules[decision.rule]["rejected_reason"] = fields.get("rejected_reason")
        self.edits.pop(decision.rule, None)
        if next_candidate:
            self._next_candidate = True
        # A read begun before the operation must not land over it.
        self._request += 1
        self.post_message(RulesDecided(decision.action, decision.rule))
        self._show_view(view, patched=True)

    @staticmethod
    def _decided(decision) -> str:
        verb = {"approve": "Approved", "supersede": "Approved", "reject": "Rejected", "retire": "Retired"}.get(
            decision.action, decision.action
        )
        text = f"{verb} {decision.rule}"
        if decision.action in ("approve", "supersede"):
            text += " — it is in the doctrine now"
            if decision.corrections:
                text += f"; {counted(len(decision.corrections), 'correction')} promoted"
            if decision.back:
                text += f"; {len(decision.back)} back to the inbox"
        if decision.retired and decision.action != "retire":
            text += f"; retired {', '.join(decision.retired)}"
        return text + ".  (u undoes)"

    # -- consolidation progress (ConsolidationPhase) ---------------------------
    def _phase_changed(self) -> None:
        self._update_subtitle()

