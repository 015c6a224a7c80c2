"""Small undoable fixes offered by the quality bar (docs/findings.md): set a
page's type, retarget a link (dead or not), remove a dead link, create the
missing page for a dead link, dismiss a finding.

Each fix plans its file edits with span edits (:mod:`brainwork.vault.edit`;
only the ``type:`` line, only the link's target text ...) and applies them
through :func:`brainwork.ops.unit_of_work.apply`, so it is journaled, re-indexes
the graph, and is one step in the undo log. Each returns the
:class:`~brainwork.ops.operation.Operation` (``details`` says what changed).
"""

from __future__ import annotations

import posixpath
from urllib.parse import unquote

from brainwork.config import Config
from brainwork.errors import UserError
from brainwork.model import Link
from brainwork.ops import unit_of_work
from brainwork.ops.journal import FileChange
from brainwork.ops.operation import Operation
from brainwork.ops.relink import BAD_TARGET_CHARS, VaultLinks, _encode_md, _yaml_escape, _yaml_quote_at, choose_target, plan_relink, target_span, watch_for
from brainwork.ops.rename import file_name_for
from brainwork.store import Store
from brainwork.store import graph
from brainwork.vault.edit import EditError, frontmatter_fields, remove_from_list_field, render_scalar, replace_spans, set_field
from brainwork.vault.parse import BOM, page_id, parse_text
from brainwork.vault.resolve import Resolver, from_root, norm, similar_names
from brainwork.vault.write import safe_rel_path, vault_file
from brainwork.wording import counted


def _refresh(config: Config, store: Store) -> None:
    from brainwork.index.sync import sync

    sync(config, store)


def too_large_to_edit(rel: str, size: int, limit: int) -> UserError:
    """The refusal for a file of ``size`` bytes over ``limit``
    (``max_file_bytes``): the index never parsed it (a dump, not a note:
    thresholds.py), so its frontmatter and links are unknown and an edit
    would be a blind write."""
    return UserError(f"{rel}: file is {size:,} bytes, over the {limit:,}-byte limit; too large to edit")


def _read_page(config: Config, store: Store, page: str) -> tuple[str, str, bytes, str, str]:
    """(page id, path, bytes, text without BOM, BOM) of a page to edit.

    Raises:
        UserError: not a page, or its file is over ``max_file_bytes``
            (:func:`too_large_to_edit`), unreadable or not UTF-8.
    """
    pid = graph.find_page(store, page)
    row = graph.get_page(store, pid, errors=False)
    if row is None or row.kind != "page":
        raise UserError(f"{page!r} is not a page")
    rel = row.path
    try:
        data = (config.vault / rel).read_bytes()
    except OSError as e:  # removed since the sync, unreadable, a folder now
        raise UserError(f"{rel}: cannot read ({e.strerror or e}); cannot edit") from None
    if len(data) > config.thresholds.max_file_bytes:
        raise too_large_to_edit(rel, len(data), config.thresholds.max_file_bytes)
    try:
        raw = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"{rel}: not UTF-8; cannot edit") from None
    bom = BOM if raw.startswith(BOM) else ""
    return pid, rel, data, raw[len(bom):], bom


def _matching_links(config: Config, rel: str, data: bytes, line: int | None, target: str) -> list[Link]:
    parsed = parse_text(rel, data, 0, config.thresholds.max_file_bytes)
    want = norm(target.strip())
    found = [l for l in parsed.links if norm(l.target.strip()) == want and (line is None or l.line == line)]
    if not found:
        where = f"{rel}:{line}" if line else rel
        raise UserError(f"no link to {target!r} at {where}")
    return found


def set_type(config: Config, store: Store, page: str, type_: str) -> Operation:
    """Set ``type:`` of ``page`` (only that line; a frontmatter block is
    created if needed).

    Raises:
        UserError: ``type_`` is not in the vault's vocabulary
            (``config.page_types``), or the page cannot be edited (not
            UTF-8, broken frontmatter, over ``max_file_bytes``).
    """
    change, summary, details = plan_set_type(config, store, page, type_)
    return unit_of_work.apply(config, store, "set-type", summary, [change], details=details)


