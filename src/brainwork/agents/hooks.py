"""Claude Code hooks (``brainwork hook EVENT``): load the doctrine into a
session and capture the session without the agent's help.

Each hook reads Claude Code's JSON on stdin (:class:`HookInput`) and answers
with what Claude Code reads for that event (:class:`HookOutput`). Invariants:
the context never exceeds :data:`brainwork.thresholds.HOOK_CONTEXT_MAX_CHARS`
(Claude Code swaps longer output for a preview the model cannot read), rules
kept most corrected first, then newest; a hook never slows or breaks a
session (a missing, unreadable or busy vault gives no output and exit 0);
and it never keeps the store (it asks the store's owner, else reads the rule
pages or opens the store for one call). What each event prints:
docs/learning-loop.md, "Agent hooks (Claude Code)".
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Callable, Iterator
from urllib.parse import urlsplit, urlunsplit

from brainwork import thresholds as th
from brainwork.config import Config
from brainwork.vocabulary import SESSION_KEY

EVENTS = ("session-start", "user-prompt-submit", "pre-compact", "stop")
#: Claude Code's name of each event (``hookEventName``).
EVENT_NAMES = {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit",
               "pre-compact": "PreCompact", "stop": "Stop"}

#: Words of an acknowledgement: a prompt made only of these (and at most
#: :data:`brainwork.thresholds.TRIVIAL_PROMPT_MAX_WORDS` of them) asks for
#: nothing new, so the prompt hook adds nothing.
ACK_WORDS = frozenset("""
ok okay k kk sure yes yeah yep yup y ya no nope n nah thanks thank thx ty you cheers please pls
continue go on ahead proceed next done great good nice cool perfect lgtm fine right alright agreed
do it that works sounds looks makes sense correct exactly got understood keep going carry yes!
""".split())

_WORD = re.compile(r"[a-z']+")


# -- input and output ------------------------------------------------------
@dataclass
class HookInput:
    """What Claude Code sends a hook on stdin. Missing or malformed fields
    are None/False; ``raw`` holds the whole object."""

    event: str | None = None
    session_id: str | None = None
    transcript_path: str | None = None
    cwd: str | None = None
    source: str | None = None
    prompt: str | None = None
    trigger: str | None = None
    stop_hook_active: bool = False
    raw: dict = field(default_factory=dict)
    #: Why stdin was not Claude Code's hook JSON (not JSON, not an object),
    #: None when it was or when there was no stdin at all.
    problem: str | None = None
    #: stdin held nothing but whitespace (``raw`` is then ``{}``, as for a
    #: ``{}`` Claude Code would never send either; the two are told apart
    #: only in what the hook says).
    blank: bool = False

    @classmethod
    def parse(cls, text: str) -> "HookInput":
        """From stdin's text; anything but a JSON object gives an empty input
        with ``problem`` saying what was wrong."""
        problem = None
        blank = not (text and text.strip())
        try:
            data = {} if blank else json.loads(text)
        except ValueError as exc:
            data, problem = {}, f"stdin is not JSON ({exc})"
        if not isinstance(data, dict):
            problem = f"stdin is a JSON {type(data).__name__}, not the hook's object"
            data = {}

        def s(key: str) -> str | None:
            v = data.get(key)
            return v if isinstance(v, str) else None

        return cls(s("hook_event_name"), s("session_id"), s("transcript_path"), s("cwd"), s("source"), s("prompt"),
                   s("trigger"), data.get("stop_hook_active") is True, data, problem, blank)


#: The fields an event cannot work without (Claude Code always sends them):
#: without a prompt there is nothing to recall for, without a transcript and
#: a session nothing to capture. The other events need nothing from stdin.
REQUIRED_FIELDS = {"user-prompt-submit": ("prompt",), "stop": ("session_id", "transcript_path")}
#: Events whose answer depends on nothing in the input: with a broken stdin
#: they still answer (the problem goes to stderr), since an agent session
#: started without its doctrine repeats what the rules were approved for.
ANSWER_ANYWAY = ("session-start",)


def input_problem(event: str, hook: HookInput, had_stdin: bool = True) -> str | None:
    """Why ``hook`` is not an input ``event`` can act on, as one line for
    stderr, or None. ``had_stdin`` False (a terminal: a person trying the
    hook by hand) lets an empty input through for the events that need no
    field; with a pipe, Claude Code sends an object, so an empty stdin is a
    problem too."""
    if hook.problem:
        return hook.problem
    if had_stdin and not hook.raw:
        if hook.blank:
            return "stdin is empty (Claude Code sends the hook's JSON object)"
        return "the hook's JSON object is empty (Claude Code sends session_id, hook_event_name and the event's fields)"
    missing = [k for k in REQUIRED_FIELDS.get(event, ()) if not isinstance(hook.raw.get(k), str)]
    if missing:
        return f"the hook's JSON has no {' or '.join(missing)}"
    return None


@dataclass
class HookOutput:
    """What a hook prints: ``context`` for the model (as ``additionalContext``,
    or as plain text when ``plain``), ``system_message`` for the person."""

    event: str
    context: str = ""
    system_message: str | None = None
    plain: bool = False

    def render(self) -> str:
        """The stdout text ("" to print nothing)."""
        if self.plain:
            return self.context
        out: dict = {}
        if self.context:
            out["hookSpecificOutput"] = {"hookEventName": EVENT_NAMES.get(self.event, self.event),
                                         "additionalContext": self.context}
        if self.system_message:
            out["systemMessage"] = self.system_message
        return json.dumps(out, ensure_ascii=False) if out else ""


# -- reaching the store ------------------------------------------------------
#: ``ask(argv)``: the owner's :class:`~brainwork.service.owner.Reply`, or None
#: when no owner runs (then the hook reads the vault itself).
Ask = Callable[[list[str]], object]
#: ``call(config, argv, stdin)``: :func:`brainwork.cli.served.call`.
Call = Callable[..., object]


def owner_ask(config: Config, timeout: float = th.HOOK_OWNER_TIMEOUT_SECONDS) -> Ask:
    """An :data:`Ask` through the store's owner socket, giving up after
    ``timeout`` seconds: an owner that is busy, hangs or died costs one
    hook's context, never the session. Such a failure is a failed reply
    (exit code 1), not None: the hook must not then run the command itself
    (that would go to the same owner again, with no time limit)."""
    from brainwork.service import owner

    def ask(argv: list[str]):
        try:
            return owner.ask(config, owner.Request(argv=list(argv)), timeout=timeout)
        except Exception as exc:  # noqa: BLE001 - a hook never fails the session
            return owner.Reply(stderr=f"brainwork hook: the store's owner did not answer: {exc}\n", exit_code=1)

    return ask


@dataclass
class RuleView:
    """One active rule as a hook shows it (from ``doctrine --format json``)."""

    id: str
    title: str
    rule: str
    why: str = ""
    apply: str = ""
    activated: str | None = None
    evidence: int = 0


#: The doctrine budget (tokens) a hook asks for: every active rule, uncut;
#: the hook cuts them itself, to its own room per event.
ALL_RULES_BUDGET = 1_000_000


def active_rules(config: Config, ask: Ask, cwd: str | None = None) -> list[RuleView]:
    """Every active rule (those in scope at the session's ``cwd``, where the
    doctrine knows rule scopes): from the owner (``doctrine --format json``)
    when one answers, else from the rule pages without the store."""
    import inspect

    from brainwork.learn.doctrine import doctrine_from_vault

    scoped = "cwd" in inspect.signature(doctrine_from_vault).parameters and bool(cwd)
    argv = ["doctrine", "--format", "json", "--budget", str(ALL_RULES_BUDGET)] + (["--cwd", cwd] if scoped else [])
    reply = ask(argv)
    if reply is not None and getattr(reply, "exit_code", 1) == 0:
        try:
            data = json.loads(reply.stdout)
            return [RuleView(str(r["id"]), str(r.get("title") or r["id"]), str(r.get("rule") or ""), str(r.get("why") or ""),
                             str(r.get("apply") or ""), r.get("activated"), int(r.get("evidence") or 0))
                    for r in data.get("rules", [])]
        except (ValueError, KeyError, TypeError, AttributeError):
            pass
    doc = doctrine_from_vault(config, ALL_RULES_BUDGET, cwd=cwd) if scoped else doctrine_from_vault(config, ALL_RULES_BUDGET)
    return [RuleView(r.id, r.title, r.rule, r.why, r.apply, r.activated, r.evidence) for r in doc.rules]


def by_priority(rules: list[RuleView]) -> list[RuleView]:
    """Most corrected first (evidence count), then newest (activation date),
    then id."""
    out = sorted(rules, key=lambda r: r.id)
    out.sort(key=lambda r: r.activated or "", reverse=True)
    out.sort(key=lambda r: r.evidence, reverse=True)
    return out


# -- the context -------------------------------------------------------------
def _one_line(text, limit: int | None = None) -> str:
    text = " ".join(str(text or "").split())
    return text if limit is None or len(text) <= limit else text[: limit - 1].rstrip() + "…"


def page_title(text, config: Config, prefix: str = "") -> str:
    """``prefix`` + the first non-blank line of ``text`` as a page title
    shorter than ``config.thresholds.diary_title_chars``, the prefix
    counted (a title that long is a ``diary-title`` finding): a longer line
    is cut after its last whole word and ends with "…" (a single word longer
    than the room is cut inside it). A date in the line is kept: the title
    stays the person's words, and the check still names it."""
    room = config.thresholds.diary_title_chars - len(prefix) - 1  # characters left for the line, "…" included
    line = _one_line(next((ln for ln in str(text or "").splitlines() if ln.strip()), ""))
    if len(line) <= room:
        return prefix + line
    cut = line[: room - 1]
    if line[room - 1] != " " and " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return prefix + cut.rstrip(" ,;:.-–—") + "…"


