"""Workbench themes: TOML files turned into Textual themes.

Shipped themes (``brainwork/themes``, the repository's ``themes/`` folder:
a symlink in a checkout, a copy in a wheel) load first, then the user's
(``Config.user_theme_dir``); a later file with the same ``name`` replaces
an earlier one. A bad file is skipped and reported, never fatal. The file
format is in docs/architecture.md ("Themes").
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from textual.color import Color, ColorParseError
from textual.theme import Theme

from brainwork.wording import noun

#: The theme used when none is configured or the configured one is missing.
DEFAULT_THEME = "brainwork-dark"

#: The shipped themes (see the module doc for why this path works installed too).
BUNDLED_THEME_DIR = Path(__file__).resolve().parents[1] / "themes"

COLOUR_KEYS = (
    "primary",
    "secondary",
    "accent",
    "background",
    "surface",
    "panel",
    "foreground",
    "warning",
    "error",
    "success",
)
ALLOWED_KEYS = {"name", "dark", "variables", *COLOUR_KEYS}


@dataclass
class ThemeLoad:
    """Result of loading theme folders: ``themes`` by name (load order), and
    ``problems`` as one line per bad file (``"path: what is wrong"``)."""

    themes: dict[str, Theme] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def parse_theme(path: Path) -> Theme:
    """Read one theme file.

    Raises:
        ValueError: the file is unreadable, not TOML, or not a valid theme;
            the message says what is wrong (without the path).
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"not valid TOML: {exc}") from None
    unknown = sorted(set(data) - ALLOWED_KEYS)
    if unknown:
        raise ValueError(f"unknown {noun(len(unknown), 'key')} {', '.join(unknown)}")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError("'name' (text) is required")
    if "primary" not in data:
        raise ValueError("'primary' colour is required")
    colours: dict[str, str] = {}
    for key in COLOUR_KEYS:
        if key in data:
            value = data[key]
            if not isinstance(value, str):
                raise ValueError(f"{key!r} must be a colour text such as \"#5FA8D3\"")
            try:
                Color.parse(value)
            except ColorParseError:
                raise ValueError(f"{key!r}: {value!r} is not a colour") from None
            colours[key] = value
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise ValueError("'dark' must be true or false")
    variables = data.get("variables", {})
    if not isinstance(variables, dict) or not all(isinstance(v, str) for v in variables.values()):
        raise ValueError("[variables] must map names to text values")
    return Theme(name=name.strip(), dark=dark, variables=dict(variables), **colours)


def load_themes(folders: list[Path | None]) -> ThemeLoad:
    """Load every ``*.toml`` in ``folders`` (missing folders are skipped),
    files in name order within a folder."""
    result = ThemeLoad()
    for folder in folders:
        if folder is None or not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.toml")):
            try:
                theme = parse_theme(path)
            except ValueError as exc:
                result.problems.append(f"{path}: {exc}")
                continue
            result.themes[theme.name] = theme
    return result


def theme_folders(user_theme_dir: Path | None) -> list[Path | None]:
    """The folders themes are read from: shipped, then the user's."""
    return [BUNDLED_THEME_DIR, user_theme_dir]
