"""The doctrine: the active rules, as a compact block for the start of every
agent session.

Invariants: the budget (tokens, estimated as ceil(characters / 4)) is hard:
rules are added in priority order (most corrected, then newest activation,
then id) while they fit, and the block ends with an in-band line saying how
many were left out; a budget too small for one rule's block gives the
heading (when it fits) and that line alone, and one too small for that
line gives an empty text, never a line cut short; a rule with ``scope:``
(project names or path globs) is shown only for a ``cwd`` it matches
(:func:`in_scope`), a rule without one always. The default budget, ``thresholds.doctrine_budget_tokens``, fits
a Claude Code hook's context (:data:`brainwork.thresholds.HOOK_CONTEXT_MAX_CHARS`).
docs/learning-loop.md section 6 has the details.
"""

from __future__ import annotations

import fnmatch
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from brainwork.config import Config
from brainwork.wording import counted

if TYPE_CHECKING:  # kept out of the import: a session hook reads the doctrine without the store
    from brainwork.learn.rule import Rule
    from brainwork.store import Store

HEADER = "# Doctrine: standing rules approved from past corrections"
INTRO = "Follow these in every task. Each line names its rule page; open it for the evidence."


#: Characters per token of the size estimate (the budget's unit is tokens).
CHARS_PER_TOKEN = 4


def tokens_of(text: str) -> int:
    """Estimated tokens of ``text``: ceil(characters / 4)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


@dataclass
class DoctrineRule:
    """One rule in the doctrine and what its block costs (characters, tokens)."""

    id: str
    title: str
    rule: str
    why: str
    apply: str
    activated: str | None
    block: str
    chars: int
    tokens: int
    #: How many corrections the rule was drafted or promoted from (its
    #: evidence): the most corrected rules go first.
    evidence: int = 0
    #: The rule's ``scope:`` entries (project names or path globs); empty: global.
    scope: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "id": self.id, "title": self.title, "rule": self.rule, "why": self.why, "apply": self.apply,
            "activated": self.activated, "tokens": self.tokens, "evidence": self.evidence, "scope": self.scope,
        }


@dataclass
class Doctrine:
    """The active rules rendered within a budget.

    ``rules``: the rules in ``text``, in priority order; ``omitted``: the
    in-scope rules left out to fit (priority order); ``text``: the Markdown
    block, at most ``4 x budget`` characters (``chars``); ``tokens``: the
    estimated tokens of the whole in-scope doctrine, every rule included, so
    ``over_budget`` (tokens > budget) says the budget cut something;
    ``budget``: tokens; ``cwd``/``project``: the place the scope was applied
    for (None: no scope applied); ``out_of_scope``: active rules scoped to
    other projects; ``needs``: when no rule fits, the smallest budget that
    prints the first (the heading, its block and the left-out line), else
    None."""

    rules: list[DoctrineRule]
    text: str
    tokens: int
    budget: int
    omitted: list[DoctrineRule] = field(default_factory=list)
    cwd: str | None = None
    project: str | None = None
    out_of_scope: int = 0
    needs: int | None = None
    over_budget: bool = field(init=False)

    def __post_init__(self) -> None:
        self.over_budget = self.tokens > self.budget

    @property
    def chars(self) -> int:
        return len(self.text)

    @property
    def text_tokens(self) -> int:
        """Estimated tokens of ``text`` as printed (at most ``budget``), in
        the budget's unit; ``tokens`` counts every in-scope rule."""
        return tokens_of(self.text)

    @property
    def max_chars(self) -> int:
        """The most characters ``text`` may have: 4 x budget."""
        return self.budget * CHARS_PER_TOKEN

    def costliest(self, n: int = 3) -> list[DoctrineRule]:
        """The ``n`` rules whose blocks cost most tokens, most first (of all in scope)."""
        return sorted(self.rules + self.omitted, key=lambda r: (-r.tokens, r.id))[:n]

    @property
    def nothing_fits(self) -> bool:
        """Not even one in-scope rule fits the budget: ``text`` is empty."""
        return not self.rules and bool(self.omitted)

    def warning(self) -> str | None:
        """One line when rules were left out, naming the costliest (when
        none fits, the smallest and the budget: that is the one thing to
        change); else None."""
        if not self.over_budget:
            return None
        if self.nothing_fits:
            # Rules go in priority order and the first that does not fit
            # ends the list, so the first rule decides, not the smallest.
            first = self.omitted[0]
            shown = "nothing printed" if not self.text else "no rule printed, only the line saying so"
            return (f"{shown}: the first rule, {first.id} (~{first.tokens} tokens), needs a budget of {self.needs} "
                    f"or more with the heading (the budget is {self.budget}; {counted(len(self.omitted), 'active rule')} left out)")
        top = ", ".join(f"{r.id} ({r.tokens})" for r in self.costliest())
        return (
            f"doctrine is ~{self.tokens} tokens, over the budget of {self.budget}; {counted(len(self.omitted), 'rule')} left out; "
            f"costliest rules: {top}. Tighten, merge or retire some (see `brainwork rules`)."
        )

    def to_json(self) -> dict:
        """``{"rules": [...], "tokens", "budget", "over_budget", "text"}`` plus
        ``unit`` ("tokens"), ``text_tokens``, ``chars``, ``max_chars``,
        ``omitted`` (ids left out), ``omitted_count``, ``cwd``, ``project``,
        ``out_of_scope``, ``needs``."""
        return {
            "rules": [r.to_json() for r in self.rules],
            "tokens": self.tokens,
            "budget": self.budget,
            "over_budget": self.over_budget,
            "text": self.text,
            "unit": "tokens",
            "text_tokens": self.text_tokens,
            "chars": self.chars,
            "max_chars": self.max_chars,
            "omitted": [r.id for r in self.omitted],
            "omitted_count": len(self.omitted),
            "cwd": self.cwd,
            "project": self.project,
            "out_of_scope": self.out_of_scope,
            "needs": self.needs,
        }


