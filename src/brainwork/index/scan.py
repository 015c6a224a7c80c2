"""List a vault's files without leaving it.

Hidden files and folders (``.obsidian``, ``.git``, ``.brainwork``, ``.trash``,
...), the store folder, folders listed under ``[ignore]`` in ``brainwork.toml``
and ``brainwork.toml`` itself (configuration, not content) are skipped. Symbolic links are never followed (a link could lead outside the
vault).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from brainwork.config import CONFIG_FILE


@dataclass(frozen=True)
class VaultFile:
    """One file: ``rel`` is the vault-relative POSIX path as on disk;
    ``size`` in bytes; ``mtime_ns`` from ``lstat``."""

    rel: str
    size: int
    mtime_ns: int

    @property
    def is_markdown(self) -> bool:
        return self.rel.lower().endswith(".md")


def scan_vault(root: Path, skip: tuple[str, ...] = (), store: Path | None = None) -> list[VaultFile]:
    """Every regular file below ``root``, sorted by path."""
    out: list[VaultFile] = []
    root_s = str(root)
    skip_set = {s.strip("/") for s in skip}
    store_s = str(store) if store else None
    for dirpath, dirnames, filenames in os.walk(root_s, followlinks=False):
        rel_dir = os.path.relpath(dirpath, root_s)
        rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/")
        keep = []
        for d in dirnames:
            if d.startswith("."):
                continue
            rel = f"{rel_dir}/{d}" if rel_dir else d
            if rel in skip_set or (store_s and os.path.join(dirpath, d) == store_s):
                continue
            keep.append(d)
        dirnames[:] = keep
        with os.scandir(dirpath) as it:
            entries = {e.name: e for e in it}
        for name in filenames:
            if name.startswith(".") or (not rel_dir and name == CONFIG_FILE):
                continue
            entry = entries.get(name)
            if entry is None or entry.is_symlink() or not entry.is_file(follow_symlinks=False):
                continue
            st = entry.stat(follow_symlinks=False)
            rel = f"{rel_dir}/{name}" if rel_dir else name
            out.append(VaultFile(rel, st.st_size, st.st_mtime_ns))
    out.sort(key=lambda f: f.rel)
    return out
