"""Commands of the learning loop (docs/learning-loop.md): ``capture``, ``embed``, ``recall``
(the learning step's are in :mod:`brainwork.cli.consolidation`).

Each command is a thin shell over :mod:`brainwork.learn`; the same functions
serve the workbench.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Iterator

import click

from brainwork.cli.common import echo, echo_json, open_store, progress_bar, served, synced, vault_options
from brainwork.config import Config
from brainwork.errors import UserError
from brainwork.wording import counted
from brainwork.service.capture_options import EDGE_HELP, EDGE_OPTIONS, FIELD_HELP
from brainwork.thresholds import RECALL_MIN_BUDGET_CHARS
from brainwork.vocabulary import TYPE_FIELDS

# -- capture ---------------------------------------------------------------------


def _read_json(source: str) -> dict:
    name = "stdin" if source == "-" else source
    try:
        # Bytes, decoded here: a record that is not UTF-8 is refused with
        # its line and column, not written with replacement characters.
        if source == "-":
            raw = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode("utf-8", "surrogateescape")
        else:
            with open(source, "rb") as fh:
                raw = fh.read()
    except OSError as exc:
        raise UserError(f"cannot read {source}: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise UserError(f"{name}:{line}:{column}: not UTF-8 (byte 0x{raw[exc.start]:02x}); nothing was written") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UserError(f"{name}: not valid JSON: {exc}") from None
    # A "\ud800" escape decodes to a lone surrogate, which no page can hold;
    # checked here (capture checks every field too) to name the file and to
    # cover the keys.
    from brainwork.learn.capture import text_problem

    for key, value in _strings(data):
        problem = text_problem(value)
        if problem:
            raise UserError(f"{name}: {key!r} is not UTF-8 text ({problem}, from a \\u escape); nothing was written")
    if not isinstance(data, dict):
        raise UserError("--json must hold one JSON object")
    return data


def _strings(data, key: str = "") -> Iterator[tuple[str, str]]:
    """Every text in a JSON value with the key it is under (keys included)."""
    if isinstance(data, str):
        yield key, data
    elif isinstance(data, dict):
        for k, v in data.items():
            yield k, k
            yield from _strings(v, k)
    elif isinstance(data, list):
        for v in data:
            yield from _strings(v, key)


def _capture_command(type_: str) -> click.Command:
    def run(config: Config, **opts) -> None:
        from brainwork.learn.capture import capture

        data: dict = _read_json(opts.pop("json_in")) if opts.get("json_in") else {}
        opts.pop("json_in", None)
        show_json = opts.pop("as_json")
        for opt, key in EDGE_OPTIONS[type_].items():
            values = list(opts.pop(opt.replace("-", "_")) or ())
            if values:
                data[key] = _merge(data.get(key), values)
        related = list(opts.pop("related") or ())
        if related:
            data["related"] = _merge(data.get("related"), related)
        for item in opts.pop("link") or ():
            key, sep, page = item.partition("=")
            if not sep or not key.strip() or not page.strip():
                raise UserError(f"--link takes KEY=PAGE (e.g. cited=sources/x), got {item!r}")
            data[key.strip()] = _merge(data.get(key.strip()), [page.strip()])
        tags = [t for chunk in (opts.pop("tags") or ()) for t in chunk.split(",") if t.strip()]
        if tags:
            data["tags"] = _merge(data.get("tags"), tags)
        aliases = list(opts.pop("alias") or ())
        if aliases:
            data["aliases"] = _merge(data.get("aliases"), aliases)
        allow_secret = opts.pop("allow_secret")
        for key, value in opts.items():
            if value is not None:
                data[key] = value
        result = capture(config, None, type_, data, allow_secret=allow_secret)
        for found in result.secrets:
            echo(f"brainwork: warning: {result.path} holds what looks like a secret ({found})", err=True)
        if show_json:
            echo_json(result.to_json())
        else:
            echo(result.id)

    params: list[click.Parameter] = [
        click.Option(["--title"], help="Page title (default: taken from the first key field)."),
        click.Option(["--tags"], multiple=True, help="Tags, comma-separated (repeatable)."),
        click.Option(["--alias"], multiple=True, help="An alias (repeatable)."),
        click.Option(["--body"], help="Markdown body below the frontmatter."),
        click.Option(["--created"], help="Creation date YYYY-MM-DD (default: today)."),
    ]
    for key, allowed in TYPE_FIELDS[type_].items():
        if key == "status":
            continue  # corrections start open; rules are not captured
        opt = "--" + key.replace("_", "-")
        if key == "right_choice":
            params.append(click.Option([opt, key], type=click.Choice(["true", "false"]), help=FIELD_HELP.get(key)))
        elif allowed is not None:
            params.append(click.Option([opt, key], type=click.Choice(list(allowed)), help=FIELD_HELP.get(key)))
        else:
            params.append(click.Option([opt, key], help=FIELD_HELP.get(key)))
    for opt in EDGE_OPTIONS[type_]:
        params.append(click.Option([f"--{opt}", opt.replace("-", "_")], multiple=True, metavar="PAGE",
                                   help=f"{EDGE_HELP[opt]} (repeatable; id, path, title or alias)."))
    params += [
        click.Option(["--related"], multiple=True, metavar="PAGE", help="Any other related page (repeatable)."),
        click.Option(["--link"], multiple=True, metavar="KEY=PAGE",
                     help="Any typed edge, e.g. --link cited=sources/x (repeatable)."),
        click.Option(["--json", "json_in"], metavar="FILE", help="Read the record as one JSON object from FILE ('-': stdin); options override its keys."),
        click.Option(["--print-json", "as_json"], is_flag=True, help="Print the result as JSON instead of the page id."),
        click.Option(["--allow-secret"], is_flag=True,
                     help="Write the record even if it holds what looks like a key, token or password (warned on stderr)."),
    ]
    required = " (needs --wrong, --correct and --why)" if type_ == "correction" else ""
    cmd = click.Command(
        type_,
        callback=vault_options(run),
        params=params,
        help=f"Write a new {type_} page{required} and link it; prints its id. Never waits for the store.",
    )
    # vault_options adds --vault/--store params through click decorators on the callback.
    cmd.params.extend(getattr(cmd.callback, "__click_params__", []))
    return cmd


def _merge(existing, values: list[str]) -> list[str]:
    if existing is None or existing == "":
        return list(values)
    base = existing if isinstance(existing, list) else [existing]
    return [*base, *values]


@click.group("capture", invoke_without_command=True)
@click.pass_context
def capture_group(ctx: click.Context) -> None:
    """Record a task, correction, source, tool, decision or artifact as a new page.

    \b
    Examples:
      brainwork capture task --request "Renew the api cert" --outcome success --used tools/certbot
      brainwork capture correction --task tasks/2026-09-02-renew-cert --wrong W --correct C --why Y
      echo '{"wrong": "...", "correct": "...", "why": "...", "task": "..."}' | brainwork capture correction --json -
    """
    if ctx.invoked_subcommand is None:  # one line, not the usage block
        from brainwork.learn.capture import CAPTURE_TYPES

        raise UserError(f"capture needs a type: {', '.join(CAPTURE_TYPES)} (brainwork capture TYPE --help)")


from brainwork.learn.capture import CAPTURE_TYPES  # noqa: E402  (light: no model, no kuzu at import)

for _t in CAPTURE_TYPES:
    capture_group.add_command(_capture_command(_t))


# -- embed -----------------------------------------------------------------------
@click.command("embed")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@vault_options
def embed_cmd(config: Config, as_json: bool) -> None:
    """Embed the pages whose text changed since the last pass (cached by content hash)."""
    from brainwork.learn.embed import embed_pages, get_embedder
    from brainwork.store import vectors as vstore

    t0 = time.perf_counter()
    with open_store(config) as store:
        synced(config, store)
        emb = get_embedder(config)
        loaded = time.perf_counter() - t0
        with progress_bar("embedding", not as_json) as progress:
            n = embed_pages(config, store, progress=progress, embedder=emb)
        total = vstore.count(store, emb.name)
        indexed = vstore.has_index(store)
    seconds = time.perf_counter() - t0
    data = {"embedded": n, "cached": total - n, "total": total, "model": emb.name, "lexical": emb.lexical,
            "reason": emb.reason, "hnsw_index": indexed, "seconds": round(seconds, 2), "load_seconds": round(loaded, 2)}
    if as_json:
        echo_json(data)
        return
    if emb.lexical:
        echo(f"brainwork: warning: {emb.status}", err=True)
    echo(f"embedded {counted(n, 'page')} ({total - n} cached, {total} total) with {emb.name} in {seconds:.1f} s")


# -- recall ----------------------------------------------------------------------
@click.command("recall")
@click.argument("description", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON (tasks with rank, id, score and its terms).")
@click.option("--budget", type=click.IntRange(RECALL_MIN_BUDGET_CHARS), default=None,
              help="Hard cap on the answer's size in characters (default: thresholds.recall_budget_chars).")
@click.option("--index", "with_index", is_flag=True, help="Add a compact index of page titles (nearest the task first).")
@click.option("--no-record", is_flag=True, help="Do not log the served pages as recall hits.")
@vault_options
def recall_cmd(config: Config, description: tuple[str, ...], as_json: bool, budget: int | None, with_index: bool,
               no_record: bool) -> None:
    """The prior work most relevant to DESCRIPTION and what it taught, compactly.

    At most thresholds.recall_tasks (3) earlier tasks that reach
    thresholds.recall_min_similarity, best first, each with its request,
    its lessons (wrong -> correct (why)), the sources that held up and the
    right tools; --index adds page titles. The doctrine is not repeated
    (`brainwork doctrine`). The answer never exceeds --budget characters;
    the pages it served are logged as recall hits (not with --no-record).

    In its own process it first embeds the pages changed since the last
    pass (the first run on a large vault takes a while; later runs embed
    only what changed). Run by the store's owner (the workbench, `brainwork
    serve`) or by the MCP server or a hook, it embeds at most 32 pages
    itself: with more waiting it answers at once, ranks the tasks without
    a vector by their words and says so in its second line; the owner
    embeds the rest in the background, the MCP server or a hook without an
    owner leaves them to `brainwork embed`.
    """
    from brainwork.learn.embed import embed_pages, get_embedder
    from brainwork.learn.recall import recall

    text = " ".join(description)
    here = served()
    if here is not None:
        # In the store's owner: the model is warm; a few changed pages are
        # embedded first, a bigger gap is left to the owner's pass (started
        # if none runs) and ranked by words meanwhile (service.embedding).
        from brainwork.service import embedding

        emb = get_embedder(config)
        with open_store(config) as store:
            synced(config, store)
            gap = embedding.recall_gap(config, store, emb)
        if gap.inline:
            with open_store(config) as store:
                embed_pages(config, store, ids=gap.inline, embedder=emb)
        if gap.start:
            embedding.start_pass(config, here.handle, emb)
        with open_store(config) as store:
            answer = recall(config, store, text, budget, embedder=emb, record=not no_record, index=with_index,
                            coverage=gap.coverage)
    else:
        with open_store(config) as store:
            synced(config, store)
            emb = get_embedder(config)
            with progress_bar("embedding", not as_json) as progress:
                embed_pages(config, store, progress=progress, embedder=emb)
            answer = recall(config, store, text, budget, embedder=emb, record=not no_record, index=with_index)
    if emb.lexical:
        echo(f"brainwork: warning: {emb.status}", err=True)
    if as_json:
        echo_json(answer.to_json())
    else:
        echo(answer.text, nl=False)


COMMANDS = [capture_group, embed_cmd, recall_cmd]
