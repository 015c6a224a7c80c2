"""The arguments a capture takes beyond its type's fields, and the help
text of each, shared by every front end that offers a capture (the
``capture`` commands' options, the MCP server's ``capture_*`` tool
parameters), so they name and explain them alike.

Field names themselves are :data:`brainwork.vocabulary.TYPE_FIELDS`.
"""

from __future__ import annotations

#: Edge options per captured type: option name -> frontmatter key written.
EDGE_OPTIONS: dict[str, dict[str, str]] = {
    "task": {"used": "used", "cited": "cited", "produced": "produced", "corrected-by": "corrected_by"},
    "correction": {"task": "corrects"},
    "source": {"cited-by": "cited_by"},
    "tool": {"used-by": "used_by"},
    "decision": {"cited": "cited", "produced-by": "produced_by"},
    "artifact": {"produced-by": "produced_by"},
}
#: Edge option name -> what the pages it names are.
EDGE_HELP = {
    "used": "a tool or system the task used",
    "cited": "a source relied on",
    "produced": "an artifact or decision the task produced",
    "corrected-by": "a correction the task received",
    "task": "the task this correction corrects (writes corrects: [[task]])",
    "cited-by": "a task or decision that cited this source",
    "used-by": "a task that used this tool",
    "produced-by": "the task that produced this",
}
#: Field name -> what it holds.
FIELD_HELP = {
    "request": "what was asked", "summary": "what was done", "outcome": "how it went",
    "ref": "URL or reference", "reliability": "did it hold up", "name": "the tool's name",
    "right_choice": "was it the right tool", "choice": "what was decided", "reasoning": "why",
    "wrong": "what the agent did wrong", "correct": "the correct behaviour", "why": "why it matters",
    "location": "where the artifact lives", "kind": "what kind of artifact",
}
