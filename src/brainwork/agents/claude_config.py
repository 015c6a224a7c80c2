"""Add brainwork's MCP server to Claude Code's configuration.

Claude Code reads stdio MCP servers from an ``mcpServers`` object:

- project scope: ``.mcp.json`` at the project root (checked in, shared with
  the team; Claude Code asks each user to approve its servers once);
- user scope: the top level of ``~/.claude.json``, beside Claude Code's own
  state (the file ``claude mcp add --scope user`` writes; see
  anthropics/claude-code#4193).

:func:`plan_install` computes the change without writing (the caller shows
:meth:`InstallPlan.diff`); :func:`apply_install` writes it. Only the
``mcpServers.brainwork`` entry changes; every other key and server is kept
as it was, in its order. The file is replaced atomically, with its mode,
and only if nobody changed it since it was planned (Claude Code rewrites
``~/.claude.json`` while it runs). Nothing else is ever written.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from brainwork.config import STORE_DIR, Config
from brainwork.errors import UserError

SERVER_KEY = "brainwork"
#: The command Claude Code runs for the MCP server and for every hook: named
#: bare, so Claude Code finds it on its own PATH.
COMMAND = "brainwork"
SCOPES = ("project", "user")
PROJECT_FILE = ".mcp.json"
USER_FILE = ".claude.json"


def config_path(scope: str, cwd: Path | None = None, home: Path | None = None) -> Path:
    """The file Claude Code reads ``scope``'s MCP servers from."""
    if scope == "project":
        return (cwd or Path.cwd()) / PROJECT_FILE
    if scope == "user":
        return (home or Path.home()) / USER_FILE
    raise UserError(f"unknown scope {scope!r}; scopes: {', '.join(SCOPES)}")


def server_entry(config: Config) -> dict:
    """``{"command": "brainwork", "args": ["mcp", "--vault", VAULT]}``, with
    ``--store`` only when the store is not the vault's default one."""
    args = ["mcp", "--vault", str(config.vault)]
    if Path(config.store) != Path(config.vault) / STORE_DIR:
        args += ["--store", str(config.store)]
    return {"command": COMMAND, "args": args}


def command_not_found() -> str | None:
    """The warning for ``mcp install`` and ``hook install`` when
    :data:`COMMAND` is not on this process's PATH, else None: the entries
    they write name it bare, so Claude Code (started from a like shell)
    would fail to start the server or every hook, and say nothing to the
    model."""
    if shutil.which(COMMAND) is not None:
        return None
    return (f"`{COMMAND}` is not on PATH; Claude Code will not find the command "
            "(install brainwork where Claude Code's PATH sees it, e.g. with pipx)")


@dataclass(frozen=True)
class InstallPlan:
    """The change to one configuration file.

    ``before`` is the file's text (None: no file yet), ``after`` the text to
    write; ``previous`` the brainwork entry found (None: none)."""

    path: Path
    before: str | None
    after: str
    entry: dict
    previous: dict | None

    @property
    def changed(self) -> bool:
        return self.previous != self.entry

    def diff(self) -> str:
        """A unified diff from the file as it is to the file as it will be."""
        old = [] if self.before is None else self.before.splitlines(keepends=True)
        lines = difflib.unified_diff(
            old, self.after.splitlines(keepends=True),
            fromfile="/dev/null" if self.before is None else str(self.path), tofile=str(self.path),
        )
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise UserError(f"{path} is not UTF-8 text; not touching it") from None
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror}") from None


def read_json_object(path: Path) -> tuple[str | None, dict]:
    """The text of a Claude Code JSON file and the object it holds.

    A missing or blank file reads as ``(text or None, {})``: the install
    creates it. Anything else that is not a JSON object raises, so that a
    file the user must fix is never overwritten.

    Raises:
        UserError: the file cannot be read, is not UTF-8, is not valid JSON,
            or holds something other than an object.
    """
    before = _read(path)
    if before is None or not before.strip():
        return before, {}
    try:
        data = json.loads(before)
    except ValueError as exc:
        raise UserError(f"{path} is not valid JSON ({exc}); fix it first, not touching it") from None
    if not isinstance(data, dict):
        raise UserError(f"{path} does not hold a JSON object; not touching it")
    return before, data


def plan_install(config: Config, scope: str, cwd: Path | None = None, home: Path | None = None) -> InstallPlan:
    """What adding (or updating) the brainwork entry to ``scope``'s file
    would change; writes nothing.

    The file is re-serialised as JSON with 2-space indentation, as Claude
    Code writes it, so a file in that form changes only in the brainwork
    entry (the diff shows anything else).

    Raises:
        UserError: the file is not a JSON object, or its ``mcpServers`` is
            not an object: it is left alone.
    """
    path = config_path(scope, cwd, home)
    before, data = read_json_object(path)
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise UserError(f"{path}: mcpServers is not an object; not touching it")
    previous = servers.get(SERVER_KEY)
    entry = server_entry(config)
    if previous == entry:
        after = before or ""
    else:
        servers[SERVER_KEY] = entry
        after = json.dumps(data, indent=2, ensure_ascii=False)
        if before is None or before.endswith("\n") or not before.strip():
            after += "\n"
    return InstallPlan(path, before, after, entry, previous)


def apply_install(plan: InstallPlan) -> bool:
    """Write ``plan`` (nothing when it changes nothing). Returns whether the
    file was written.

    Raises:
        UserError: the file changed since it was planned, or cannot be written.
    """
    if not plan.changed:
        return False
    if _read(plan.path) != plan.before:
        raise UserError(f"{plan.path} changed while this ran; nothing written, run it again")
    mode = None
    try:
        mode = plan.path.stat().st_mode & 0o7777
    except FileNotFoundError:
        pass
    folder = plan.path.parent
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{plan.path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise UserError(f"cannot write in {folder}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(plan.after)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode if mode is not None else 0o644 & ~_umask())
        os.replace(tmp, plan.path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise UserError(f"cannot write {plan.path}: {exc.strerror}") from None
    return True


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
