"""Writing into the vault safely.

- :func:`safe_rel_path` turns a wanted vault-relative path into one that is
  guaranteed to stay inside the vault (no ``..``, no absolute paths, no NUL or
  control characters, no Windows-reserved names, no hidden segments).
- :func:`atomic_write` writes through a temporary file in the same folder,
  fsyncs it and ``os.replace``\\ s it over the target, so a reader sees the old
  bytes or the new bytes, never a mix.
- :func:`slugify` and :func:`unique_rel_path` give new pages collision-free
  file names.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
import unicodedata
from pathlib import Path, PurePosixPath

from brainwork.errors import UnsafePath, UserError

_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}
_BAD_CHARS = re.compile(r'[\x00-\x1f\x7f<>:"|?*\\]')
#: Longest file name we create (bytes of UTF-8), below the usual 255 limit.
MAX_NAME_BYTES = 200


def _process_umask() -> int:
    """The process umask, read once at import (reading it means setting it
    for a moment, which is not safe once writer threads run)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: Permission bits of a page we create, as ``open()`` would give it
#: (``mkstemp`` alone makes 0600, which would leave renamed, captured or
#: split pages unreadable to the group and others).
NEW_FILE_MODE = 0o666 & ~_process_umask()


def safe_rel_path(rel: str, strict: bool = True) -> str:
    """Validate a vault-relative POSIX path for writing and return it in the
    Unicode form it was given.

    The checks run on the NFC form, but the path itself is not normalised: a
    file written in NFD (macOS, synced Obsidian vaults) must be opened by the
    bytes of its name on disk, which on Linux differ from the NFC bytes. Names
    brainwork makes up for new files are NFC already (see
    :func:`brainwork.ops.rename.file_name_for`).

    ``strict=False`` keeps only the rules that keep a path inside the vault
    (not empty, not absolute, no ``.``/``..`` segments, no NUL, no hidden
    segment): for files that already exist under such a name (a control
    character, a Windows-reserved name) and that an operation rewrites,
    deletes or restores. Names brainwork makes up pass the strict checks.

    Raises:
        UnsafePath: empty, absolute, contains ``..``/``.`` segments, NUL or
            control characters, characters Windows forbids, a reserved device
            name (``CON``, ``NUL``...), a hidden segment, or a name over
            :data:`MAX_NAME_BYTES` bytes.
    """
    if not isinstance(rel, str) or not rel.strip():
        raise UnsafePath("empty path")
    given = rel
    rel = unicodedata.normalize("NFC", rel)
    if rel.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", rel):
        raise UnsafePath(f"absolute path not allowed: {rel!r}")
    parts = PurePosixPath(rel).parts
    for part in parts:
        if part in ("", ".", ".."):
            raise UnsafePath(f"path may not contain '.' or '..' segments: {rel!r}")
        if strict and _BAD_CHARS.search(part):
            raise UnsafePath(f"path contains a forbidden character: {rel!r}")
        if part.startswith("."):
            raise UnsafePath(f"hidden files and folders are not written: {rel!r}")
        if not strict:
            if "\x00" in part:
                raise UnsafePath(f"path contains a NUL character: {rel!r}")
            continue
        if part.split(".")[0].lower() in _RESERVED:
            raise UnsafePath(f"reserved device name in path: {rel!r}")
        if part != part.strip() or part.endswith("."):
            raise UnsafePath(f"path segment starts or ends with a space or dot: {rel!r}")
        if len(part.encode("utf-8")) > MAX_NAME_BYTES:
            raise UnsafePath(f"file name longer than {MAX_NAME_BYTES} bytes: {rel!r}")
    return "/".join(PurePosixPath(given).parts)


def vault_file(root: Path, rel: str, strict: bool = True) -> Path:
    """Absolute path of ``rel`` inside ``root``, after :func:`safe_rel_path`
    and a check that no existing symbolic link leads out of the vault.

    Raises:
        UnsafePath: as :func:`safe_rel_path`, or the resolved path is outside.
    """
    rel = safe_rel_path(rel, strict)
    root = root.resolve()
    full = root / rel
    resolved = full.resolve()
    if resolved != root and root not in resolved.parents:
        raise UnsafePath(f"path leads outside the vault: {rel!r}")
    return full