def doctrine_section(rules: list[RuleView], budget: int, *, compact: bool = False, note: str = "") -> str:
    """The doctrine within ``budget`` characters: rules by :func:`by_priority`
    as long as they fit (full blocks, or one line each when ``compact``),
    then, if any was left out, a line saying how many and where to read
    them. "" when there is no active rule."""
    from brainwork.learn.doctrine import HEADER, INTRO, render_block

    if not rules:
        return ""
    ordered = by_priority(rules)
    total = len(ordered)
    blocks = [f"- {r.id}: {_one_line(r.rule or r.title)}" if compact else render_block(r.id, r.title, r.rule, r.why, r.apply)
              for r in ordered]

    def head(kept: int) -> str:
        count = f"{total}" if kept == total else f"{kept} of {total}, most corrected first"
        return f"{HEADER} ({count}){note}\n{INTRO}\n\n"

    def tail(left: int) -> str:
        # ``budget``, not the hook's whole cap: a prompt's doctrine gets the
        # cap less recall's share, so the cap would overstate the room.
        return (f"\n({left} more active rule{'s' if left != 1 else ''} left out to stay within "
                f"{budget:,} characters: `brainwork rules --status active` lists them all, "
                f"`brainwork doctrine --budget N` prints more.)\n") if left else ""

    kept: list[str] = []
    used = 0
    for i, block in enumerate(blocks):
        left_after = total - i - 1
        need = len(head(i + 1)) + used + len(block) + 1 + len(tail(left_after))
        if need > budget:
            break
        kept.append(block)
        used += len(block) + 1
    text = head(len(kept)) + "".join(b + "\n" for b in kept) + tail(total - len(kept))
    if len(text) > budget:  # not even the header and the last line fit
        return tail(total).strip()[:budget] if len(tail(total).strip()) <= budget else ""
    return text


