"""brainwork as an MCP server (the official ``mcp`` SDK, ``MCPServer``).

:func:`build_server` returns a server for one vault: the capture tools
(arguments are the CLI's field names), ``recall``, ``doctrine``, ``search``,
``read_page``, and the doctrine as a prompt and the resource
:data:`DOCTRINE_URI`. Each tool answers with compact text plus the command's
JSON as structured content; a bad argument is a tool error holding the one
line the command line would print, and the server goes on. Nothing here
holds the store between calls (captures need none; the rest go through
the ``call`` the command line passes in, :func:`brainwork.cli.served.call`),
so one server per agent session can run against one vault. Tools and
errors: docs/learning-loop.md, "Connecting agents: MCP".
"""

from __future__ import annotations

import inspect
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from brainwork import __version__
from brainwork.config import Config
from brainwork.errors import UserError
from brainwork.thresholds import MCP_PAGE_EDGES_MAX, MCP_PAGE_MAX_CHARS, RECALL_MIN_BUDGET_CHARS
from brainwork.wording import noun
from brainwork.service.capture_options import EDGE_HELP, EDGE_OPTIONS, FIELD_HELP
from brainwork.service.owner import Reply
from brainwork.vocabulary import TYPE_FIELDS

#: ``call(config, argv)``: runs ``brainwork ARGV`` in the store's owner, or
#: against the store opened for that one call, and returns what it printed
#: (:func:`brainwork.cli.served.call`; the command line passes it in, as it
#: sits above this package).
Call = Callable[[Config, list[str]], Reply]

SERVER_NAME = "brainwork"
DOCTRINE_URI = "brainwork://doctrine"
#: Default and largest number of pages ``search`` returns.
SEARCH_LIMIT = 10
SEARCH_LIMIT_MAX = 50

#: Sent to the client at initialisation; Claude Code shows it to the model
#: beside the tool list, so it says when to call what.
INSTRUCTIONS = """\
brainwork is the user's curated work memory (a vault of Markdown pages).
- Call `doctrine` at the start of a session: the rules the user approved from past corrections. \
Follow them.
- Call `recall` with a one-sentence description before starting a task: it returns the most relevant \
prior tasks with what they taught (corrections, sources, tools).
- Call `capture_correction` whenever the user corrects you: what you did wrong, what is correct, why.
- Call `capture_task` when you finish a task (request, summary, outcome, and the tools, sources and \
artifacts involved); `capture_source`, `capture_tool`, `capture_decision`, `capture_artifact` for \
things worth finding again.
- Use `search` to find a page's id by name and `read_page` to read it.
Captured pages are reviewed by the user in the brainwork workbench; nothing you capture becomes a \
rule without their approval."""

_TOOL_TEXT: dict[str, str] = {
    "task": (
        "Record a task you just finished (call it at the end of every task, also a failed one): "
        "`request` what was asked, `summary` what you did, `outcome` success | partial | failed, and "
        "the pages it involved — `used` tools or systems, `cited` sources, `produced` artifacts or "
        "decisions (page ids, titles or aliases; find them with `search`). Returns the new page id, "
        "which `capture_correction`'s `task` can name."
    ),
    "correction": (
        "Call capture_correction whenever the user corrects you: `wrong` what you did wrong, `correct` "
        "what is correct, `why` why it matters (all three required, each one or two sentences in your "
        "own words). Name the task it corrects in `task` when you captured one. Corrections are "
        "consolidated into candidate rules that the user approves; approved rules come back through "
        "`doctrine`."
    ),
    "source": (
        "Record a source you relied on (a document, web page, ticket, person's statement) so it can be "
        "found and judged again: `ref` URL or reference, `reliability` held-up | was-wrong once known, "
        "`cited_by` the tasks or decisions that relied on it."
    ),
    "tool": (
        "Record a tool or system you used and whether it was the right choice: `name`, `right_choice` "
        "true | false, `used_by` the tasks that used it."
    ),
    "decision": (
        "Record a decision made during the work (by you or the user) with its reasoning: `choice`, "
        "`reasoning`, `cited` sources, `produced_by` the task it came from."
    ),
    "artifact": (
        "Record something the work produced that lives somewhere (a file, a PR, a document): "
        "`location` path or URL, `kind` what it is, `produced_by` the task that produced it."
    ),
}
_COMMON_HELP = {
    "title": "Page title (default: taken from the first key field).",
    "tags": "Tags (a list, or comma-separated text).",
    "aliases": "Other names the page can be found by.",
    "body": "Markdown body below the frontmatter (details, commands, excerpts).",
    "created": "Creation date YYYY-MM-DD (default: today).",
    "related": "Any other related pages (ids, titles or aliases).",
}

