"""Add brainwork's hooks to Claude Code's settings (``brainwork hook install``).

Claude Code reads hooks from ``settings.json``: ``~/.claude/settings.json``
(user scope) or ``.claude/settings.json`` in a project, under ``"hooks":
{"EventName": [{"matcher": "...", "hooks": [{"type": "command", "command":
"..."}]}]}``. brainwork adds one matcher group per event:

- ``SessionStart`` (matcher ``startup|resume|clear|compact``): ``brainwork hook session-start``
- ``UserPromptSubmit``: ``brainwork hook user-prompt-submit``
- ``PreCompact``: ``brainwork hook pre-compact``
- ``Stop``: ``brainwork hook stop``

each ``{"type": "command", "command": "brainwork hook EVENT --vault VAULT"}``,
with ``--store STORE`` after it when the store is not the vault's own
``VAULT/.brainwork`` (as the MCP entry, :func:`brainwork.agents.claude_config.server_entry`):
a hook without it would make a second store inside the vault.
The merge keeps every other key, event and hook as it is; a group already
running a ``brainwork hook EVENT`` command is brainwork's and is replaced
in place (so a changed vault path updates it), and a second install
changes nothing. The change is computed first (:func:`plan_hooks`) so the
caller shows its diff; it is written by
:func:`brainwork.agents.claude_config.apply_install` (atomic, only if the
file did not change meanwhile).
"""

from __future__ import annotations

import copy
import json
import re
import shlex
from pathlib import Path

from brainwork.agents.claude_config import InstallPlan, read_json_object
from brainwork.config import STORE_DIR, Config
from brainwork.errors import UserError

SCOPES = ("project", "user")
#: Claude Code's event name -> (brainwork's event command, matcher or None).
HOOK_EVENTS: dict[str, tuple[str, str | None]] = {
    "SessionStart": ("session-start", "startup|resume|clear|compact"),
    "UserPromptSubmit": ("user-prompt-submit", None),
    "PreCompact": ("pre-compact", None),
    "Stop": ("stop", None),
}
_OURS = re.compile(r"(?:^|[\s/])brainwork\s+hook\s+(session-start|user-prompt-submit|pre-compact|stop)\b")


def settings_path(scope: str, cwd: Path | None = None, home: Path | None = None) -> Path:
    """The settings file of ``scope``."""
    if scope == "project":
        return (cwd or Path.cwd()) / ".claude" / "settings.json"
    if scope == "user":
        return (home or Path.home()) / ".claude" / "settings.json"
    raise UserError(f"unknown scope {scope!r}; scopes: {', '.join(SCOPES)}")


def hook_command(config: Config, event: str) -> str:
    """``brainwork hook EVENT --vault VAULT``, and ``--store STORE`` when the
    store is not ``VAULT/.brainwork`` (paths shell-quoted)."""
    command = f"brainwork hook {event} --vault {shlex.quote(str(config.vault))}"
    if Path(config.store) != Path(config.vault) / STORE_DIR:
        command += f" --store {shlex.quote(str(config.store))}"
    return command


def group(config: Config, name: str) -> dict:
    """The matcher group brainwork adds for Claude Code event ``name``."""
    event, matcher = HOOK_EVENTS[name]
    g: dict = {}
    if matcher:
        g["matcher"] = matcher
    g["hooks"] = [{"type": "command", "command": hook_command(config, event)}]
    return g


def _is_ours(g, event: str) -> bool:
    if not isinstance(g, dict) or not isinstance(g.get("hooks"), list):
        return False
    return any(isinstance(h, dict) and isinstance(h.get("command"), str)
               and (m := _OURS.search(h["command"])) is not None and m.group(1) == event for h in g["hooks"])


def merge(settings: dict, config: Config) -> dict:
    """``settings`` with brainwork's hooks merged in (a new dict; the input
    is not changed).

    Raises:
        UserError: ``hooks`` or an event's list has a shape Claude Code
            would not read either (then the file is left alone).
    """
    out = copy.deepcopy(settings)
    hooks = out.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise UserError("the settings' hooks is not an object; not touching it")
    for name, (event, _matcher) in HOOK_EVENTS.items():
        groups = hooks.setdefault(name, [])
        if not isinstance(groups, list):
            raise UserError(f"the settings' hooks.{name} is not a list; not touching it")
        mine = group(config, name)
        at = next((i for i, g in enumerate(groups) if _is_ours(g, event)), None)
        if at is None:
            groups.append(mine)
        else:
            groups[at] = mine
            # any further copy of ours would run the hook twice
            groups[:] = [g for i, g in enumerate(groups) if i == at or not _is_ours(g, event)]
    return out


def plan_hooks(config: Config, scope: str, cwd: Path | None = None, home: Path | None = None) -> InstallPlan:
    """What installing brainwork's hooks in ``scope``'s settings would
    change; writes nothing. ``InstallPlan.entry``/``previous`` are the
    ``hooks`` object after/before, so ``changed`` is False when they are
    already there.

    Raises:
        UserError: the file is not UTF-8 JSON holding an object, or its
            hooks have a shape brainwork does not know.
    """
    path = settings_path(scope, cwd, home)
    before, data = read_json_object(path)
    merged = merge(data, config)
    previous = data.get("hooks")
    if merged == data:
        return InstallPlan(path, before, before or "", merged["hooks"], copy.deepcopy(merged["hooks"]))
    after = json.dumps(merged, indent=2, ensure_ascii=False)
    if before is None or before.endswith("\n") or not before.strip():
        after += "\n"
    return InstallPlan(path, before, after, merged["hooks"], previous)