def recall_section(prompt: str, budget: int, ask: Ask, call: Callable[[list[str]], object] | None) -> str:
    """The prior work ``brainwork recall --json`` finds for ``prompt``
    (tasks and their corrections, held-up sources, right tools; the doctrine
    part is left out, the hook gave it already), within ``budget``
    characters. "" when there is nothing, or no room, or recall failed."""
    if budget < th.HOOK_RECALL_MIN_CHARS:
        return ""
    argv = ["recall", "--json", "--budget", str(min(20_000, max(1_000, budget * 3))), "--", prompt]
    reply = ask(argv)
    if reply is None and call is not None:
        reply = call(argv)
    if reply is None or getattr(reply, "exit_code", 1) != 0:
        return ""
    try:
        data = json.loads(reply.stdout)
        tasks = data.get("tasks") or []
        related = data.get("related") or []
        note = data.get("note") or ""
    except (ValueError, AttributeError):
        return ""
    if not tasks:
        return ""
    head = "## Prior work that bears on this prompt (brainwork recall)\n"
    # Part of the vault without vectors yet (ranked by words): the model
    # should weigh the scores knowing it.
    head += f"({_one_line(note, 200)})\n" if isinstance(note, str) and note else ""
    cut = "(cut to fit; `brainwork recall` gives the whole answer)\n"
    lines: list[str] = []
    for t in tasks:
        score = f" [{t['score']:.2f}]" if isinstance(t.get("score"), (int, float)) else ""
        lines.append(f"- {t.get('id')}{score}: {_one_line(t.get('text') or t.get('title'), 400)}")
        for r in related:
            if r.get("via") == t.get("id"):
                lines.append(f"  - {r.get('kind')} {r.get('id')}: {_one_line(r.get('text'), 400)}")
    text, size = head, len(head)
    for i, line in enumerate(lines):
        room = budget - (len(cut) if i < len(lines) - 1 else 0)
        if size + len(line) + 1 > room:
            return text + cut if len(text) > len(head) and size + len(cut) <= budget else (text if len(text) > len(head) else "")
        text += line + "\n"
        size += len(line) + 1
    return text