#: Serialises the calls that need the store within one process: Kùzu allows
#: one open database per path per process, and the SDK runs tool functions in
#: worker threads.
_STORE_LOCK = threading.Lock()

_Text = str | None
_Names = list[str] | str | None


def _one_line(stderr: str) -> str:
    """The message of a failed command: its ``brainwork: error:`` line
    without the prefix, else the last line printed (a traceback's)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if line.startswith("brainwork: error:"):
            return line[len("brainwork: error:"):].strip()
    return lines[-1] if lines else ""


def run_command(call: Call, config: Config, argv: list[str]) -> str:
    """Run ``brainwork ARGV`` through ``call`` and return its stdout.

    Raises:
        ToolError: the command failed; the message is its one error line.
    """
    with _STORE_LOCK:
        reply = call(config, argv)
    if reply.exit_code != 0:
        raise ToolError(_one_line(reply.stderr) or f"brainwork {argv[0]} failed (exit code {reply.exit_code})")
    return reply.stdout


def _json_command(call: Call, config: Config, argv: list[str]) -> Any:
    out = run_command(call, config, argv)
    try:
        return json.loads(out)
    except ValueError:
        raise ToolError(f"brainwork {argv[0]} printed no JSON: {out[:200]!r}") from None


def _result(text: str, data: Any) -> CallToolResult:
    structured = data if isinstance(data, dict) else {"result": data}
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


# -- captures --------------------------------------------------------------------
def _field_annotation(type_: str, key: str, allowed: tuple[str, ...] | None):
    help_ = FIELD_HELP.get(key, key)
    if key == "right_choice":
        return Annotated[bool | None, Field(description=f"{help_} (true or false)")]
    if allowed is not None:
        return Annotated[_Text, Field(description=f"{help_}: one of {', '.join(allowed)}")]
    return Annotated[_Text, Field(description=help_)]


def capture_parameters(type_: str) -> tuple[list[inspect.Parameter], dict[str, str]]:
    """The ``capture_TYPE`` tool's parameters, and parameter name -> the
    key of the record passed to :func:`~brainwork.learn.capture.capture`.

    Field names come from :data:`~brainwork.vocabulary.TYPE_FIELDS` (but
    ``status``: a correction starts open), edge names from
    :data:`brainwork.service.capture_options.EDGE_OPTIONS` with ``-`` as ``_`` (as the
    CLI's options), then the keys every record takes. A correction's
    ``wrong``, ``correct`` and ``why`` are required."""
    from brainwork.learn.capture import CORRECTION_REQUIRED

    params: list[inspect.Parameter] = []
    keys: dict[str, str] = {}
    kw = inspect.Parameter.KEYWORD_ONLY
    for key, allowed in TYPE_FIELDS[type_].items():
        if key == "status":
            continue
        ann = _field_annotation(type_, key, allowed)
        if type_ == "correction" and key in CORRECTION_REQUIRED:
            params.append(inspect.Parameter(key, kw, annotation=Annotated[str, Field(description=ann.__metadata__[0].description)]))
        else:
            params.append(inspect.Parameter(key, kw, default=None, annotation=ann))
        keys[key] = key
    for opt, key in EDGE_OPTIONS[type_].items():
        name = opt.replace("-", "_")
        params.append(inspect.Parameter(name, kw, default=None, annotation=Annotated[
            _Names, Field(description=f"{EDGE_HELP[opt]} (page ids, titles or aliases; a list or one name)")]))
        keys[name] = key
    for key in ("title", "tags", "aliases", "body", "created", "related"):
        ann = _Names if key in ("tags", "aliases", "related") else _Text
        params.append(inspect.Parameter(key, kw, default=None, annotation=Annotated[ann, Field(description=_COMMON_HELP[key])]))
        keys[key] = key
    # Required parameters first, so the signature is valid Python.
    params.sort(key=lambda p: p.default is not inspect.Parameter.empty)
    return params, keys


def _capture_text(result) -> str:
    links = "; ".join(f"{key} → {', '.join(ids)}" for key, ids in result.links.items())
    return f"captured {result.type} {result.id}: {result.title}" + (f" ({links})" if links else "")


def _capture_tool(config: Config, type_: str):
    from brainwork.learn.capture import capture

    params, keys = capture_parameters(type_)

    def tool(**arguments) -> CallToolResult:
        data = {keys[name]: value for name, value in arguments.items() if value is not None}
        try:
            result = capture(config, None, type_, data)
        except UserError as exc:
            raise ToolError(str(exc)) from None
        return _result(_capture_text(result), result.to_json())

    tool.__name__ = f"capture_{type_}"
    tool.__doc__ = _TOOL_TEXT[type_]
    tool.__signature__ = inspect.Signature(params, return_annotation=CallToolResult)  # type: ignore[attr-defined]
    return tool


# -- the store's side ------------------------------------------------------------
def doctrine_data(call: Call, config: Config) -> dict:
    """``brainwork doctrine --format json`` for ``config``'s vault."""
    return _json_command(call, config, ["doctrine", "--format", "json"])


def cap_edges(edges: dict, limit: int = MCP_PAGE_EDGES_MAX) -> dict:
    """``show --json``'s ``edges`` with at most ``limit`` edges each way
    (the first ones, in ``show``'s order) and each way's total count:
    ``{"out": [...], "in": [...], "out_total": N, "in_total": M}``."""
    out = list(edges.get("out") or [])
    into = list(edges.get("in") or [])
    return {"out": out[:limit], "in": into[:limit], "out_total": len(out), "in_total": len(into)}


def _edges_text(edges: dict, page: str = "") -> str:
    """The edges of :func:`cap_edges` as lines, each way's left-out count
    after its lines."""
    def title(e: dict) -> str:
        return (f" ({e['title']})" if e.get("title") and e["title"] != e["other"] else "") + (" (dead link)" if e.get("dead") else "")

    lines = []
    for way in ("out", "in"):
        shown = edges.get(way, [])
        for e in shown:
            lines.append(f"- {e['edge']} → {e['other']}{title(e)}" if way == "out" else f"- ← {e['edge']} {e['other']}{title(e)}")
        left = int(edges.get(f"{way}_total", len(shown))) - len(shown)
        if left > 0:
            what = "link" if way == "out" else "backlink"
            lines.append(f"- … and {left:,} more {noun(left, what)} {'out' if way == 'out' else 'in'} "
                         f"(`brainwork show {page}` lists them all)" if page else
                         f"- … and {left:,} more {noun(left, what)}")
    return "\n".join(lines) if lines else "(no edges)"


@dataclass(frozen=True)
class PagePart:
    """What ``read_page`` returns of a page file: ``text``, characters
    ``offset`` up to ``end`` of the file's ``total`` (its text as read, in
    characters; ``end == total``: nothing after it), and ``note``, the line
    saying what was left out and how to read it ("" when ``text`` is the
    whole file). ``too_large``: the file is over ``max_file_bytes`` and was
    not read (``text`` is then "" and ``total`` its size in bytes).
    ``not_text``: why the file is not text (``"binary"``: it holds a NUL
    byte; ``"not UTF-8"``), as the indexer sees it: not parsed, so ``text``
    is "" (its bytes decoded anyway would be garbage to an agent) and
    ``total`` its size in bytes."""

    text: str
    offset: int
    end: int
    total: int
    note: str = ""
    too_large: bool = False
    not_text: str | None = None

    @property
    def unread(self) -> bool:
        """True when the file's text was not read (too large, or not text)."""
        return self.too_large or self.not_text is not None

    def to_json(self) -> dict:
        return {"offset": self.offset, "next_offset": self.end if self.end < self.total and not self.unread else None,
                "total_chars": None if self.unread else self.total, "too_large": self.too_large,
                "not_text": self.not_text, "note": self.note or None}


def cut_part(text: str, offset: int, limit: int) -> tuple[int, int]:
    """``(start, end)`` of the part of ``text`` from ``offset`` of at most
    ``limit`` characters, ending after the last newline inside it (a line
    longer than ``limit`` is cut at ``limit``)."""
    end = offset + limit
    if end >= len(text):
        return offset, len(text)
    newline = text.rfind("\n", offset, end)
    return offset, (newline + 1 if newline >= offset else end)


def _page_part(config: Config, data: dict, offset: int, limit: int) -> PagePart:
    """The part of the page file's text to answer with, read from the vault
    (the truth), or a note when the page is not a Markdown file, is too
    large to read (its size is taken before reading anything), or is not
    UTF-8 text.

    Raises:
        ToolError: the file cannot be read, or ``offset`` is past its end.
    """
    rel = data.get("path") or ""
    vault = Path(config.vault)
    path = (vault / rel).resolve()
    if not rel or not path.is_relative_to(vault) or not rel.endswith(".md"):
        note = f"({data.get('kind') or 'file'} {rel or data.get('id')}: not a Markdown page)"
        return PagePart(note, 0, 0, 0)
    limit_bytes = config.thresholds.max_file_bytes
    try:
        size = path.stat().st_size
        if size > limit_bytes:
            note = (f"({rel} is {size:,} bytes, over the {limit_bytes:,}-byte limit brainwork reads "
                    f"(max_file_bytes): not read; it is a dump rather than a page: open the file {path} "
                    "itself, or split it)")
            return PagePart("", 0, 0, size, note=note, too_large=True)
        data_bytes = path.read_bytes()
    except OSError as exc:
        raise ToolError(f"cannot read {rel}: {exc.strerror}") from None
    # As the indexer reads a page (brainwork.vault.parse): a NUL byte makes it
    # binary, bytes that are not UTF-8 leave it unparsed.
    if (nul := data_bytes.find(b"\x00")) >= 0:
        line = data_bytes.count(b"\n", 0, nul) + 1
        note = (f"({rel} is a binary file (NUL byte at offset {nul:,}, line {line:,}), not text: not parsed, "
                f"not sent; open the file {path} with a program that reads it)")
        return PagePart("", 0, 0, len(data_bytes), note=note, not_text="binary")
    try:
        text = data_bytes.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data_bytes.count(b"\n", 0, exc.start) + 1
        note = (f"({rel} is not UTF-8 (byte 0x{data_bytes[exc.start]:02x} at offset {exc.start:,}, line {line:,}): "
                f"not parsed, not sent; re-save the file {path} as UTF-8 to read it here)")
        return PagePart("", 0, 0, len(data_bytes), note=note, not_text="not UTF-8")
    if offset > len(text) or (offset == len(text) and offset > 0):
        raise ToolError(f"offset {offset} is past the end of {rel} ({len(text):,} characters)")
    start, end = cut_part(text, offset, limit)
    if start == 0 and end == len(text):
        return PagePart(text, 0, end, end)
    shown = f"{rel}: characters {start:,}-{end:,} of {len(text):,}"
    left = len(text) - end
    if left:
        lines = text.count("\n", end) + (not text.endswith("\n"))
        more = (f"{left:,} more {noun(left, 'character')} ({lines:,} {noun(lines, 'line')}) left out: "
                f"read_page with offset={end} reads on, or read the file {path}")
    else:
        more = "the end of the page"
    return PagePart(text[start:end], start, end, len(text), note=f"[{shown}; {more}]")


class BrainworkMCPServer(MCPServer):
    """An :class:`MCPServer` whose argument errors are one line, and that
    refuses arguments a tool does not take.

    The SDK reports arguments that fail the input schema with pydantic's
    multi-line text and prefixes a tool's own errors with "Error executing
    tool NAME:"; an agent reads the bare line better, and it is the line the
    command line prints."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context=None):
        # The SDK drops arguments the tool does not take; a misspelt field
        # (``sumary``) would then vanish from the record without a word.
        known = {t.name: set(t.input_schema.get("properties", {})) for t in await self.list_tools()}
        unknown = sorted(set(arguments or {}) - known.get(name, set(arguments or {})))
        if unknown:
            raise ToolError(f"unknown {noun(len(unknown), 'argument')} {', '.join(map(repr, unknown))}; {name} takes: "
                            f"{', '.join(sorted(known[name])) or 'none'}")
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise  # a bug: the SDK logs its traceback, the model gets a generic line
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                raise ToolError(_validation_line(cause)) from cause
            if isinstance(cause, ToolError):  # ours, wrapped as "Error executing tool NAME: ..."
                raise ToolError(str(cause)) from cause
            raise


def _validation_line(exc: ValidationError) -> str:
    missing = [str(e["loc"][0]) for e in exc.errors() if e["type"] == "missing"]
    if missing:
        return f"missing {noun(len(missing), 'argument')}: {', '.join(missing)}"
    parts = []
    for e in exc.errors()[:3]:
        loc = ".".join(str(p) for p in e["loc"])
        parts.append(f"{loc}: {e['msg']}")
    return "; ".join(parts)


def build_server(config: Config, call: Call, log_level: str = "WARNING") -> MCPServer:
    """The MCP server for ``config``'s vault (see the module doc); every
    tool but the captures runs its command through ``call``."""
    server = BrainworkMCPServer(
        SERVER_NAME, title="brainwork work memory", instructions=INSTRUCTIONS, version=__version__,
        log_level=log_level,  # type: ignore[arg-type]
    )
    writes = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
    reads = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    from brainwork.learn.capture import CAPTURE_TYPES

    for type_ in CAPTURE_TYPES:
        tool = _capture_tool(config, type_)
        server.add_tool(tool, name=tool.__name__, description=tool.__doc__, annotations=writes, structured_output=False)

    def recall(
        task: Annotated[str, Field(description="What you are about to do, in a sentence or two.")],
        budget: Annotated[int | None, Field(description="Size of the answer in characters (default: the vault's setting).",
                                        ge=RECALL_MIN_BUDGET_CHARS)] = None,
    ) -> CallToolResult:
        """Call recall before starting a task: describe the task and get back the most relevant prior
        tasks with what they taught (their corrections, the sources that held up, the right tools),
        compactly. The rules themselves come from doctrine."""
        argv = ["recall", "--json"] + (["--budget", str(budget)] if budget else []) + ["--", task]
        data = _json_command(call, config, argv)
        return _result(data.get("text", ""), data)

    def doctrine() -> CallToolResult:
        """The doctrine: the active rules learned from past corrections and approved by the user, as a
        compact Markdown block. Call it at the start of a session and follow it."""
        data = doctrine_data(call, config)
        return _result(data.get("text", ""), data)

    def search(
        query: Annotated[str, Field(description="Part of a page's title, alias or id; typos are fine.")],
        limit: Annotated[int, Field(description="At most this many pages.", ge=1, le=SEARCH_LIMIT_MAX)] = SEARCH_LIMIT,
        type: Annotated[str | None, Field(description="Only pages of this type (task, correction, rule, tool, source, ...).")] = None,
    ) -> CallToolResult:
        """Find pages by name (fuzzy over titles, aliases and ids), best first. Use it to find the id of
        a tool, source or task to link in a capture, or before read_page."""
        argv = ["search", "--json", "--limit", str(limit)] + (["--type", type] if type else []) + ["--", query]
        hits = _json_command(call, config, argv)
        text = "\n".join(f"{h['id']}  {h['title']}" + (f"  [{h['type']}]" if h.get("type") else "") for h in hits)
        return _result(text or f"no page matches {query!r}", {"query": query, "pages": hits})

    def read_page(
        page: Annotated[str, Field(description="The page: its id, path, file name, title or alias.")],
        offset: Annotated[int, Field(description="Start this many characters into the page's text (a longer "
                                                 "page's answer names the offset that reads on).", ge=0)] = 0,
        max_chars: Annotated[int, Field(description="At most this many characters of text, cut at a line's end.",
                                        ge=1, le=MCP_PAGE_MAX_CHARS)] = MCP_PAGE_MAX_CHARS,
    ) -> CallToolResult:
        """Read one page: its Markdown text (frontmatter and body) and its edges both ways (what it
        links to and what links to it; on a page with many, the first ones each way and how many
        more there are). A long page comes in parts: the answer says how much is left and the
        offset to read on from."""
        data = _json_command(call, config, ["show", "--json", "--", page])
        part = _page_part(config, data, offset, max_chars)
        data.pop("body", None)  # the whole body again, which ``text`` holds the asked-for part of
        data["text"] = None if part.unread else part.text
        data["part"] = part.to_json()
        data["edges"] = cap_edges(data.get("edges") or {})
        edges = _edges_text(data["edges"], str(data.get("id") or ""))
        content = [] if part.unread else [TextContent(type="text", text=part.text)]
        if part.note:
            content.append(TextContent(type="text", text=part.note))
        content.append(TextContent(type="text", text=f"Edges of {data.get('id')}:\n{edges}"))
        return CallToolResult(content=content, structured_content=data)

    for fn in (recall, doctrine, search, read_page):
        server.add_tool(fn, annotations=reads, structured_output=False)

    def _doctrine_text() -> str:
        try:
            return doctrine_data(call, config).get("text", "")
        except ToolError as exc:
            return f"(brainwork could not read the doctrine: {exc})\n"

    @server.resource(DOCTRINE_URI, name="doctrine", title="brainwork doctrine", mime_type="text/markdown",
                     description="The active rules approved by the user, as Markdown.")
    async def doctrine_resource() -> str:
        return await anyio.to_thread.run_sync(_doctrine_text)

    @server.prompt(name="doctrine", title="brainwork doctrine",
                   description="The active rules approved by the user, to follow in this session.")
    async def doctrine_prompt() -> str:
        text = await anyio.to_thread.run_sync(_doctrine_text)
        return ("These rules were learned from past corrections and approved by the user. "
                "Follow them in this session.\n\n" + text)

    return server


def serve_stdio(config: Config, call: Call) -> None:
    """Serve ``config``'s vault over stdin/stdout until the client closes
    the stream."""
    build_server(config, call).run("stdio")


def serve_http(config: Config, port: int, call: Call, host: str = "127.0.0.1") -> None:
    """Serve over streamable HTTP at ``http://HOST:PORT/mcp`` (loopback
    only: the server has no authentication) until interrupted."""
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise UserError(f"the MCP server listens on loopback only, not {host!r}")
    build_server(config, call).run("streamable-http", host=host, port=port)
