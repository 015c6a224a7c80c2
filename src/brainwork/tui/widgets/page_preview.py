"""Preview of one page: its fields, then its Markdown body.

The body is shown as Obsidian's reading view shows it: ``%%comments%%``
are hidden (inline and over several lines; their spans come from the link
grammar, :func:`brainwork.vault.links.comment_spans`), and each
``[[wikilink]]`` becomes a Markdown link labelled as Obsidian labels it, so
a click follows it (:class:`PagePreview.LinkFollowed`; the graph pane's
``g`` lists the same links for the keyboard).
"""

from __future__ import annotations

from urllib.parse import quote, unquote

from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Markdown, Static

from brainwork.store.graph import StoredPage
from brainwork.tui.widgets.cells import shown
from brainwork.vault.links import body_links, comment_spans

#: Scheme of the hrefs wikilinks get in the preview (never opened as URLs).
LINK_SCHEME = "brainwork:"

#: Bodies longer than this many characters are cut in the preview, which
#: keeps moving through a list fast (Textual's Markdown widget builds one
#: widget per block). The full page is one keypress away in an editor.
PREVIEW_BODY_CHARS = 12_000

#: Characters of one frontmatter value shown in the field list; longer ones
#: are cut with their length. A capture may write a field of megabytes (a
#: pasted log as ``wrong``), and wrapping 5 MB in the header kept the
#: workbench busy for minutes at each keypress.
PREVIEW_FIELD_CHARS = 1_000

#: Frontmatter keys not repeated in the field list (shown in the header).
_HEADER_KEYS = {"title", "type"}


def _value(value: object) -> str:
    """One field's value as shown, at most :data:`PREVIEW_FIELD_CHARS`
    characters (then "… (N characters)")."""
    if isinstance(value, list):
        text = ", ".join(str(v) for v in value)
    elif isinstance(value, dict):
        text = ", ".join(f"{k}: {v}" for k, v in value.items())
    else:
        text = str(value)
    return _cut(text)


def _cut(text: str) -> str:
    if len(text) > PREVIEW_FIELD_CHARS:
        return f"{text[:PREVIEW_FIELD_CHARS]}… ({len(text):,} characters)"
    return text


def reading_view(body: str) -> str:
    """``body`` with its ``%%comments%%`` removed and each wikilink written as
    a Markdown link (label: the link's label, else its target and heading)
    whose href is ``brainwork:<target as written>``; variation selectors
    dropped (:func:`~brainwork.tui.widgets.cells.shown`)."""
    edits: list[tuple[int, int, str]] = [(a, b, "") for a, b in comment_spans(body)]
    for link in body_links(body, 0, 1):
        if link.style != "wikilink":
            continue
        label = link.label or (f"{link.target} › {link.heading}" if link.heading else link.target)
        label = label.replace("[", "\\[").replace("]", "\\]")
        edits.append((link.start, link.end, f"[{label}]({LINK_SCHEME}{quote(link.target)})"))
    for start, end, text in sorted(edits, reverse=True):
        body = body[:start] + text + body[end:]
    return shown(body)


def header_content(page: StoredPage) -> Content:
    """Title, type and id, the file's parse errors, then one ``key: value``
    line per frontmatter field."""
    lines = [
        Content.from_markup("[b]$title[/b]", title=shown(_cut(page.title or page.id))),
        Content.from_markup(
            "[$accent]$type[/]  [$text-muted]$id[/]", type=page.type or "untyped", id=shown(page.id)
        ),
    ]
    for e in page.parse_errors:  # why fields or links below may be missing
        lines.append(Content.from_markup("[$error]✗ line $line: $message[/]", line=str(e.line), message=shown(e.message)))
    lines.append(Content(""))
    fields = page.fields or {}
    for key, value in fields.items():
        if key in _HEADER_KEYS:
            continue
        lines.append(Content.from_markup("[$text-muted]$key:[/] $value", key=key, value=_value(value)))
    return Content("\n").join(lines)


class PagePreview(VerticalScroll):
    """Scrollable preview (focusable, so the keyboard can scroll it).

    ``page_id``: the page shown (None before the first). Posts
    :class:`LinkFollowed` when a wikilink in the body is clicked.
    """

    HELP_TITLE = "Preview"

    class LinkFollowed(Message):
        """A wikilink to ``target`` (as written) was clicked on ``page_id``."""

        def __init__(self, page_id: str, target: str):
            super().__init__()
            self.page_id = page_id
            self.target = target

    page_id: str | None = None

    DEFAULT_CSS = """
    PagePreview #preview-header {
        padding: 0 1 1 1;
    }
    PagePreview Markdown {
        padding: 0 1;
        margin: 0;
    }
    """

    def compose(self) -> ComposeResult:
        yield Static("", id="preview-header")
        yield Markdown("", id="preview-body", open_links=False)

    @on(Markdown.LinkClicked)
    def _link_clicked(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        if event.href.startswith(LINK_SCHEME) and self.page_id is not None:
            self.post_message(self.LinkFollowed(self.page_id, unquote(event.href[len(LINK_SCHEME):])))

    def show_page(self, page: StoredPage | None, missing_id: str | None = None) -> None:
        """Show ``page``; None shows that ``missing_id`` is a dead link."""
        header = self.query_one("#preview-header", Static)
        body = self.query_one("#preview-body", Markdown)
        self.page_id = page.id if page is not None else None
        if page is None:
            header.update(
                Content.from_markup(
                    "[b $error]✗ $id[/]\n[$text-muted]No page by this name exists: links to it are dead links.[/]",
                    id=missing_id or "?",
                )
            )
            body.update("")
            self.scroll_home(animate=False)
            return
        header.update(header_content(page))
        text = page.body or ""
        cut_note = ""
        if len(text) > PREVIEW_BODY_CHARS:  # cut first: the reading view then parses only what is shown
            cut = text.rfind("\n", 0, PREVIEW_BODY_CHARS)
            text = text[: cut if cut > 0 else PREVIEW_BODY_CHARS]
            cut_note = f"\n\n*… preview cut at {PREVIEW_BODY_CHARS:,} characters of {len(page.body or ''):,}.*"
        body.update(reading_view(text) + cut_note)
        self.scroll_home(animate=False)

    def clear(self) -> None:
        self.query_one("#preview-header", Static).update("")
        self.query_one("#preview-body", Markdown).update("")