def is_trivial(prompt: str | None, max_words: int = th.TRIVIAL_PROMPT_MAX_WORDS) -> bool:
    """True for a prompt that asks for nothing new: empty, a slash command
    (``/clear``, ``/compact ...``), or at most ``max_words`` words that are
    all acknowledgements (:data:`ACK_WORDS`: "ok", "thanks!", "yes, go on",
    "continue"). Anything with a word outside them is not trivial."""
    text = (prompt or "").strip()
    if not text or text.startswith("/"):
        return True
    words = _WORD.findall(text.lower().replace("’", "'"))
    if not words:
        return True  # only emoji or punctuation ("👍", "?")
    return len(words) <= max_words and all(w in ACK_WORDS for w in words)


# -- the events ----------------------------------------------------------------
def session_start(config: Config, hook: HookInput, ask: Ask) -> HookOutput | None:
    """The doctrine for a new, resumed, cleared or compacted session."""
    note = ", re-loaded after compaction" if hook.source == "compact" else ""
    text = doctrine_section(active_rules(config, ask, hook.cwd), th.HOOK_CONTEXT_MAX_CHARS, note=note)
    return HookOutput("session-start", text) if text else None


def user_prompt_submit(config: Config, hook: HookInput, ask: Ask, call=None) -> HookOutput | None:
    """Doctrine (one line per rule) and recall for a prompt; None for a
    trivial one."""
    prompt = hook.prompt or ""
    if is_trivial(prompt):
        return None
    cap = th.HOOK_CONTEXT_MAX_CHARS
    doctrine = doctrine_section(active_rules(config, ask, hook.cwd), cap - th.HOOK_RECALL_CHARS, compact=True)
    recall = recall_section(prompt, cap - len(doctrine) - 1, ask, call)
    text = doctrine + ("\n" if doctrine and recall else "") + recall
    return HookOutput("user-prompt-submit", text) if text else None


