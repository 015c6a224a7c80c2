"""The vault's vocabulary: page types, their key fields, and typed edges.

This is the one place where types and edges are defined; every other module
imports them from here. A vault may extend the page types in ``brainwork.toml``
(see :mod:`brainwork.config`), never the edges: the edge set is the schema of
the graph store.

The vocabulary is closed (docs/vault-format.md lists it): a page type
outside it is an ``untyped`` finding, not a new kind.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Work records: what an agent did and what it learned.
RECORD_TYPES: tuple[str, ...] = (
    "task",
    "source",
    "tool",
    "decision",
    "correction",
    "artifact",
    "rule",
)

#: Things the records are about.
THING_TYPES: tuple[str, ...] = (
    "customer",
    "project",
    "system",
    "person",
    "problem",
    "topic",
)

#: The default closed vocabulary of page types (records, then things).
PAGE_TYPES: tuple[str, ...] = RECORD_TYPES + THING_TYPES

#: Key fields per type, with the allowed values where the field is an enum.
#: ``None`` means free text.
TYPE_FIELDS: dict[str, dict[str, tuple[str, ...] | None]] = {
    "task": {"request": None, "summary": None, "outcome": ("success", "partial", "failed")},
    "source": {"ref": None, "reliability": ("held-up", "was-wrong")},
    "tool": {"name": None, "right_choice": None},
    "decision": {"choice": None, "reasoning": None},
    "correction": {
        "wrong": None,
        "correct": None,
        "why": None,
        # ``proposed``: drafted by a session hook from the person's own words;
        # it waits in the inbox until a person confirms it (-> open) or
        # dismisses it, and consolidation never reads it.
        "status": ("open", "clustered", "promoted", "dismissed", "proposed"),
    },
    "artifact": {"location": None, "kind": None},
    "rule": {
        "rule": None,
        "why": None,
        "apply": None,
        "status": ("candidate", "active", "retired", "rejected"),
    },
}

#: Fields every page may carry.
COMMON_FIELDS: tuple[str, ...] = ("title", "aliases", "tags", "created", "updated", "source")

#: Allowed values of the common ``source`` field (who wrote the page).
PAGE_SOURCES: tuple[str, ...] = ("agent", "manual")

CORRECTION_STATUSES = TYPE_FIELDS["correction"]["status"]
#: The status of a correction a session hook drafted and no person confirmed yet.
PROPOSED = "proposed"
#: Frontmatter key naming the agent session a page was captured from (a
#: Claude Code ``session_id``), so a later capture of the same session
#: updates that page instead of writing a second one.
SESSION_KEY = "session"
RULE_STATUSES = TYPE_FIELDS["rule"]["status"]
TASK_OUTCOMES = TYPE_FIELDS["task"]["outcome"]


@dataclass(frozen=True)
class EdgeType:
    """One typed edge of the graph.

    ``name`` is the frontmatter key on the page the edge starts from (and the
    store's relationship table name, upper-cased); ``inverse`` is the key the
    other endpoint may write instead, so an agent can record an edge by
    writing only the new page (``corrects: "[[task-x]]"`` on a correction
    declares ``task -corrected_by-> correction``).
    """

    name: str
    inverse: str
    description: str

    @property
    def table(self) -> str:
        """Name of the store's relationship table for this edge type."""
        return self.name.upper()


EDGE_TYPES: tuple[EdgeType, ...] = (
    EdgeType("used", "used_by", "a task used a tool or system"),
    EdgeType("cited", "cited_by", "a task or decision relied on a source"),
    EdgeType("produced", "produced_by", "a task produced an artifact or decision"),
    EdgeType("corrected_by", "corrects", "a task was corrected by a correction"),
    EdgeType("promoted_to", "promoted_from", "a correction was promoted to a rule"),
    EdgeType("supersedes", "superseded_by", "a rule supersedes an older rule"),
    EdgeType("related", "related", "any other link, including every body wikilink"),
)

EDGE_NAMES: tuple[str, ...] = tuple(e.name for e in EDGE_TYPES)
EDGES_BY_NAME: dict[str, EdgeType] = {e.name: e for e in EDGE_TYPES}

#: Frontmatter key -> (edge name, reversed?). A reversed key declares an edge
#: that runs from the link target to the page that wrote it.
EDGE_KEYS: dict[str, tuple[str, bool]] = {}
for _e in EDGE_TYPES:
    EDGE_KEYS[_e.name] = (_e.name, False)
    if _e.inverse != _e.name:
        EDGE_KEYS[_e.inverse] = (_e.name, True)
del _e

#: The edge type of a wikilink written in the body.
BODY_EDGE = "related"

#: Type of a non-Markdown file that links may point at (not a page).
ATTACHMENT_TYPE = "attachment"