def _one_line(text: str) -> str:
    return " ".join(str(text or "").split())


def render_rule(rule: "Rule | VaultRule") -> str:
    """The doctrine block of one rule (no trailing newline)::

        - **Title** (rules/id): the rule text
          Why: ... Applies to: ...
    """
    return render_block(rule.id, rule.title, rule.text, rule.why, rule.apply)


def render_block(id: str, title: str, text: str, why: str = "", apply: str = "") -> str:
    """:func:`render_rule` from a rule's fields (e.g. those of
    ``brainwork doctrine --format json``)."""
    head = f"- **{_one_line(title)}** ({id}): {_one_line(text) or _one_line(title)}"
    tail = []
    if why:
        tail.append(f"Why: {_one_line(why)}")
    if apply:
        # Drafted rules state a condition ("when a task is tagged tls").
        condition = _one_line(apply)
        tail.append(f"Applies {condition}" if condition.lower().startswith("when ") else f"Applies to: {condition}")
    return head + ("\n  " + " ".join(tail) if tail else "")


def active_rules(store: "Store") -> "list[Rule]":
    """The active rules, by id (:func:`by_priority` orders them for the doctrine)."""
    from brainwork.learn.rule import list_rules

    return sorted(list_rules(store, "active"), key=lambda r: r.id)


def by_priority(rules: list) -> list:
    """Most corrected first (evidence count), then newest (activation date), then id."""
    out = sorted(rules, key=lambda r: r.id)
    out.sort(key=lambda r: r.activated or "", reverse=True)
    out.sort(key=lambda r: len(r.evidence) if isinstance(r.evidence, list) else int(r.evidence or 0), reverse=True)
    return out


# -- scope -------------------------------------------------------------------------
_GLOB = re.compile(r"[*?\[/~]")


def scope_list(value) -> list[str]:
    """A ``scope:`` value as a list of entries: a list of text, or one text
    (split at commas); blanks dropped."""
    if value is None:
        return []
    items = value if isinstance(value, list) else str(value).split(",")
    return [str(v).strip() for v in items if str(v).strip()]


def project_of(cwd: str | os.PathLike) -> tuple[Path, str]:
    """``(root, project name)`` for a working directory: the nearest folder
    at or above ``cwd`` holding ``.git`` (a folder or a worktree's file),
    else ``cwd`` itself; the name is that folder's name."""
    path = Path(os.path.expanduser(str(cwd))).resolve()
    for folder in (path, *path.parents):
        if (folder / ".git").exists():
            return folder, folder.name
    return path, path.name


