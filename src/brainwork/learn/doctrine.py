"""The doctrine: exactly the active rules, as a compact block for the start of
every agent session (issue 4 §5).

Size is estimated as tokens = ceil(characters / 4) (the usual rule of thumb
for English text with BPE tokenisers); the budget defaults to
``thresholds.doctrine_budget_tokens``. Over budget is a warning (the CLI
prints it on stderr) naming the rules that cost most, never a failure: the
agent still gets every active rule.

Rules are ordered by activation date, then id, so the block is stable and a
newly approved rule appears at the end.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from brainwork.config import Config

if TYPE_CHECKING:  # kept out of the import: a session hook reads the doctrine without the store
    from brainwork.learn.rules import Rule
    from brainwork.store import Store

HEADER = "# Doctrine: standing rules approved from past corrections"
INTRO = "Follow these in every task. Each line names its rule page; open it for the evidence."


def tokens_of(text: str) -> int:
    """Estimated tokens of ``text``: ceil(characters / 4)."""
    return math.ceil(len(text) / 4)


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
    #: evidence): a session hook that cannot load every rule keeps the most
    #: corrected ones.
    evidence: int = 0

    def to_json(self) -> dict:
        return {
            "id": self.id, "title": self.title, "rule": self.rule, "why": self.why, "apply": self.apply,
            "activated": self.activated, "tokens": self.tokens, "evidence": self.evidence,
        }


@dataclass
class Doctrine:
    """The active rules rendered: ``text`` (Markdown), its ``tokens`` against
    ``budget``; ``over_budget`` when tokens > budget."""

    rules: list[DoctrineRule]
    text: str
    tokens: int
    budget: int
    over_budget: bool = field(init=False)

    def __post_init__(self) -> None:
        self.over_budget = self.tokens > self.budget

    def costliest(self, n: int = 3) -> list[DoctrineRule]:
        """The ``n`` rules whose blocks cost most tokens, most first."""
        return sorted(self.rules, key=lambda r: (-r.tokens, r.id))[:n]

    def warning(self) -> str | None:
        """One line when over budget, naming the costliest rules; else None."""
        if not self.over_budget:
            return None
        top = ", ".join(f"{r.id} ({r.tokens})" for r in self.costliest())
        return (
            f"doctrine is ~{self.tokens} tokens, over the budget of {self.budget}; "
            f"costliest rules: {top}. Tighten, merge or retire some (see `brainwork rules`)."
        )

    def to_json(self) -> dict:
        """``{"rules": [...], "tokens", "budget", "over_budget", "text"}``."""
        return {
            "rules": [r.to_json() for r in self.rules],
            "tokens": self.tokens,
            "budget": self.budget,
            "over_budget": self.over_budget,
            "text": self.text,
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
    """The active rules in doctrine order (activation date, then id)."""
    from brainwork.learn.rules import list_rules

    return sorted(list_rules(store, "active"), key=lambda r: (r.activated or "", r.id))


def doctrine(config: Config, store: "Store", budget: int | None = None) -> Doctrine:
    """Render exactly the active rules.

    ``budget``: tokens (default ``config.thresholds.doctrine_budget_tokens``).
    With no active rule the text says so in one line (an empty doctrine is
    valid).
    """
    budget = config.thresholds.doctrine_budget_tokens if budget is None else int(budget)
    return _render(active_rules(store), budget)

def _render(rules: "list[Rule] | list[VaultRule]", budget: int) -> Doctrine:
    items = []
    for r in rules:
        block = render_rule(r)
        items.append(DoctrineRule(r.id, r.title, r.text, r.why, r.apply, r.activated, block, len(block) + 1,
                                  tokens_of(block + "\n"), len(r.evidence)))
    if items:
        text = f"{HEADER} ({len(items)})\n{INTRO}\n\n" + "\n".join(i.block for i in items) + "\n"
    else:
        text = f"{HEADER} (0)\nNo rule has been approved yet.\n"
    return Doctrine(items, text, tokens_of(text), budget)


@dataclass
class VaultRule:
    """An active rule as :func:`doctrine_from_vault` reads it from its page
    (what the doctrine shows of a :class:`brainwork.learn.rules.Rule`,
    without importing the store)."""

    id: str
    title: str
    text: str
    why: str
    apply: str
    activated: str | None
    evidence: list[str] = field(default_factory=list)


_RULE_TYPE = re.compile(rb"^type:[ \t]*['\"]?rule['\"]?[ \t]*\r?$", re.MULTILINE)


def doctrine_from_vault(config: Config, budget: int | None = None) -> Doctrine:
    """Like :func:`doctrine`, read from the vault's files without the store
    (for a session hook while another process, e.g. the workbench, holds the
    store). Only pages whose frontmatter says ``type: rule`` are parsed."""
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
            evidence=evidence,
        ))
    rules.sort(key=lambda r: (r.activated or "", r.id))
    return _render(rules, budget)