def plan_set_type(
    config: Config, store: Store, page: str, type_: str, *, refresh: bool = True,
) -> tuple[FileChange, str, dict]:
    """What :func:`set_type` would write, without writing: ``(change,
    summary, details)``. ``refresh=False`` skips the sync first (a batch
    syncs once). Raises as :func:`set_type`."""
    type_ = (type_ or "").strip()
    if type_ not in config.page_types:
        raise UserError(f"unknown type {type_!r}; the vault's types are: {', '.join(config.page_types)}")
    if refresh:
        _refresh(config, store)
    pid, rel, data, text, bom = _read_page(config, store, page)  # refuses a file over max_file_bytes
    try:
        old = frontmatter_fields(text).get("type")
        new = set_field(text, "type", type_)
    except EditError as exc:
        raise UserError(f"{rel}: {exc}") from None
    return (
        FileChange(rel, data, (bom + new).encode("utf-8")),
        f"set type of {pid}: {old or '(none)'} -> {type_}",
        {"page": pid, "old": old, "new": type_},
    )


def retarget_link(
    config: Config, store: Store, page: str, target: str, new_target: str, line: int | None = None,
) -> Operation:
    """Point the links to ``target`` written on ``page`` (only those on
    ``line`` when given) at the page ``new_target`` names instead. Only the
    target text changes; labels and headings stay. The new text is the
    shortest form that reaches the new page (its file name, else a path).

    Raises:
        PageNotFound: ``page`` or ``new_target`` does not exist.
        UserError: no such link on that page/line, or the page cannot be
            edited (over ``max_file_bytes``, not UTF-8).
    """
    change, summary, details = plan_retarget(config, store, page, target, new_target, line)
    return unit_of_work.apply(config, store, "retarget", summary, [change], details=details)


def plan_retarget(
    config: Config, store: Store, page: str, target: str, new_target: str, line: int | None = None,
    *, refresh: bool = True,
) -> tuple[FileChange, str, dict]:
    """What :func:`retarget_link` would write, without writing: ``(change,
    summary, details)``. ``refresh=False`` skips the sync first (a batch
    syncs once). Raises as :func:`retarget_link`."""
    if refresh:
        _refresh(config, store)
    pid, rel, data, text, bom = _read_page(config, store, page)
    want = graph.find_page(store, new_target)
    vl = VaultLinks.load(store)
    resolver = vl.resolver()
    spans = []
    for link in _matching_links(config, rel, data, line, target):
        ts = target_span(text, link)
        if ts is None:
            raise UserError(f"{rel}:{link.line}: cannot locate the target of {link.raw!r}")
        written = link.target.strip()
        new = choose_target(written, pid, want, resolver, old_id=written.removesuffix(".md"), markdown=link.style == "markdown",
                            source_before=pid)
        if new is None:
            raise UserError(f"no link text reaches {want!r} from {pid!r}")
        if ts.markdown:
            rep = _encode_md(new, ts.text, ts.angle)
        elif link.where == "frontmatter":
            rep = _yaml_escape(new, _yaml_quote_at(text, ts.start))
        else:
            rep = new
        spans.append((ts.start, ts.end, rep))
    new_text = replace_spans(text, spans)
    return (
        FileChange(rel, data, (bom + new_text).encode("utf-8")),
        f"retarget {counted(len(spans), 'link')} on {pid}: {target} -> {want}",
        {"page": pid, "target": target, "new": want, "links": len(spans)},
    )


def _plain(link: Link, text: str) -> str:
    """What a removed link leaves in the text: its label, else its target."""
    if link.label:
        return link.label.strip() if link.style == "wikilink" else link.label
    return unquote(link.target) if link.style == "markdown" else link.target


def remove_link(config: Config, store: Store, page: str, target: str, line: int | None = None) -> Operation:
    """Remove the links to ``target`` on ``page`` (only on ``line`` when
    given). In the body a link becomes plain text (its label, else its
    target), so the sentence still reads; in the frontmatter the list item
    holding it is removed (the key too if it was its only value).

    Raises:
        UserError: no such link, the page cannot be edited (over
            ``max_file_bytes``, not UTF-8) or its frontmatter cannot be.
    """
    _refresh(config, store)
    pid, rel, data, text, bom = _read_page(config, store, page)
    links = _matching_links(config, rel, data, line, target)
    body_spans = [(l.start, l.end, _plain(l, text)) for l in links if l.where == "body"]
    new_text = replace_spans(text, body_spans)
    for link in (l for l in links if l.where == "frontmatter"):
        try:
            fields = frontmatter_fields(new_text)
        except EditError as exc:
            raise UserError(f"{rel}: {exc}") from None
        done = False
        for key, value in fields.items():
            items = value if isinstance(value, list) else [value] if isinstance(value, str) else []
            for item in items:
                if isinstance(item, str) and item.strip() == link.raw:
                    new_text = remove_from_list_field(new_text, key, item) if isinstance(value, list) else set_field(new_text, key, None)
                    done = True
                    break
            if done:
                break
        if not done:  # written inside a longer text value: keep the words
            fresh = [l for l in parse_text(rel, (bom + new_text).encode("utf-8")).links
                     if l.where == "frontmatter" and l.raw == link.raw]
            if fresh:
                l2 = fresh[0]
                new_text = replace_spans(new_text, [(l2.start, l2.end, _yaml_escape(_plain(l2, new_text), _yaml_quote_at(new_text, l2.start)))])
    return unit_of_work.apply(
        config, store, "remove-link", f"remove {counted(len(links), 'link')} to {target} on {pid}",
        [FileChange(rel, data, (bom + new_text).encode("utf-8"))],
        details={"page": pid, "target": target, "links": len(links)},
    )


