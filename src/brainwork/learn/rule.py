"""A rule page as the learning step reads it: :class:`Rule` and :func:`list_rules`.

Shared by the approval gate (:mod:`brainwork.learn.rules`), the doctrine,
replay, pruning and consolidation, none of which needs the others to read
the rules.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from brainwork.errors import PageNotFound, UserError
from brainwork.learn.pagefile import link_target
from brainwork.store import Store
from brainwork.store import graph
from brainwork.store import learning as q
from brainwork.vocabulary import RULE_STATUSES

#: Frontmatter keys the learning step writes on rule pages (documented in
#: docs/learning-loop.md). ``evidence`` holds a candidate's corrections; at
#: approval they move to ``promoted_from`` (vocabulary: inverse of promoted_to).
EVIDENCE_KEY = "evidence"
PROMOTED_KEY = "promoted_from"
PROPOSED_SUPERSEDES_KEY = "proposed_supersedes"
#: The key on a correction naming the rule it was promoted to.
PROMOTED_TO_KEY = "promoted_to"
@dataclass
class Rule:
    """One rule page as the learning step sees it.

    ``text`` is the standing instruction (frontmatter ``rule:``); dates are
    ``YYYY-MM-DD`` text or None; ``evidence`` the correction ids it comes
    from; ``supersedes``/``superseded_by`` rule ids; ``proposed_supersedes``
    the active rule a candidate proposes to replace.
    """

    id: str
    path: str
    title: str
    status: str | None
    text: str
    why: str
    apply: str
    created: str | None
    activated: str | None
    tags: list[str] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    supersedes: list[str] = field(default_factory=list)
    superseded_by: list[str] = field(default_factory=list)
    proposed_supersedes: str | None = None
    rejected_reason: str | None = None
    retired: str | None = None

    def to_json(self) -> dict:
        return asdict(self)



def field_text(value) -> str:
    """A frontmatter value as one line of text (a list joined by commas)."""
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value).strip()


def _rule_from_row(row: dict, ids: set[str] | None = None) -> Rule:
    f = row["fields"]
    proposed = link_target(field_text(f.get(PROPOSED_SUPERSEDES_KEY))) if f.get(PROPOSED_SUPERSEDES_KEY) else None
    return Rule(
        id=row["id"],
        path=row["path"],
        title=row["title"],
        status=row["status"],
        text=field_text(f.get("rule")),
        why=field_text(f.get("why")),
        apply=field_text(f.get("apply")),
        created=row["created"],
        activated=field_text(f.get("activated")) or None,
        tags=row["tags"],
        evidence=list(row["evidence"]),
        supersedes=list(row["supersedes"]),
        superseded_by=list(row["superseded_by"]),
        proposed_supersedes=proposed,
        rejected_reason=field_text(f.get("rejected_reason")) or None,
        retired=field_text(f.get("retired")) or None,
    )


def list_rules(store: Store, status: str | None = None) -> list[Rule]:
    """Every rule page (or those with ``status``), by id.

    Raises:
        UserError: ``status`` is not one of :data:`brainwork.vocabulary.RULE_STATUSES`.
    """
    if status is not None and status not in RULE_STATUSES:
        raise UserError(f"unknown rule status {status!r} (one of: {', '.join(RULE_STATUSES)})")
    rules = [_rule_from_row(r) for r in q.rules(store, status)]
    # A proposed_supersedes link is written as text; resolve it like a wikilink.
    for r in rules:
        if r.proposed_supersedes:
            try:
                r.proposed_supersedes = graph.find_page(store, r.proposed_supersedes)
            except PageNotFound:
                pass
    return rules


def get_rule(store: Store, name: str) -> Rule:
    """The rule ``name`` designates (id, path, title, alias).

    Raises:
        PageNotFound: no such page. UserError: the page is not a rule.
    """
    pid = graph.find_page(store, name)
    for r in list_rules(store):
        if r.id == pid:
            return r
    page = graph.get_page(store, pid, errors=False) or {}
    raise UserError(f"{pid} is not a rule page (its type is {getattr(page, 'type', None) or 'not set'}, not rule)")