def read_only_folder(root: Path, folder: Path) -> str | None:
    """How to name the nearest existing folder at or above ``folder`` (up to
    the vault ``root``) that has no owner write bit (``"the folder tasks/"``,
    ``"the vault folder"``), else None.

    That is the folder a new file would add its name (or a missing
    subfolder) to; POSIX needs its write bit to create or unlink a name, and
    as root, where every folder is writable, the bit is still the owner's
    "do not change this" (checked on the bits, not ``os.access``).
    """
    while folder != root and folder.parent != folder and not folder.exists():
        folder = folder.parent
    try:
        mode = stat.S_IMODE(os.stat(folder).st_mode)
    except FileNotFoundError:
        return None
    if mode & stat.S_IWUSR:
        return None
    try:
        rel = folder.relative_to(root).as_posix()
    except ValueError:  # a symbolic link's folder: the caller checked it leads inside
        rel = folder.as_posix()
    return f"the folder {rel}/" if rel != "." else "the vault folder"


def read_only_message(rel: str, doing: str) -> str:
    """What to say when ``rel`` has no owner write bit: the bit is the
    owner's "do not change this" (checked on the bits, not ``os.access``:
    root may write anything)."""
    return f"{rel} is read-only; make it writable to {doing}"


def atomic_write(root: Path, rel: str, data: bytes, fsync: bool = True, strict: bool = True,
                 mode: int | None = None) -> Path:
    """Write ``data`` to ``root/rel`` atomically (temp file + fsync + rename).

    Creates missing folders inside the vault. Keeps the old file's permission
    bits; a new file gets ``mode`` or else :data:`NEW_FILE_MODE` (0666 less
    the umask, as ``open()`` would), not ``mkstemp``'s 0600. Returns the absolute path. ``fsync=False`` skips the two fsyncs
    (~8 ms per file here) for a caller that makes many files durable at once
    and holds a journal meanwhile (:mod:`brainwork.ops.unit_of_work`); the
    replace stays atomic for readers.

    Raises:
        UnsafePath: ``rel`` is not a safe vault path.
        UserError: the existing file has no owner write bit (read-only).
        OSError: the disk refused; the old file is untouched.
    """
    full = vault_file(root, rel, strict)
    full.parent.mkdir(parents=True, exist_ok=True)
    mode = NEW_FILE_MODE if mode is None else mode & 0o7777
    try:
        mode = full.stat().st_mode & 0o7777
    except FileNotFoundError:
        pass
    else:
        if not mode & stat.S_IWUSR:
            raise UserError(read_only_message(rel, "change it"))
    fd, tmp = tempfile.mkstemp(prefix=".bw-", suffix=".tmp", dir=full.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if fsync:
                os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, full)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    if not fsync:
        return full
    try:  # make the rename itself durable
        dfd = os.open(full.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass
    return full


def slugify(text: str, max_len: int = 60) -> str:
    """A lower-case ASCII file-name slug: ``"Renew TLS cert (billing)!"`` ->
    ``"renew-tls-cert-billing"``; never empty (``"page"``)."""
    norm = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", norm.lower()).strip("-")
    if len(slug) > max_len:
        # At a word boundary when there is one in the second half: a name cut
        # mid-word ("...-on-disk-c") reads as a typo.
        at = slug.rfind("-", 0, max_len + 1)
        slug = slug[:at] if at > max_len // 2 else slug[:max_len]
    slug = slug.rstrip("-")
    if not slug or slug.split(".")[0] in _RESERVED:
        slug = f"page-{slug}" if slug else "page"
    return slug


def unique_rel_path(root: Path, folder: str, stem: str, ext: str = ".md") -> str:
    """``folder/stem.md``, or ``folder/stem-2.md``... the first that does not
    exist (case-insensitively) in the vault. Validated with :func:`safe_rel_path`."""
    base = f"{folder.strip('/')}/{stem}" if folder.strip("/") else stem
    existing = set()
    parent = root / folder.strip("/") if folder.strip("/") else root
    if parent.is_dir():
        existing = {unicodedata.normalize("NFC", p.name).casefold() for p in parent.iterdir()}
    n = 1
    while True:
        name = f"{stem}{ext}" if n == 1 else f"{stem}-{n}{ext}"
        if unicodedata.normalize("NFC", name).casefold() not in existing:
            candidate = f"{base}{ext}" if n == 1 else f"{base}-{n}{ext}"
            return safe_rel_path(candidate)
        n += 1
