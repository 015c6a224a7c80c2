"""The layering in docs/architecture.md, checked.

- import-linter contracts in pyproject.toml (textual only under tui/, layers
  vault -> index -> store -> analysis/ops/learn -> tui/cli);
- only brainwork/store/db.py imports kuzu;
- importing the non-UI layers does not import Textual at run time;
- only brainwork/vault/ defines the link grammar (wikilink and Markdown-link
  patterns).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "brainwork"


def test_import_linter_contracts() -> None:
    exe = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(exe)], cwd=SRC.parents[1], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_only_store_db_imports_kuzu() -> None:
    importers = sorted(
        str(p.relative_to(SRC))
        for p in SRC.rglob("*.py")
        if any(
            line.strip().startswith(("import kuzu", "from kuzu"))
            for line in p.read_text(encoding="utf-8").splitlines()
        )
    )
    assert importers == ["store/db.py"]


def test_core_layers_do_not_import_textual() -> None:
    code = (
        "import sys, importlib, pkgutil, brainwork\n"
        "for m in ['brainwork.vault.parse','brainwork.index.sync','brainwork.store.graph','brainwork.analysis.search',"
        "'brainwork.cli']:\n"
        "    importlib.import_module(m)\n"
        "print('textual' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_commands_print_through_cli_echo() -> None:
    """A command may run inside the store's owner for another process; its
    output must reach that process, so commands print with
    brainwork.cli.common.echo (which writes to the caller's buffers there),
    never click.echo or print directly."""
    offenders = []
    for path in sorted((SRC / "cli").glob("*.py")):
        if path.name == "common.py":
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if "click.echo(" in code or "click.secho(" in code or code.strip().startswith("print("):
                offenders.append(f"cli/{path.name}:{n}")
    assert offenders == []


#: Pieces of a regular expression that spell link syntax: ``[[`` (a
#: wikilink) and ``](`` (a Markdown link's destination).
_LINK_SYNTAX = ("\\[\\[", "\\]\\(")
_RE_FUNCTIONS = {"compile", "sub", "subn", "match", "fullmatch", "search", "finditer", "findall", "split"}


def test_only_vault_defines_link_patterns() -> None:
    """Every other package imports the link grammar from brainwork.vault.links,
    so one change to it reaches every reader of links."""
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        if rel.parts[0] == "vault":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in _RE_FUNCTIONS and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "re" and node.args):
                continue
            pattern = node.args[0]
            texts = [n.value for n in ast.walk(pattern) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
            if any(piece in text for text in texts for piece in _LINK_SYNTAX):
                offenders.append(f"{rel}:{node.lineno}")
    assert offenders == []


def test_every_command_is_listed_in_its_family() -> None:
    """The command line imports a family only for the commands FAMILIES lists
    for it, so each family's COMMANDS and its FAMILIES entry must agree."""
    import importlib

    from brainwork.cli import FAMILIES

    for module, names in FAMILIES.items():
        listed = sorted(c.name for c in importlib.import_module(module).COMMANDS)
        assert listed == sorted(names), module
