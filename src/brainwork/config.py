"""Per-vault configuration: where the vault and its store are, and
``brainwork.toml`` at the vault root (every key optional; docs/vault-format.md
lists them: vocabulary, thresholds, embeddings, ignore, rename, git).

Only entry points (the command line, the workbench's start-up) call
:func:`load_config`; everything else receives the resulting :class:`Config`.
A malformed file or an unknown or mistyped value is a user error naming the
file.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from brainwork.errors import UserError
from brainwork.thresholds import DEFAULT_THRESHOLDS, Thresholds
from brainwork.vocabulary import PAGE_TYPES

CONFIG_FILE = "brainwork.toml"
#: The store's folder inside the vault, unless ``--store`` says otherwise.
STORE_DIR = ".brainwork"


@dataclass(frozen=True)
class RenameSettings:
    """How ``rename`` treats the renamed page's own text, from ``[rename]`` in
    ``brainwork.toml``. Both off by default, as Obsidian renames: the page's
    bytes stay as they were apart from links to itself. ``keep_alias`` adds
    the old title and old file name to its aliases; ``add_title`` writes a
    ``title:`` key when the page has none and its heading or file name would
    not give the new name. The ``rename`` command's options override them."""

    keep_alias: bool = False
    add_title: bool = False


@dataclass(frozen=True)
class GitSettings:
    """``[git]`` in ``brainwork.toml``. ``commit``: when the vault lies in a
    git repository, commit every operation and capture, only the files it
    wrote, with a message naming it (:mod:`brainwork.ops.gitcommit`), so that
    machines share one memory through the repository they push and pull.
    Off by default: a person's repository gets no commit they did not ask
    for."""

    commit: bool = False


@dataclass(frozen=True)
class Config:
    """Everything a command needs to know about one vault.

    ``vault`` is an absolute, resolved folder; ``store`` the folder holding
    the Kùzu database and the operation journal.
    """

    vault: Path
    store: Path
    thresholds: Thresholds = DEFAULT_THRESHOLDS
    page_types: tuple[str, ...] = PAGE_TYPES
    model: str | None = None
    ignore_folders: tuple[str, ...] = ()
    user_theme_dir: Path | None = None
    extra: dict = field(default_factory=dict)
    rename: RenameSettings = RenameSettings()
    git: GitSettings = GitSettings()

    @property
    def database_path(self) -> Path:
        """Path of the Kùzu database file."""
        return self.store / "graph.kuzu"


def default_vault() -> Path:
    """``$BRAINWORK_VAULT`` if set, else the current directory."""
    return Path(os.environ.get("BRAINWORK_VAULT") or ".")


def load_config(vault: Path | str | None = None, store: Path | str | None = None) -> Config:
    """Read the vault's ``brainwork.toml`` and build a :class:`Config`.

    Raises:
        UserError: the vault is not a folder, or ``brainwork.toml`` is malformed
            (the message names the file and the problem).
    """
    root = Path(vault) if vault is not None else default_vault()
    root = root.expanduser()
    if not root.is_dir():
        raise UserError(f"vault {str(root)!r} is not a folder")
    root = root.resolve()
    data: dict = {}
    cfg_file = root / CONFIG_FILE
    if cfg_file.is_file():
        try:
            data = tomllib.loads(cfg_file.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise UserError(f"{cfg_file}: {exc}") from None
    thresholds = DEFAULT_THRESHOLDS
    try:
        thresholds = thresholds.with_overrides(data.get("thresholds", {}))
    except ValueError as exc:
        raise UserError(f"{cfg_file}: {exc}") from None
    extra_types = tuple(str(t) for t in data.get("vocabulary", {}).get("extra_types", []))
    page_types = PAGE_TYPES + tuple(t for t in extra_types if t not in PAGE_TYPES)
    model = data.get("embeddings", {}).get("model")
    ignore = tuple(str(f).strip("/") for f in data.get("ignore", {}).get("folders", []))
    rename_data = data.get("rename", {})
    flags = {}
    for key in ("keep_alias", "add_title"):
        value = rename_data.get(key, False) if isinstance(rename_data, dict) else False
        if not isinstance(value, bool):
            raise UserError(f"{cfg_file}: [rename] {key} must be true or false, not {value!r}")
        flags[key] = value
    git_data = data.get("git", {})
    if not isinstance(git_data, dict):
        raise UserError(f"{cfg_file}: [git] must be a table")
    git_commit = git_data.get("commit", False)
    if not isinstance(git_commit, bool):
        raise UserError(f"{cfg_file}: [git] commit must be true or false, not {git_commit!r}")
    store_path = Path(store).expanduser().resolve() if store is not None else root / STORE_DIR
    theme_dir = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "brainwork" / "themes"
    return Config(
        vault=root,
        store=store_path,
        thresholds=thresholds,
        page_types=page_types,
        model=model,
        ignore_folders=ignore,
        user_theme_dir=theme_dir,
        extra=data,
        rename=RenameSettings(**flags),
        git=GitSettings(commit=git_commit),
    )