def pre_compact(config: Config, hook: HookInput, ask: Ask) -> HookOutput | None:
    """Instructions for the compaction: keep the standing rules."""
    lead = ("Keep the standing rules below in the summary, word for word, with their page ids: "
            "they stay in force after the compaction.\n\n")
    text = doctrine_section(active_rules(config, ask, hook.cwd), th.HOOK_CONTEXT_MAX_CHARS - len(lead), compact=True)
    return HookOutput("pre-compact", lead + text, plain=True) if text else None


def stop(config: Config, hook: HookInput, today: date | None = None) -> HookOutput | None:
    """Capture the session (:func:`capture_session`); a message for the
    person when a correction was proposed, else nothing."""
    if not hook.transcript_path:
        return None
    from brainwork.agents.transcript import read_transcript

    try:
        session = read_transcript(hook.transcript_path)
    except OSError as exc:
        from brainwork.errors import UserError

        raise UserError(f"cannot read the transcript {hook.transcript_path}: {exc.strerror or exc}") from exc
    result = capture_session(config, session, hook.session_id or session.session_id, today=today)
    if result.proposed:
        n = len(result.proposed)
        return HookOutput("stop", system_message=(
            f"brainwork: {n} proposed correction{'s' if n != 1 else ''} from this session wait{'s' if n == 1 else ''} "
            f"in the inbox for you to confirm or dismiss ({', '.join(result.proposed)})."))
    return None


# -- capture -------------------------------------------------------------------
@dataclass
class SessionCapture:
    """What :func:`capture_session` did: ``task`` the page id (None when the
    session had no prompt), ``action`` ``created`` | ``updated`` |
    ``unchanged`` | ``kept`` (a person edited the page since the hook wrote
    it: left as it is) | ``skipped``; ``proposed`` the proposed corrections
    written now."""

    task: str | None
    action: str
    proposed: list[str] = field(default_factory=list)


def _state_file(config: Config, session_id: str) -> Path:
    return config.store / "hooks" / f"{hashlib.sha256(session_id.encode()).hexdigest()[:32]}.json"


