"""Preview of one page: its fields, then its Markdown body."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Markdown, Static

from brainwork.store.graph import StoredPage

#: Bodies longer than this many characters are cut in the preview, which
#: keeps moving through a list fast (Textual's Markdown widget builds one
#: widget per block). The full page is one keypress away in an editor.
PREVIEW_BODY_CHARS = 12_000

#: Frontmatter keys not repeated in the field list (shown in the header).
_HEADER_KEYS = {"title", "type"}


def _value(value: object) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {v}" for k, v in value.items())
    return str(value)


def header_content(page: StoredPage) -> Content:
    """Title, type and id, then one ``key: value`` line per frontmatter field."""
    lines = [
        Content.from_markup("[b]$title[/b]", title=page.title or page.id),
        Content.from_markup(
            "[$accent]$type[/]  [$text-muted]$id[/]", type=page.type or "untyped", id=page.id
        ),
        Content(""),
    ]
    fields = page.fields or {}
    for key, value in fields.items():
        if key in _HEADER_KEYS:
            continue
        lines.append(Content.from_markup("[$text-muted]$key:[/] $value", key=key, value=_value(value)))
    return Content("\n").join(lines)


class PagePreview(VerticalScroll):
    """Scrollable preview (focusable, so the keyboard can scroll it)."""

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
        yield Markdown("", id="preview-body")

    def show_page(self, page: StoredPage | None, missing_id: str | None = None) -> None:
        """Show ``page``; None shows that ``missing_id`` is a dead link."""
        header = self.query_one("#preview-header", Static)
        body = self.query_one("#preview-body", Markdown)
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
        if len(text) > PREVIEW_BODY_CHARS:
            cut = text.rfind("\n", 0, PREVIEW_BODY_CHARS)
            text = text[: cut if cut > 0 else PREVIEW_BODY_CHARS]
            text += f"\n\n*… preview cut at {PREVIEW_BODY_CHARS:,} characters of {len(page.body or ''):,}.*"
        body.update(text)
        self.scroll_home(animate=False)

    def clear(self) -> None:
        self.query_one("#preview-header", Static).update("")
        self.query_one("#preview-body", Markdown).update("")