def in_scope(scope: list[str], cwd: str | os.PathLike | None) -> bool:
    """Whether a rule with ``scope`` applies at ``cwd``: always for a global
    rule (empty scope) or without ``cwd``; else when an entry without glob or
    path characters equals the project name (:func:`project_of`,
    case-insensitive), or an entry with them (``*?[/~``) matches ``cwd`` or one
    of its parents (fnmatch, ``~`` expanded; ``*`` also crosses ``/``)."""
    if not scope or cwd is None:
        return True
    root, name = project_of(cwd)
    path = Path(os.path.expanduser(str(cwd))).resolve()
    places = [str(p) for p in (path, *path.parents)]
    for entry in scope:
        if not _GLOB.search(entry):
            if entry.casefold() == name.casefold():
                return True
            continue
        pattern = os.path.expanduser(entry).rstrip("/") or "/"
        if any(fnmatch.fnmatchcase(p, pattern) for p in places):
            return True
    return False


def doctrine(config: Config, store: "Store", budget: int | None = None, *, cwd: str | os.PathLike | None = None) -> Doctrine:
    """Render the active rules (those in scope at ``cwd`` when given) within
    ``budget`` tokens (default ``config.thresholds.doctrine_budget_tokens``).
    With no active rule the text says so in one line (an empty doctrine is
    valid). A budget below one rule's block yields no rule, only the line
    saying how many were left out (with the heading if it fits); a budget
    below that line (~40 tokens) yields "" (:func:`_cap`)."""
    from brainwork.store import prior as pstore

    budget = config.thresholds.doctrine_budget_tokens if budget is None else int(budget)
    rules = active_rules(store)
    scopes = {i: scope_list(f.get("scope")) for i, f in pstore.page_fields(store, [r.id for r in rules]).items()}
    return _render([(r, scopes.get(r.id, [])) for r in rules], budget, cwd)


def _more_line(left: int, budget: int) -> str:
    return (f"({left} more active rule{'s' if left != 1 else ''} left out to stay within {budget} tokens: "
            f"`brainwork doctrine --budget N` prints more, `brainwork rules --status active` lists them all.)")


def _render(rules: "list[tuple[Rule | VaultRule, list[str]]]", budget: int, cwd=None) -> Doctrine:
    """Lay the rules out by :func:`by_priority` within ``budget`` tokens
    (4 x budget characters), scope applied at ``cwd``."""
    kept_in = [(r, sc) for r, sc in rules if in_scope(sc, cwd)]
    out_of_scope = len(rules) - len(kept_in)
    scope_of = {id(r): sc for r, sc in kept_in}
    items = []
    for r in by_priority([r for r, _ in kept_in]):
        block = render_rule(r)
        evidence = len(r.evidence) if isinstance(r.evidence, list) else int(r.evidence or 0)
        items.append(DoctrineRule(r.id, r.title, r.text, r.why, r.apply, r.activated, block, len(block) + 1,
                                  tokens_of(block + "\n"), evidence, list(scope_of[id(r)])))
    project = project_of(cwd)[1] if cwd is not None else None
    where = f" for {project}" if project else ""
    limit = budget * CHARS_PER_TOKEN
    if not items:
        text = f"{HEADER} (0{where})\nNo rule has been approved yet.\n" if not out_of_scope else \
            f"{HEADER} (0{where})\nNo active rule applies here ({out_of_scope} scoped to other projects).\n"
        full_tokens = tokens_of(text)
        return Doctrine([], _cap(text, limit), full_tokens, budget, [], _cwd_text(cwd), project, out_of_scope)

    def head(kept: int) -> str:
        count = f"{kept}" if kept == len(items) else f"{kept} of {len(items)}, most corrected first"
        return f"{HEADER} ({count}{where})\n{INTRO}\n\n"

    full = head(len(items)) + "".join(i.block + "\n" for i in items)
    kept: list[DoctrineRule] = []
    used = 0
    for k, item in enumerate(items):
        left_after = len(items) - k - 1
        tail = ("\n" + _more_line(left_after, budget) + "\n") if left_after else ""
        if len(head(k + 1)) + used + len(item.block) + 1 + len(tail) > limit:
            break
        kept.append(item)
        used += len(item.block) + 1
    omitted = items[len(kept):]
    needs = None
    if not kept:
        # The budget's own digits are in the left-out line: settle them.
        needs = budget
        for _ in range(3):
            tail = ("\n" + _more_line(len(items) - 1, needs) + "\n") if len(items) > 1 else ""
            needs = math.ceil((len(head(1)) + len(items[0].block) + 1 + len(tail)) / CHARS_PER_TOKEN)
    text = head(len(kept)) + "".join(i.block + "\n" for i in kept)
    if omitted:
        text += "\n" + _more_line(len(omitted), budget) + "\n"
    return Doctrine(kept, _cap(text, limit), tokens_of(full), budget, omitted, _cwd_text(cwd), project, out_of_scope,
                    needs)