def _read_state(config: Config, session_id: str) -> dict:
    try:
        data = json.loads(_state_file(config, session_id).read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _write_state(config: Config, session_id: str, state: dict) -> None:
    """The hook's memory of what it last wrote for a session (the bytes'
    SHA-256), in the store folder: with it a later stop can tell its own
    page from one a person edited."""
    import tempfile

    path = _state_file(config, session_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(state, fh)
    os.replace(tmp, path)


@contextlib.contextmanager
def session_lock(config: Config, session_id: str, wait: float = th.HOOK_SESSION_LOCK_WAIT_SECONDS) -> Iterator[None]:
    """One capture of ``session_id`` at a time, across processes: Claude Code
    may run two Stop hooks of one session at once (a stop and a subagent's,
    a retry), and each looks for the session's pages before it writes; the
    second must see the first's page, not write another. An advisory
    ``flock`` (filelock's UnixFileLock) on a file beside the hook's state in
    the store folder, released when the file is closed, also when the
    process dies; the file stays, so waiters share its inode.

    Raises:
        UserError: the other capture held it for ``wait`` seconds.
    """
    from filelock import FileLock, Timeout

    from brainwork.errors import UserError

    path = _state_file(config, session_id).with_suffix(".lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(path, mode=0o600, thread_local=False)
    try:
        lock.acquire(timeout=wait, poll_interval=0.02)
    except Timeout:
        raise UserError(f"another stop hook of session {session_id} is still capturing it "
                        f"after {wait:.0f} s; this one wrote nothing") from None
    try:
        yield
    finally:
        lock.release()


def pages_of_session(config: Config, folder: str, session_id: str) -> list[tuple[str, bytes]]:
    """``(vault-relative path, bytes)`` of the pages in ``folder`` whose
    frontmatter names ``session_id`` (``session: "..."``), by path. Reads
    only that folder, each file's first 4 KiB to decide."""
    pattern = re.compile(rb'^' + re.escape(SESSION_KEY.encode()) + rb':[ \t]*["\']?' + re.escape(session_id.encode())
                         + rb'["\']?[ \t]*\r?$', re.M)
    root = config.vault / folder
    out = []
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return []
    for e in entries:
        if not e.name.endswith(".md") or e.name.startswith(".") or not e.is_file(follow_symlinks=False):
            continue
        try:
            with open(e.path, "rb") as fh:
                head = fh.read(4096)
                if pattern.search(head):
                    out.append((f"{folder}/{e.name}", head + fh.read()))
        except OSError:
            continue
    return out


def _strip_query(url: str) -> str:
    """A URL without query and fragment (tokens often ride there)."""
    try:
        p = urlsplit(url)
        return urlunsplit((p.scheme, p.netloc, p.path, "", ""))
    except ValueError:
        return url


_SKIP_WORDS = frozenset({"sudo", "env", "time", "nohup", "exec", "cd", "then", "do", "if", "xargs"})


def _command_words(commands: list[str]) -> list[str]:
    """The programs the Bash commands ran (first word of each pipeline
    part, past ``sudo``/``env``/``VAR=x``)."""
    out = []
    for command in commands:
        for part in re.split(r"\|\||&&|[|;\n]", command):
            for word in part.split():
                if "=" in word or word in _SKIP_WORDS:
                    continue
                out.append(word.rsplit("/", 1)[-1])
                break
    return list(dict.fromkeys(out))


def _links(config: Config, session) -> tuple[list[str], list[str]]:
    """``(used, cited)``: the vault's tool pages named like a program the
    session ran (``tools/certbot`` for ``certbot renew``), and its source
    pages whose ``ref`` a fetched URL starts with. Only pages that exist."""
    from brainwork.vault.write import slugify

    used = []
    tools = config.vault / "tools"
    for word in _command_words(session.commands()):
        slug = slugify(word)
        if slug and (tools / f"{slug}.md").is_file():
            used.append(f"tools/{slug}")
    cited = []
    fetched = session.sources()
    if fetched and (config.vault / "sources").is_dir():
        from brainwork.vault.parse import parse_file

        for e in sorted(os.scandir(config.vault / "sources"), key=lambda e: e.name):
            if not e.name.endswith(".md") or not e.is_file(follow_symlinks=False):
                continue
            ref = parse_file(config.vault, f"sources/{e.name}").fields.get("ref")
            if isinstance(ref, str) and ref.strip() and any(u.startswith(ref.strip()) for u in fetched):
                cited.append(f"sources/{e.name[:-3]}")
    return list(dict.fromkeys(used)), cited


def _bullets(items: list[str], limit: int = 30) -> str:
    shown = [f"- {_one_line(i, 300)}" for i in items[:limit]]
    if len(items) > limit:
        shown.append(f"- … and {len(items) - limit} more")
    return "\n".join(shown)


def task_record(config: Config, session, session_id: str) -> dict:
    """The task record of a session, as :func:`brainwork.learn.capture.plan`
    takes it: ``request`` the first prompt, ``summary`` the agent's last
    reply, ``session``, ``used``/``cited`` links to existing tool and source
    pages, and a body listing the tools used, the sources fetched and the
    files written. Every credential in them is replaced by ``[redacted
    <kind>]`` (:mod:`brainwork.agents.redact`) before the title and the
    one-line fields are cut from them."""
    from brainwork.agents.redact import redact_texts

    calls = session.calls
    counts: dict[str, int] = {}
    for c in calls:
        counts[c.name] = counts.get(c.name, 0) + 1
    sources = list(dict.fromkeys(_strip_query(u) for u in session.sources()))
    files = session.files_written()
    # one scan for every text, before any is cut to a line or a title
    request, reply, *rest = redact_texts([session.request or "", session.work_reply or session.last_reply or "",
                                          *sources, *files])
    sources, files = rest[: len(sources)], rest[len(sources):]
    used, cited = _links(config, session)
    parts = [f"Captured from Claude Code session `{session_id}` by `brainwork hook stop`; "
             f"each later stop of the session updates this page."]
    if counts:
        parts.append("## Tools used\n" + ", ".join(f"{n} ({k})" for n, k in counts.items()))
    if sources:
        parts.append("## Sources fetched\n" + _bullets(sources))
    if files:
        parts.append("## Files written\n" + _bullets(files))
    data = {
        "title": page_title(request, config),
        "request": _one_line(request, 2000),
        "summary": _one_line(reply, 600),
        SESSION_KEY: session_id,
        "body": "\n\n".join(parts),
    }
    if used:
        data["used"] = used
    if cited:
        data["cited"] = cited
    return data


def _field(text: bytes, key: str) -> str | None:
    m = re.search(rb"^" + re.escape(key.encode()) + rb":[ \t]*[\"']?([^\"'\r\n]*)", text, re.M)
    return m.group(1).decode("utf-8", "replace").strip() if m else None


def _has_model_export(models: Path) -> bool:
    """Whether ``models`` holds any model folder with a file in it: a cheap
    test, without the embedding modules, that an export may be there."""
    try:
        return any(e.is_dir() and any(os.scandir(e.path)) for e in os.scandir(models))
    except OSError:
        return False


def _served_onnx_embedder(config: Config):
    """The sentence model as ONNX Runtime serves it from this store's export
    (``STORE/models/``, written by the first process that loaded the model
    for this vault: ~0.2 s to load), or None when there is no export, the
    lexical fallback is forced, or it cannot load. Never loads torch nor
    exports: a stop hook is not the place for a 4-8 s first load."""
    if os.environ.get("BRAINWORK_EMBEDDER", "").strip().lower() in ("lexical", "torch"):
        return None
    # No export under STORE/models (onnx_embed.MODELS_DIR, spelled out here:
    # importing onnx_embed and embed costs numpy, the store and the link
    # parser, ~0.4 s CPU, for a stop that would not embed anyway).
    if not _has_model_export(config.store / "models"):
        return None
    from brainwork.learn import onnx_embed
    from brainwork.learn.embed import MAX_SEQ_TOKENS, OnnxEmbedder, model_folder

    folder, name, problem = model_folder(config)
    if folder is None or problem or onnx_embed.unsupported(folder):
        return None
    path = onnx_embed.cache_path(config.store, folder, name)
    if not path.is_file():
        return None
    encoder = onnx_embed.OnnxEncoder(path, folder)
    seq = min(encoder.max_seq, MAX_SEQ_TOKENS)
    return OnnxEmbedder(encoder, f"{name}@{seq}", path) if seq == encoder.max_seq else None


def pushback_encoder(config: Config) -> Callable[[list[str]], object]:
    """An encoder for :func:`brainwork.agents.transcript.proposals`' embedding
    margin that loads the model only when first called (a session with no
    candidate turn costs nothing) and raises when the model is not there, so
    that the push-back rules decide alone (``embedding_margins`` returns None)."""
    loaded: list = []

    def encode(texts: list[str]):
        if not loaded:
            try:
                loaded.append(_served_onnx_embedder(config))
            except Exception:  # a broken export or runtime: the rules decide
                loaded.append(None)
        if loaded[0] is None:
            raise LookupError("no ONNX export of the sentence model in this store")
        return loaded[0].encode(texts)

    return encode


def capture_session(config: Config, session, session_id: str | None, today: date | None = None) -> SessionCapture:
    """Write the session's task record, or update the one an earlier stop
    wrote, and propose a correction for each user turn that pushed back
    (:func:`brainwork.agents.transcript.proposals`) not proposed before.

    The task page is found again by its ``session:`` field. It is rewritten
    (store-free, atomically, recorded for undo: :func:`brainwork.ops.journal.replace_file`)
    only while it holds exactly the bytes this hook last wrote; once a
    person has edited it, it is left alone (``kept``). Proposed corrections
    carry ``session:`` and ``turn:`` so a turn is proposed once, and
    ``corrects:`` the task. Captures of one session run one at a time
    (:func:`session_lock`).

    Raises:
        UserError: the vault cannot be written, or another capture of the
            session held the lock too long.
    """
    if not session_id or not session.request:
        return SessionCapture(None, "skipped")
    with session_lock(config, session_id):
        return _capture_locked(config, session, session_id, today)


def _capture_locked(config: Config, session, session_id: str, today: date | None) -> SessionCapture:
    """:func:`capture_session` while it holds the session's lock."""
    from brainwork.agents.redact import redact_texts
    from brainwork.agents.transcript import proposals
    from brainwork.learn.capture import PROPOSAL_TITLE_PREFIX, VaultNames, capture, plan, propose_correction
    from brainwork.ops.gitcommit import commit_files
    from brainwork.ops.journal import replace_file
    from brainwork.vault.resolve import page_id

    data = task_record(config, session, session_id)
    existing = pages_of_session(config, "tasks", session_id)
    state = _read_state(config, session_id)
    if not existing:
        result = capture(config, None, "task", data, today=today)
        rel, action = result.path, "created"
        written = (config.vault / rel).read_bytes()
        _write_state(config, session_id, {"path": rel, "sha256": hashlib.sha256(written).hexdigest()})
    else:
        rel, current = existing[0]
        action = "kept"
        if state.get("path") == rel and state.get("sha256") == hashlib.sha256(current).hexdigest():
            data["created"] = _field(current, "created") or (today or date.today()).isoformat()
            _rel, text, _links_, _title = plan(config, VaultNames(config).find, "task", data, today)
            new = text.encode("utf-8")
            if new == current:
                action = "unchanged"
            elif replace_file(config, rel, current, new, kind="capture", summary=f"capture task {page_id(rel)} (session update)",
                              details={"page": page_id(rel), "type": "task", "session": session_id}):
                action = "updated"
                _write_state(config, session_id, {"path": rel, "sha256": hashlib.sha256(new).hexdigest()})
                commit_files(config, f"brainwork: capture task {rel} (session update)", {rel: new})
    task = page_id(rel)
    done_turns = {_field(text, "turn") for _r, text in pages_of_session(config, "corrections", session_id)}
    proposed = []
    names = None
    skip = {int(t) for t in done_turns if t and t.isdigit()}
    for turn in proposals(session, pushback_encoder(config), skip=skip):
        names = names or VaultNames(config)
        said, reply = redact_texts([turn.text or "", turn.reply or ""])  # as the task record's texts
        quote = _one_line(said, th.PROPOSAL_QUOTE_CHARS)
        did = _one_line(reply, 300)
        tools = ", ".join(dict.fromkeys(c.name for c in turn.tools))
        body = (f"Proposed by `brainwork hook stop` from session `{session_id}` (turn {turn.index}): the person pushed back "
                f"on what the agent had just done. Confirm it in the inbox (what was wrong, the correct behaviour, why) "
                f"or dismiss it.\n\n> {quote}\n\n"
                + (f"What the agent had just done: {did}" if did else "What the agent had just done: (no reply)")
                + (f" (tools: {tools})" if tools else "") + "\n")
        result = propose_correction(config, {
            "title": page_title(said, config, PROPOSAL_TITLE_PREFIX),
            "wrong": quote, "corrects": task, SESSION_KEY: session_id, "turn": str(turn.index), "body": body,
        }, today=today, names=names)
        proposed.append(result.id)
    return SessionCapture(task, action, proposed)