def _link_path(target: str, source: str | None) -> str:
    """The vault-relative path (no ``.md``) a path-like link ``target`` on
    page ``source`` names, by docs/vault-format.md's link grammar: ``./x``
    and ``../y`` from the linking page's folder, a leading ``/`` from the
    vault root, any other path from the vault root. A path that climbs out of
    the vault is returned as such, for :func:`safe_rel_path` to refuse."""
    raw = target.replace("\\", "/")
    if raw.startswith(("./", "../")) and source is not None:
        return posixpath.normpath(posixpath.join(posixpath.dirname(source), raw))
    return from_root(raw)


def create_page(
    config: Config, store: Store, target: str, *, type_: str | None = None, from_page: str | None = None,
    folder: str | None = None,
) -> Operation:
    """Create the page a dead link ``target`` names, so the link resolves.

    The file is ``target.md`` when the target is a path (``folder/Name``,
    ``/folder/Name`` from the vault root, ``./Name`` or ``../Name`` from the
    ``from_page``'s folder, as links resolve), else ``Name.md`` in ``folder``
    (default: the folder of ``from_page``, the page holding the link, else
    the vault root). The new page has a
    ``title:`` (when the file name had to drop characters), ``type:`` when
    given, and a ``# Name`` heading; its ``stub`` finding is dismissed in
    the same (undoable) operation.

    Raises:
        UnsafePath: the target would lead outside the vault or is not a
            valid file name (``..`` out of the vault, NUL, reserved names),
            or ``folder`` is absolute or has ``..`` segments.
        UserError: a page of that name exists, the type is unknown, no
            dead link names ``target`` (close dead-link targets are
            suggested), or the new page would change where other links
            point.
    """
    name = (target or "").strip()
    if not name or "\x00" in name:
        raise UserError("the link target is empty or holds a NUL character")
    if type_ is not None and type_ not in config.page_types:
        raise UserError(f"unknown type {type_!r}; the vault's types are: {', '.join(config.page_types)}")
    _refresh(config, store)
    if name.lower().endswith(".md"):
        name = name[:-3]
    src = graph.get_page(store, graph.find_page(store, from_page), errors=False) if from_page is not None else None
    if "/" in name or "\\" in name:
        rel = safe_rel_path(_link_path(name, src.id if src else None) + ".md")
        title = rel.rsplit("/", 1)[-1][:-3]
    else:
        if folder is None and src is not None:
            folder = posixpath.dirname(src.path)
        # A folder is relative to the vault root: an absolute one ("/tmp/x")
        # or one with ".." is refused as such (UnsafePath), not quietly
        # re-rooted inside the vault.
        folder = (folder or "").rstrip("/")
        if folder:
            safe_rel_path(folder)
        if BAD_TARGET_CHARS.search(name):
            raise UserError(f"a page name may not contain [ ] | # ^ or control characters: {name!r}")
        stem = file_name_for(name)
        rel = safe_rel_path(f"{folder}/{stem}.md" if folder else f"{stem}.md")
        title = name
    if vault_file(config.vault, rel).exists():
        raise UserError(f"{rel} already exists")
    vl = VaultLinks.load(store)
    new_id = page_id(rel)
    if any(norm(p) == norm(new_id) for p in vl.state):
        raise UserError(f"a page {new_id!r} already exists")
    stem = new_id.rsplit("/", 1)[-1]
    lines = ["---"]
    if title != stem:
        lines.append(f"title: {render_scalar(title)}")
    if type_:
        lines.append(f"type: {render_scalar(type_)}")
    text = ("\n".join(lines) + "\n---\n" if len(lines) > 1 else "") + f"# {title}\n"
    after = vl.resolver(add_pages={new_id: [title]})
    if "/" in name or "\\" in name:
        # The link grammar is the resolver's: the new page must be what the
        # link names once it exists, or creating it revives nothing.
        if after.resolve(name, src.id if src else None).page != new_id:
            raise UserError(f"[[{target}]] would still not name {rel} once it exists")
    before = vl.resolver()
    relink = plan_relink(config, vl, before, after, redirect={}, moved={}, titles={},
                         watch=watch_for([new_id], [title]))
    revived = [r for r in relink.revived if r.after == new_id]
    if not revived:
        # The operation exists to bring dead links to life; a page no link
        # names is a plain new page (or a typo of the target), not a fix.
        close = similar_names(target, _dead_targets(vl, before))
        hint = f"; did you mean {', '.join(f'[[{t}]]' for t in close)}?" if close else ""
        raise UserError(f"no dead link names [[{target}]], so {rel} would revive none{hint}; nothing was created")
    return unit_of_work.apply(
        config, store, "create-page", f"create {rel} for [[{target}]] ({counted(len(revived), 'dead link')} revived)",
        [FileChange(rel, None, text.encode("utf-8"))],
        # The new page is empty on purpose (its text is for the person to
        # write); brainwork's own write is not reported back as a stub.
        store_actions=[{"do": "dismiss", "key": f"stub:{new_id}", "reason": "created for a dead link"}],
        details={"path": rel, "page": new_id, "revived": len(revived)},
    )


