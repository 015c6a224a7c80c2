"""``brainwork hook EVENT``: Claude Code hooks (:mod:`brainwork.agents.hooks`),
and ``brainwork hook install`` to add them to Claude Code's settings.

The event commands read Claude Code's JSON on stdin and print its hook
output. They never fail a session: whatever goes wrong (no vault, an
unreadable one, a busy store, a bug) they exit 0, print nothing on stdout
and at most one line on stderr, which Claude Code shows only in its debug
output. They are not sent to the store's owner as a whole (they reach it
for the doctrine and recall only), so they read the hook's stdin here.
"""

from __future__ import annotations

import os
import sys

import click

from brainwork.cli.common import echo

EVENT_COMMANDS = ("session-start", "user-prompt-submit", "pre-compact", "stop")


@click.group("hook")
def hook_cmd() -> None:
    """Claude Code hooks: load the doctrine, recall for a prompt, capture the session.

    `brainwork hook install` adds them to Claude Code's settings.
    """


_STORE_HELP = "Store folder (default: VAULT/.brainwork)."


def _vault(vault: str | None) -> str | None:
    ctx = click.get_current_context()
    root = ctx.find_root().obj or {}
    return vault or root.get("vault") or os.environ.get("BRAINWORK_VAULT") or None


def _store(store: str | None) -> str | None:
    """The store given to the command, else before it (``brainwork --store S
    hook ...``), as for every command (:func:`brainwork.cli.common.vault_options`)."""
    root = click.get_current_context().find_root().obj or {}
    return store or root.get("store") or None


def _run_event(event: str, vault: str | None, store: str | None = None) -> None:
    """Run one event; see the module doc for why nothing escapes."""
    from brainwork.agents.hooks import ANSWER_ANYWAY, HookInput, input_problem

    piped = not sys.stdin.isatty()
    try:
        text = sys.stdin.read() if piped else ""
        hook = HookInput.parse(text)
    except (OSError, UnicodeDecodeError) as exc:
        hook = HookInput(problem=f"stdin unreadable ({exc.__class__.__name__}: {exc})")
    path = _vault(vault)
    if not path:
        echo("brainwork hook: no vault (--vault or $BRAINWORK_VAULT); nothing to do", err=True)
        return
    problem = input_problem(event, hook, had_stdin=piped)
    if problem and event in ANSWER_ANYWAY:
        echo(f"brainwork hook {event}: {problem}; answered as for an empty input", err=True)
        hook = HookInput()
    elif problem:
        # Nothing on stdout: context built from a broken input could be wrong,
        # and Claude Code would hand it to the model unannounced.
        echo(f"brainwork hook {event}: {problem}; nothing done", err=True)
        return
    try:
        out = _event_output(event, path, _store(store), hook)
    except Exception as exc:  # noqa: BLE001 - a hook never breaks the session
        from brainwork.errors import UserError

        what = str(exc) if isinstance(exc, UserError) else f"{exc.__class__.__name__}: {exc}"
        echo(f"brainwork hook {event}: {' '.join(what.split())}", err=True)
        return
    if out:
        sys.stdout.write(out)
        sys.stdout.flush()


def _event_output(event: str, vault: str, store: str | None, hook) -> str:
    from brainwork import thresholds as th
    from brainwork.agents import hooks
    from brainwork.config import load_config

    config = load_config(vault, store)
    ask = hooks.owner_ask(config)
    if event == "session-start":
        out = hooks.session_start(config, hook, ask)
    elif event == "user-prompt-submit":
        from brainwork.cli.served import call
        from brainwork.service import embedding

        # This process exits as soon as it has printed: a recall run here
        # (no owner alive) must not leave an embedding pass behind.
        embedding.one_shot()
        os.environ.setdefault("BRAINWORK_STORE_WAIT", str(th.HOOK_STORE_WAIT_SECONDS))
        out = hooks.user_prompt_submit(config, hook, ask, call=lambda argv: call(config, argv))
    elif event == "pre-compact":
        out = hooks.pre_compact(config, hook, ask)
    else:
        out = hooks.stop(config, hook)
    return out.render() if out is not None else ""


def _event_command(event: str) -> click.Command:
    @click.command(event)
    @click.option("--vault", type=click.Path(file_okay=False), default=None,
                  help="Vault folder (default: $BRAINWORK_VAULT; without one the hook does nothing).")
    @click.option("--store", type=click.Path(file_okay=False), default=None, help=_STORE_HELP)
    def command(vault: str | None, store: str | None) -> None:
        _run_event(event, vault, store)

    command.help = {
        "session-start": "SessionStart: the doctrine (within 10,000 characters), also after a compaction.",
        "user-prompt-submit": "UserPromptSubmit: doctrine and recall for the prompt; silent for trivial prompts.",
        "pre-compact": "PreCompact: tell the compaction to keep the standing rules.",
        "stop": "Stop: write or update the session's task record; propose corrections from push-back.",
    }[event]
    return command


for _event in EVENT_COMMANDS:
    hook_cmd.add_command(_event_command(_event))


@hook_cmd.command("install")
@click.option("--scope", type=click.Choice(["user", "project"]), default="project", show_default=True,
              help="user: ~/.claude/settings.json; project: .claude/settings.json in the current folder.")
@click.option("--yes", is_flag=True, help="Write without asking.")
@click.option("--vault", type=click.Path(file_okay=False), default=None, help="Vault folder (default: $BRAINWORK_VAULT).")
@click.option("--store", type=click.Path(file_okay=False), default=None,
              help="Store folder the hooks use (default: VAULT/.brainwork); written into each hook command.")
def install_cmd(scope: str, yes: bool, vault: str | None, store: str | None) -> None:
    """Add brainwork's hooks to Claude Code's settings: show the change, then merge it.

    Other hooks and settings are kept; running it again changes nothing.
    A store other than the vault's own (--store, here or before the
    command) is written into each hook command, so the hooks use it too.
    """
    from brainwork.agents.claude_config import apply_install, command_not_found
    from brainwork.agents.hook_install import plan_hooks
    from brainwork.cli.common import confirm
    from brainwork.config import load_config
    from brainwork.errors import UserError

    path = _vault(vault)
    if not path:
        raise UserError("which vault? give --vault or set $BRAINWORK_VAULT")
    config = load_config(path, _store(store))
    plan = plan_hooks(config, scope)
    if not plan.changed:
        echo(f"{plan.path}: brainwork's hooks are already installed; nothing to change")
        return
    echo(plan.diff(), nl=False)
    if not yes:
        if not sys.stdin.isatty():
            raise UserError("not a terminal: give --yes to write the change shown above")
        if not confirm(f"Write {plan.path}?"):
            echo("nothing written")
            return
    plan.path.parent.mkdir(parents=True, exist_ok=True)
    apply_install(plan)
    echo(f"wrote {plan.path}")
    if (missing := command_not_found()) is not None:
        echo(f"brainwork: warning: {missing}", err=True)


COMMANDS = [hook_cmd]