def _cwd_text(cwd) -> str | None:
    return None if cwd is None else str(Path(os.path.expanduser(str(cwd))).resolve())


def _cap(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, in whole lines: the lines before
    the last (the left-out note, or the empty doctrine's one line) are
    dropped from the end first, heading last; when even the last line alone
    does not fit, "". The doctrine's stdout goes into an agent's context as
    is, so it is never cut inside a line (a word, a link or a parenthesis
    left open); the CLI's stderr line still says what was left out."""
    if len(text) <= limit:
        return text
    lines = text.splitlines()
    last, before = lines[-1], lines[:-1]
    while before and len("\n".join([*before, last])) + 1 > limit:
        before.pop()
    out = "\n".join([*before, last]) + "\n"
    return out if len(out) <= limit else ""


@dataclass
class VaultRule:
    """An active rule as :func:`doctrine_from_vault` reads it from its page
    (what the doctrine shows of a :class:`brainwork.learn.rule.Rule`,
    without importing the store)."""

    id: str
    title: str
    text: str
    why: str
    apply: str
    activated: str | None
    evidence: list[str] = field(default_factory=list)
    scope: list[str] = field(default_factory=list)


_RULE_TYPE = re.compile(rb"^type:[ \t]*['\"]?rule['\"]?[ \t]*\r?$", re.MULTILINE)


def doctrine_from_vault(config: Config, budget: int | None = None, *, cwd: str | os.PathLike | None = None) -> Doctrine:
    """Like :func:`doctrine` (same budget, priority and scope), read from the
    vault's files without the store (for a session hook while another
    process, e.g. the workbench, holds the store). Only pages whose
    frontmatter says ``type: rule`` are parsed."""
    from brainwork.index.scan import scan_vault
    from brainwork.vault.parse import parse_file

    budget = config.thresholds.doctrine_budget_tokens if budget is None else int(budget)
    rules = []
    for f in scan_vault(config.vault, config.ignore_folders, config.store):
        if not f.is_markdown or f.size > config.thresholds.max_file_bytes:
            continue
        try:
            with open(config.vault / f.rel, "rb") as fh:
                head = fh.read(8192)
        except OSError:
            continue
        if not _RULE_TYPE.search(head):
            continue
        page = parse_file(config.vault, f.rel)
        if page.type != "rule" or page.fields.get("status") != "active":
            continue
        fields = page.fields
        # Evidence, approximately as the store reads it without resolving
        # links: promoted_from: links, and frontmatter related:/evidence:
        # links into a corrections folder.
        evidence = sorted({
            link.target for link in page.links
            if link.where == "frontmatter" and (
                (link.edge == "promoted_to" and link.reverse)
                or (link.edge == "related" and "correction" in link.target.lower()))
        })
        rules.append(VaultRule(
            id=page.id, title=page.title,
            text=_one_line(fields.get("rule")), why=_one_line(fields.get("why")), apply=_one_line(fields.get("apply")),
            activated=fields.get("activated") if isinstance(fields.get("activated"), str) else None,
            evidence=evidence, scope=scope_list(fields.get("scope")),
        ))
    rules.sort(key=lambda r: r.id)
    return _render([(r, r.scope) for r in rules], budget, cwd)