def _dead_targets(vl: VaultLinks, before: Resolver) -> dict[str, list[str]]:
    """The targets of the vault's dead links, as written (each as its own
    name, for :func:`~brainwork.vault.resolve.similar_names`)."""
    out: dict[str, list[str]] = {}
    for pid in vl.page_ids():
        for link in vl.links(pid):
            target = link.target.strip()
            if target and target not in out and before.resolve(target, pid).page is None:
                out[target] = [target]
    return out


def dismiss(config: Config, store: Store, key: str, reason: str = "") -> Operation:
    """Dismiss the finding ``key`` (e.g. ``"duplicate:a|b"``) with a reason;
    undoable (the undo log runs :func:`brainwork.store.dismissals.undismiss`).

    Raises:
        UserError: empty key, or no current finding has it (the message
            suggests close keys; ``brainwork check --keys`` lists them).
    """
    if not key:
        raise UserError("a finding key is needed to dismiss it")
    _refresh(config, store)
    require_finding(config, store, key)
    return unit_of_work.apply(
        config, store, "dismiss", f"dismiss {key}" + (f" ({reason})" if reason else ""), [],
        store_actions=[{"do": "dismiss", "key": key, "reason": reason}], details={"key": key, "reason": reason},
    )


def require_finding(config: Config, store: Store, key: str) -> None:
    """Refuse a key no current finding has (a typo, or a finding fixed
    since it was listed): a dismissal of it would hide nothing and only
    add a step to the undo log. A key is ``CODE:rest``, so only that
    code's check runs; dismissed findings count, so dismissing twice
    keeps working."""
    from brainwork.analysis.finding import CODES
    from brainwork.analysis.findings import check

    code = key.split(":", 1)[0]
    if code not in CODES:
        raise UserError(f"no finding has the key {key!r}: a key starts with a finding code "
                        f"({', '.join(CODES)}); `brainwork check --keys` lists them")
    keys = {f.key for f in check(config, store, [code], include_dismissed=True)}
    if key in keys:
        return
    close = similar_names(key, {k: [k] for k in keys})
    hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
    raise UserError(f"no finding has the key {key!r}{hint} (`brainwork check --keys` lists them)")


def undismiss(config: Config, store: Store, key: str) -> Operation:
    """Bring back a dismissed finding; undoable (keeps the old reason)."""
    from brainwork.store import dismissals

    old = {d.key: d.reason for d in dismissals.dismissals(store)}
    if key not in old:
        raise UserError(f"{key!r} is not dismissed")
    return unit_of_work.apply(
        config, store, "undismiss", f"undismiss {key}", [],
        store_actions=[{"do": "undismiss", "key": key, "reason": old[key]}], details={"key": key},
    )
