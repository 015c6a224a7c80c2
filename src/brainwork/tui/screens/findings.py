"""The findings pane: the quality bar grouped by code, one key per fix,
and batch triage of marked findings.

The screen renders the Textual-free read-model of
:mod:`brainwork.service.views` (groups, counts, texts, which fixes a
finding offers). Every fix and dismissal is one vault operation
(``app.operations``), so one ``u`` undoes it, a batch included; the merge
alone cannot be undone. A resolved finding leaves the list at once; the
check that follows the operation reconciles. The keys and what each fix
does are in docs/architecture.md ("The panes").
"""

from __future__ import annotations

import posixpath
import subprocess
import time
from functools import partial
from pathlib import Path
from typing import Any, Iterable

from textual import events, on, work
from rich.cells import cell_len
from textual.app import SuspendNotSupported
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option, OptionDoesNotExist
from textual.worker import get_current_worker

from brainwork.service import triage
from brainwork.service.views import (
    CODE_TITLES,
    Marks,
    FindingDetail,
    FindingRow,
    FindingsView,
    finding_detail,
    findings_view,
    fixes_for,
    folder_type,
    location,
    new_page_path,
    page_title,
    suggested_title,
    suggestions_of,
)
from brainwork.tui.messages import PageLoaded
from brainwork.tui.modals.merge_confirm import MergeConfirmScreen
from brainwork.tui.modals.prompts import ChoicePrompt, TextPrompt
from brainwork.tui.modals.rename_prompt import RenameAnswer, RenamePrompt, rename_note
from brainwork.tui.page_actions import editor_command
from brainwork.tui.screens.base import PaneScreen, PreviewReader
from brainwork.tui.widgets.page_preview import PagePreview

#: Fix actions and the key shown for each in the evidence panel.
FIX_KEYS = {
    "rename": ("r", "rename"),
    "retarget": ("l", "retarget link"),
    "create": ("c", "create page"),
    "unlink": ("x", "remove link"),
    "set_type": ("s", "set type"),
    "merge": ("m", "merge pair"),
    "split": ("S", "split"),
    "edit": ("e", "edit"),
    "dismiss": ("d", "dismiss"),
}

def _get(finding: Any, name: str, default: Any = None) -> Any:
    return getattr(finding, name, default)


#: The marker in front of a marked finding.
MARK = "● "


def finding_prompt(row: FindingRow, marked: bool = False, width: int | None = None) -> Content:
    """Two lines in the list: the message (after a ``●`` when marked), then
    where (dimmed). ``width``: the list's text width in cells (None:
    unknown); a place longer than it is cut from the left
    (:func:`fit_location`), so the line number shows where the end
    ellipsis of a cut line would hide it."""
    lead = (" " + MARK, "bold $accent") if marked else "   "
    where = row.location if width is None else fit_location(row.location, width - 5)
    return Content.assemble(lead, row.message, "\n", ("     " + where, "$text-muted"))


def fit_location(location: str, width: int) -> str:
    """``location`` (``page:line``) in at most ``width`` cells, cut from the
    left ("…cert-edi-endpoint:15") so that the line number stays: a place
    longer than the panel was folded, leaving ":15" alone on the next line."""
    if width < 2 or cell_len(location) <= width:
        return location
    kept = location
    while kept and cell_len(kept) > width - 1:
        kept = kept[1:]
    return "…" + kept


def detail_content(detail: FindingDetail, width: int | None = None) -> Content:
    """The evidence panel: code and place, message, the keys of the fixes
    it offers, then the finding's fields and evidence. ``width``: the
    panel's text width in cells (None: unknown); the place goes on its own
    line when it does not fit beside the code, cut to fit."""
    if width is None or cell_len(detail.code) + 2 + cell_len(detail.location) <= width:
        head = [Content.from_markup("[b $accent]$code[/]  $loc", code=detail.code, loc=detail.location)]
    else:
        head = [Content.from_markup("[b $accent]$code[/]", code=detail.code),
                Content(fit_location(detail.location, width))]
    lines = [
        *head,
        Content.from_markup("[b]$message[/b]", message=detail.message),
    ]
    keys = [Content.from_markup("[b]$k[/b] $d", k=FIX_KEYS[a][0], d=FIX_KEYS[a][1]) for a in detail.fixes]
    if keys:
        lines.append(Content.from_markup("[$text-muted]fixes:[/] ") + Content(" · ").join(keys))
    lines.append(Content(""))
    for label, value in detail.fields:
        lines.append(Content.from_markup("[$text-muted]$key:[/] $value", key=label, value=value))
    return Content("\n").join(lines)


# -- messages -------------------------------------------------------------------
class FindingsResolved(Message):
    """A fix or dismissal of this pane returned: the findings ``keys`` are
    gone (the list drops them before the next check lands)."""

    def __init__(self, action: str, keys: tuple[str, ...]):
        super().__init__()
        self.action = action
        self.keys = keys


class FindingsChecked(Message):
    """The quality bar ran: ``findings`` (None with ``error`` when it could
    not run) and their ``view`` under the filter ``text_filter``, in
    ``seconds``."""

    def __init__(
        self, request_id: int, findings: list[Any] | None, seconds: float, error: str = "",
        view: FindingsView | None = None,
    ):
        super().__init__()
        self.request_id = request_id
        self.findings = findings
        self.view = view
        self.seconds = seconds
        self.error = error


class FindingList(OptionList):
    """Group headers (``g:<code>``) and findings (``f:<index>``)."""

    HELP_TITLE = "finding list"
    DEFAULT_CSS = """
    FindingList {
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """
    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
    ]

    class Resized(Message):
        """The list got a new size (it is first laid out once shown): the
        places its rows cut to its width are cut again."""

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(self.Resized())

    def on_key(self, event: events.Key) -> None:
        # A terminal delivers "/harbor" as one burst, queued to this list
        # before any of it is handled. "/" opens the filter here, at once
        # (as a screen binding it would run only after the list had taken
        # "harbor" too), and the keys queued behind it go on to the box.
        focused = self.screen.focused
        if focused is self and event.key == "slash":
            event.prevent_default()
            event.stop()
            self.screen.action_filter()  # type: ignore[attr-defined]
        elif focused is not self and isinstance(focused, Input):
            event.prevent_default()
            event.stop()
            focused.post_message(events.Key(event.key, event.character))


class FindingsScreen(PreviewReader, PaneScreen):
    """The findings pane (2)."""

    PANE_ID = "findings"
    PREVIEW_GROUP = "finding-preview"
    CSS_PATH = Path(__file__).with_suffix(".tcss")
    AUTO_FOCUS = "#findings-list"

    BINDINGS = [
        Binding("r", "rename", "Rename", tooltip="Rename the page (suggested title pre-filled); undoable"),
        Binding("l", "retarget", "Retarget", tooltip="Point the link at a suggested page; undoable"),
        Binding("c", "create", "Create", tooltip="Create the page the dead link names; undoable"),
        Binding("x", "unlink", "Unlink", show=False, tooltip="Remove the dead link, keep its text; undoable"),
        Binding("s", "set_type", "Type", tooltip="Set the page's type; undoable"),
        Binding("m", "merge", "Merge", tooltip="Merge the duplicate pair (asks first; cannot be undone)"),
        Binding("S", "split", "Split", show=False, tooltip="Split the page at its ## headings; undoable"),
        Binding("e", "edit", "Edit", tooltip="Open the page in $EDITOR, then re-index it"),
        Binding("d", "dismiss_finding", "Dismiss", tooltip="Hide this finding from now on; undoable"),
        Binding("o", "other", "Other page", show=False, tooltip="Preview the other page of the pair"),
        Binding("slash", "filter", "Filter", show=False, tooltip="Filter findings by text"),
        Binding("escape", "clear_filter", "Clear the filter or the marks", show=False),
        Binding("space", "toggle_mark", "Mark", tooltip="Mark or unmark the finding; F and d then act on every marked one"),
        Binding("v", "mark_range", "Mark range", show=False, tooltip="Mark every finding from the last marked one to the cursor"),
        Binding("F", "fix_suggested", "Fix marked", tooltip="Apply the suggested fix of every marked finding (or this one) in one undoable operation"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        #: The findings of the last check (None before the first).
        self.findings: list[Any] | None = None
        #: What the list shows of them (under :attr:`text_filter`).
        self.view: FindingsView | None = None
        self.collapsed: set[str] = set()
        self.text_filter = ""
        self._request = 0
        self._preview_request = 0
        self._started = 0.0
        self._checking = False
        self._preview_other = False
        self._keep_key: str | None = None
        self._keep_index = 0
        self._keep_option: str | None = None
        #: Marked findings, by key.
        self.marks = Marks()
        #: The list width the places were last cut to (None: not cut).
        self._fitted_width: int | None = None

    # -- layout ---------------------------------------------------------------
    def compose_body(self) -> Iterable[Widget]:
        with Horizontal(id="findings-body"):
            with Vertical(id="findings-left"):
                yield Input(placeholder="filter findings…", id="findings-filter")
                yield FindingList(id="findings-list")
                yield Static("", id="findings-message")
            with Vertical(id="findings-right"):
                with VerticalScroll(id="finding-detail"):
                    yield Static("", id="finding-evidence")
                yield PagePreview(id="finding-preview")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#findings-left").border_title = "Findings"
        self.query_one("#finding-detail").border_title = "Finding"
        self.query_one("#finding-preview").border_title = "Page"
        self.show_message("Reading the vault…")
        # After the placeholder: the watch shows a store error already there
        # (a busy store said "Reading the vault…" for ever).
        self.watch(self.app, "store_error", self._store_error_changed)
        if self.app.pages is not None:
            self.run_check()
        self.query_one(FindingList).focus()

    def on_vault_changed(self) -> None:
        self.run_check()

    def _store_error_changed(self, error: str) -> None:
        if error:
            self.show_message(error)

    def show_message(self, text: str) -> None:
        """Show ``text`` instead of the list (until findings arrive)."""
        message = self.query_one("#findings-message", Static)
        message.update(text)
        message.display = True
        self.query_one(FindingList).display = False

    # -- checking ---------------------------------------------------------------
    def run_check(self) -> None:
        """Run the quality bar in a worker (the list stays until it answers)."""
        if not self.app.store.is_open:
            return
        self._request += 1
        self._started = time.monotonic()
        self._checking = True
        self.query_one("#findings-left").border_subtitle = "checking…"
        self.set_timer(0.5, self._show_progress)
        self._check(self._request)

    def _show_progress(self) -> None:
        if self._checking and self.app.background is None:
            self.app.background = ("checking the vault…", 0, 0)

    @work(thread=True, group="findings", exclusive=True, exit_on_error=False)
    def _check(self, request_id: int) -> None:
        worker = get_current_worker()
        started = time.monotonic()
        try:
            from brainwork.analysis import findings as quality
        except ImportError as exc:
            self.post_message(FindingsChecked(request_id, None, 0.0, f"The quality bar is not available: {exc}"))
            return
        with self.app.store.use() as store:
            found = list(quality.check(self.app.config, store))
        view = findings_view(found, self.text_filter)
        if not worker.is_cancelled:
            self.post_message(FindingsChecked(request_id, found, time.monotonic() - started, view=view))

    def on_worker_state_changed(self, event) -> None:
        # Textual also runs PaneScreen's handler (every class in the MRO
        # gets the message), which reports failures: no super() call here.
        if event.worker.group == "findings" and event.worker.is_finished:
            self._end_progress()

    def _end_progress(self) -> None:
        self._checking = False
        if self.app.background is not None and self.app.background[0] == "checking the vault…":
            self.app.background = None

    def on_findings_checked(self, message: FindingsChecked) -> None:
        if message.request_id != self._request:
            return
        self._end_progress()
        if message.findings is None:
            self.query_one("#findings-left").border_subtitle = ""
            self.show_message(message.error)
            return
        view = message.view
        if view is None or view.text_filter != self.text_filter:  # the filter changed meanwhile
            view = findings_view(message.findings, self.text_filter)
        if self.findings is None:  # first check: fold the big groups so every code shows
            self.collapsed = view.big_codes
        self.findings = message.findings
        self._rebuild(view)

    # -- the list ------------------------------------------------------------------
    def _rebuild(self, view: FindingsView | None = None) -> None:
        """Fill the list from :attr:`findings` (``view``: their read-model
        under the current filter, computed here when not given) keeping the
        cursor on the same finding (by key), else at the same position."""
        if self.findings is None:
            return
        if view is None:
            view = findings_view(self.findings, self.text_filter)
        self.view = view
        olist = self.query_one(FindingList)
        if self._keep_key is None:
            self._remember()
        keep_key, keep_index, keep_option = self._keep_key, self._keep_index, self._keep_option
        self._keep_key = None
        options: list[Option] = []
        width = self._fitted_width = self._list_width()
        for group in view.groups:
            folded = group.code in self.collapsed
            options.append(
                Option(
                    Content.assemble(
                        ("▸ " if folded else "▾ ", "$text-muted"),
                        (group.code, "bold $accent"),
                        (f"  {len(group.rows)}", "bold"),
                        (f"  {group.title}", "$text-muted"),
                    ),
                    id=f"g:{group.code}",
                )
            )
            if folded:
                continue
            for row in group.rows:
                options.append(Option(finding_prompt(row, row.key in self.marks, width), id=f"f:{row.index}"))
        olist.set_options(options)
        self.marks.keep(k for f in self.findings if (k := _get(f, "key")))
        self._update_title()
        if view.empty_text:
            list_focused = self.focused is olist
            self.show_message(view.empty_text)
            if list_focused:
                # Hidden, the list would hand the focus on to the filter box
                # and the next key (u: undo the fix that emptied it) would be
                # typed there; kept with no height, it keeps the focus.
                olist.display = True
                olist.styles.height = 0
            self._show_finding(None)
            return
        self.query_one("#findings-message").display = False
        olist.styles.height = None  # back to the stylesheet's height
        olist.display = True
        index = None
        for j, opt in enumerate(options):
            if keep_key is not None and opt.id.startswith("f:"):
                if _get(self.findings[int(opt.id[2:])], "key") == keep_key:
                    index = j
                    break
            elif keep_option is not None and opt.id == keep_option and opt.id.startswith("g:"):
                index = j
                break
        if index is None:
            index = min(keep_index, len(options) - 1)
            # land on a finding rather than a header when one follows
            if options[index].id.startswith("g:") and index + 1 < len(options) and options[index + 1].id.startswith("f:"):
                index += 1
        olist.highlighted = index
        self._highlight_changed()

    def _update_title(self) -> None:
        view = self.view
        if view is None:
            return
        left = self.query_one("#findings-left")
        left.border_title = view.title + (f" · {len(self.marks)} marked" if self.marks else "")
        if self.marks:
            types = self.app.config.page_types
            fixable = sum(1 for f in self.marked_findings() if triage.suggested_fix(f, types) is not None)
            fixes = f"F fixes {fixable}" if fixable else "no suggested fix"
            left.border_subtitle = f"{len(self.marks)} marked: {fixes} · d dismisses · esc unmarks"
        else:
            left.border_subtitle = view.subtitle

    def _elapsed(self) -> float:
        return max(0.0, time.monotonic() - self._started) if self._started else 0.0

    def _remember(self) -> None:
        olist = self.query_one(FindingList)
        self._keep_index = olist.highlighted or 0
        self._keep_option = (
            olist.get_option_at_index(olist.highlighted).id
            if olist.highlighted is not None and olist.option_count
            else None
        )
        f = self.current
        self._keep_key = _get(f, "key") if f is not None else None

    @property
    def current(self) -> Any | None:
        """The highlighted finding (None on a group header or when empty)."""
        olist = self.query_one(FindingList)
        if self.findings is None or olist.highlighted is None or olist.option_count == 0:
            return None
        option = olist.get_option_at_index(olist.highlighted)
        if option.id and option.id.startswith("f:"):
            return self.findings[int(option.id[2:])]
        return None

    def target_page(self) -> str | None:
        """The page the palette's ``page: …`` commands act on: the page the
        preview shows for the highlighted finding (its other page after
        ``o``); None on a group header or for a page no longer in the vault."""
        f = self.current
        if f is None:
            return None
        page = _get(f, "other") if self._preview_other else _get(f, "page")
        return page if page and any(p.id == page for p in self.app.pages or ()) else None

    def _current_group(self) -> str | None:
        olist = self.query_one(FindingList)
        if olist.highlighted is None or olist.option_count == 0:
            return None
        option = olist.get_option_at_index(olist.highlighted)
        return option.id[2:] if option.id and option.id.startswith("g:") else None

    @on(OptionList.OptionHighlighted, "#findings-list")
    def _highlighted(self) -> None:
        self._preview_other = False
        self._highlight_changed()

    def _highlight_changed(self) -> None:
        self._show_finding(self.current)
        self.refresh_bindings()

    @on(OptionList.OptionSelected, "#findings-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        option_id = event.option.id or ""
        if option_id.startswith("g:"):
            code = option_id[2:]
            self.collapsed.symmetric_difference_update({code})
            self._rebuild()
            try:
                self.query_one(FindingList).highlighted = self.query_one(FindingList).get_option_index(option_id)
            except OptionDoesNotExist:
                pass
            return
        f = self.current
        page = _get(f, "page")
        if page and any(p.id == page for p in self.app.pages or ()):
            self.app.open_page(page)

    def _show_finding(self, finding: Any | None) -> None:
        evidence = self.query_one("#finding-evidence", Static)
        preview = self.query_one(PagePreview)
        if finding is None:
            group = self._current_group()
            if group is not None and self.findings and self.view is not None:
                count = self.view.totals.get(group, 0)
                evidence.update(
                    Content.from_markup(
                        "[b $accent]$code[/]: $n finding$s — $what\n[$text-muted]enter folds or unfolds the group[/]",
                        code=group, n=str(count), s="" if count == 1 else "s", what=CODE_TITLES.get(group, ""),
                    )
                )
            else:
                evidence.update("")
            preview.clear()
            self.query_one("#finding-preview").border_title = "Page"
            return
        self._show_evidence(finding)
        page = _get(finding, "other") if self._preview_other else _get(finding, "page")
        if page:
            self.load_preview(page)

    def _show_evidence(self, finding: Any) -> None:
        evidence = self.query_one("#finding-evidence", Static)
        # Two cells to spare: the panel's scroll bar may come with this text.
        width = evidence.content_size.width - 2 if evidence.content_size.width > 4 else None
        evidence.update(detail_content(finding_detail(finding), width))

    def _list_width(self) -> int | None:
        """The list's text width in cells (None before it is laid out): its
        content region less the options' padding and the scroll bar."""
        width = self.query_one(FindingList).scrollable_content_region.width - 3
        return width if width > 8 else None

    def on_resize(self) -> None:
        # Places are cut to the list's and the panel's widths: cut them again.
        self.call_after_refresh(self._refit)

    def on_finding_list_resized(self) -> None:
        self.call_after_refresh(self._refit)

    def _refit(self) -> None:
        if not self.is_mounted:
            return
        if self.findings is not None and self._list_width() != self._fitted_width:
            self._rebuild()
        elif self.current is not None:
            self._show_evidence(self.current)

    # -- preview ---------------------------------------------------------------------
    def on_page_loaded(self, message: PageLoaded) -> None:
        if message.request_id == self._preview_request:
            self.query_one(PagePreview).show_page(message.page, message.page_id)
            which = "Other page" if self._preview_other else "Page"
            self.query_one("#finding-preview").border_title = f"{which} · {message.page_id}"

    def action_other(self) -> None:
        f = self.current
        if f is None or not _get(f, "other"):
            return
        self._preview_other = not self._preview_other
        self._show_finding(f)

    # -- filter ----------------------------------------------------------------------
    def action_filter(self) -> None:
        box = self.query_one("#findings-filter", Input)
        box.display = True
        # At once, not after a refresh (Widget.focus): keys typed right
        # after "/" must reach the box, not trigger the pane's fix keys.
        self.set_focus(box)

    def action_clear_filter(self) -> None:
        box = self.query_one("#findings-filter", Input)
        if not box.display and not self.text_filter:
            self.action_clear_marks()
            return
        box.value = ""
        box.display = False
        self.text_filter = ""
        self._rebuild()
        self.query_one(FindingList).focus()

    @on(Input.Changed, "#findings-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.text_filter = event.value
        self._rebuild()

    @on(Input.Submitted, "#findings-filter")
    def _filter_submitted(self) -> None:
        if not self.text_filter:
            self.query_one("#findings-filter", Input).display = False
        self.query_one(FindingList).focus()

    # -- marks ---------------------------------------------------------------------------
    def _order(self) -> list[str]:
        """Keys of the findings the list shows, in list order."""
        if self.view is None or self.findings is None:
            return []
        return [r.key for g in self.view.groups if g.code not in self.collapsed for r in g.rows if r.key]

    def marked_findings(self) -> list[Any]:
        return [f for f in self.findings or () if _get(f, "key") in self.marks]

    def action_toggle_mark(self) -> None:
        f = self.current
        if f is None or not _get(f, "key"):
            return
        self.marks.toggle(_get(f, "key"))
        olist = self.query_one(FindingList)
        at = olist.highlighted
        self._rebuild()
        if at is not None and at + 1 < olist.option_count:  # on to the next finding
            olist.highlighted = at + 1

    def action_mark_range(self) -> None:
        f = self.current
        if f is None or not _get(f, "key"):
            return
        self.marks.mark_range(self._order(), _get(f, "key"))
        self._rebuild()

    def action_clear_marks(self) -> None:
        if self.marks.clear():
            self._rebuild()

    def _resolved(self, action: str, keys) -> None:
        self.post_message(FindingsResolved(action, tuple(k for k in keys if k)))

    def on_findings_resolved(self, message: FindingsResolved) -> None:
        """Drop the fixed or dismissed findings now; the check the operation
        started reconciles (a fix may also resolve or raise others)."""
        if self.findings is None:
            return
        gone = set(message.keys)
        for key in gone:
            if key in self.marks:
                self.marks.toggle(key)
        self.findings = [f for f in self.findings if _get(f, "key") not in gone]
        self._rebuild()

    def action_fix_suggested(self) -> None:
        targets = self.marked_findings() if self.marks else [self.current]
        targets = [f for f in targets if f is not None]
        types = self.app.config.page_types
        fixable = [f for f in targets if triage.suggested_fix(f, types) is not None]
        offered = ("a suggested fix is offered for an untyped page with a suggested type, a dead link "
                   "with a suggested page and a diary title with a suggested title")
        if not fixable:
            if self.marks:
                n = len(targets)
                text = (f"None of the {n} marked findings has a suggested fix: {offered}. "
                        "d dismisses them." if n != 1 else
                        f"The marked finding has no suggested fix: {offered}. d dismisses it.")
            else:
                text = f"No suggested fix here: {offered}."
            self.notify(text, title="Fix", severity="warning")
            return
        left = len(targets) - len(fixable)
        rest = f" {left} marked without a suggested fix left as they are." if left else ""
        self._run(
            "fix findings", lambda c, s: triage.apply_suggested_fixes(c, s, fixable),
            message=lambda result: result.describe("Fixed", "finding") + rest,
            done=lambda result: self._resolved("fix", result.done),
        )

    # -- fixes -------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in FIX_KEYS:
            return True if action in fixes_for(self.current) else None
        if action == "dismiss_finding":
            if self.marks:
                return True
            return True if "dismiss" in fixes_for(self.current) else None
        if action in ("toggle_mark", "mark_range"):
            return True if self.current is not None and _get(self.current, "key") else None
        if action == "fix_suggested":
            if self.marks:  # F then says which marked findings it cannot fix, rather than nothing
                return True
            targets = [self.current]
            types = self.app.config.page_types
            return True if any(f is not None and triage.suggested_fix(f, types) for f in targets) else None
        if action == "other":
            return True if self.current is not None and _get(self.current, "other") else None
        return True

    def _run(self, label: str, fn, **kwargs) -> None:
        self._remember()
        key = _get(self.current, "key") if self.current is not None else None
        if "done" not in kwargs and key:
            # A fix of the highlighted finding: it leaves the list at once.
            kwargs["done"] = lambda result: self._resolved(label, [key])
        self.app.operations.run(label, fn, **kwargs)

    def _page_title(self, page_id: str) -> str:
        return page_title(self.app.pages or (), page_id)

    def action_rename(self) -> None:
        f = self.current
        if f is None or not _get(f, "page"):
            return
        page = _get(f, "page")
        current = self._page_title(page)
        suggestion = suggested_title(f) if _get(f, "code") == "diary-title" else None
        note = rename_note(current, page)

        def chosen(answer: RenameAnswer | None) -> None:
            if answer is None or not answer.title or answer.title == current:
                return
            from brainwork.ops.rename import rename

            self._run("rename", lambda c, s: rename(c, s, page, answer.title, keep_alias=answer.keep_alias))

        self.app.push_screen(
            RenamePrompt(
                f"Rename {page}", note, value=suggestion or current, placeholder="new title",
                keep_alias=self.app.config.rename.keep_alias,
            ),
            chosen,
        )

    def _page_choices(self, text: str) -> list:
        search = self.app.page_search
        if search is None:
            return []
        return [
            (hit.id, Content.assemble(hit.title or hit.id, ("  " + hit.id, "$text-muted")), hit.id)
            for hit in search.search(text, 20)
        ]

    def action_retarget(self) -> None:
        f = self.current
        if f is None or "retarget" not in fixes_for(f):
            return
        page, target, line = _get(f, "page"), _get(f, "target"), _get(f, "line")
        choices = []
        for pid, score in suggestions_of(f):
            label = Content.assemble(
                self._page_title(pid), ("  " + pid, "$text-muted"),
                (f"  {score:.2f}" if score is not None else "", "$text-muted"),
            )
            choices.append((pid, label, f"{pid} {self._page_title(pid)}"))

        def chosen(new: str | None) -> None:
            if not new:
                return
            from brainwork.ops.fixes import retarget_link

            self._run("retarget", lambda c, s: retarget_link(c, s, page, target, new, line or None))

        self.app.push_screen(
            ChoicePrompt(
                f"Retarget [[{target}]]",
                choices,
                note=f"The link is on {page}" + (f", line {line}" if line else "") + ". Suggestions first; "
                "type to find any page. Only the link's target changes (its label stays). Undoable with u.",
                search=self._page_choices,
                placeholder="type a page title",
            ),
            chosen,
        )

    def _type_choices(self, with_none: bool, suggested: str | None = None) -> list:
        """The vault's page types; ``suggested`` first, marked."""
        types = list(self.app.config.page_types)
        if suggested in types:
            types.remove(suggested)
            types.insert(0, suggested)
        choices = [
            (t, Content.assemble(t, ("  suggested", "$text-muted")) if t == suggested else t, t) for t in types
        ]
        if with_none:
            choices.insert(0, ("", Content.styled("(no type)", "$text-muted"), "none no type"))
        return choices

    def _folder_type(self, folder: str) -> str | None:
        return folder_type(self.app.pages or (), folder, self.app.config.page_types)

    def action_create(self) -> None:
        f = self.current
        if f is None or "create" not in fixes_for(f):
            return
        target, page = _get(f, "target"), _get(f, "page")
        path = new_page_path(target, _get(f, "path") or "")
        suggested = self._folder_type(posixpath.dirname(path))
        choices = self._type_choices(with_none=True, suggested=suggested)
        if suggested:  # the suggested type first, "(no type)" second
            choices[0], choices[1] = choices[1], choices[0]

        def chosen(type_: str | None) -> None:
            if type_ is None:
                return
            from brainwork.ops.fixes import create_page

            self._run("create page", lambda c, s: create_page(c, s, target, type_=type_ or None, from_page=page))

        self.app.push_screen(
            ChoicePrompt(
                f"Create {path}",
                choices,
                note=f"A new page for [[{target}]] (its type chosen here, a heading, nothing else), "
                "so the link and any other link to that name resolve. Undoable with u.",
            ),
            chosen,
        )

    def action_unlink(self) -> None:
        f = self.current
        if f is None or "unlink" not in fixes_for(f):
            return
        page, target, line = _get(f, "page"), _get(f, "target"), _get(f, "line")
        from brainwork.ops.fixes import remove_link

        self._run("remove link", lambda c, s: remove_link(c, s, page, target, line or None))

    def action_set_type(self) -> None:
        f = self.current
        if f is None or "set_type" not in fixes_for(f):
            return
        page = _get(f, "page")

        def chosen(type_: str | None) -> None:
            if not type_:
                return
            from brainwork.ops.fixes import set_type

            self._run("set type", lambda c, s: set_type(c, s, page, type_))

        self.app.push_screen(
            ChoicePrompt(
                f"Set the type of {page}",
                self._type_choices(with_none=False, suggested=_get(f, "target")),
                note="Only the type: line changes (added if missing). Undoable with u.",
            ),
            chosen,
        )

    def action_merge(self) -> None:
        f = self.current
        if f is None or "merge" not in fixes_for(f):
            return
        self.plan_merge(source=_get(f, "other"), target=_get(f, "page"), choose=True)

    def plan_merge(self, source: str, target: str, choose: bool = False) -> None:
        """Plan merging ``source`` into ``target`` in a worker, then ask.
        ``choose``: keep whichever page more links point to (fewer links to
        rewrite; the modal's ``s`` swaps)."""
        from brainwork.ops.merge import merge_direction, plan_merge

        def plan(config, store):
            src, dst = merge_direction(store, target, source) if choose else (source, target)
            return plan_merge(config, store, src, dst)

        self._run(
            "plan merge",
            plan,
            message=lambda plan: "",
            done=self._confirm_merge,
            reload=False,
        )

    def _confirm_merge(self, plan) -> None:
        def answered(answer: str | None) -> None:
            if answer == "swap":
                self.plan_merge(source=plan.target, target=plan.source)
            elif answer == "merge":
                from brainwork.ops.merge import merge

                self._run("merge", lambda c, s: merge(c, s, plan))

        self.app.push_screen(MergeConfirmScreen(plan), answered)

    def action_split(self) -> None:
        f = self.current
        if f is None or "split" not in fixes_for(f):
            return
        page = _get(f, "page")
        from brainwork.ops.split import split_page

        self._run("split", lambda c, s: split_page(c, s, page))

    def action_dismiss_finding(self) -> None:
        if self.marks:
            self._dismiss_marked()
            return
        f = self.current
        if f is None or not _get(f, "key"):
            return
        key = _get(f, "key")

        def chosen(reason: str | None) -> None:
            if reason is None:
                return
            from brainwork.ops.fixes import dismiss

            self._run("dismiss", lambda c, s: dismiss(c, s, key, reason), done=lambda op: self._resolved("dismiss", [key]))

        self.app.push_screen(
            TextPrompt(
                f"Dismiss {_get(f, 'code')} · {location(f)}",
                "The finding is hidden from now on (it survives re-indexing). Undoable with u.",
                placeholder="why? (optional, e.g. “not duplicates: different tools”)",
                allow_empty=True,
            ),
            chosen,
        )

    def _dismiss_marked(self) -> None:
        keys = [_get(f, "key") for f in self.marked_findings()]
        n = len(keys)

        def chosen(reason: str | None) -> None:
            if reason is None:
                return
            self._run(
                "dismiss findings", lambda c, s: triage.dismiss_findings(c, s, keys, reason),
                message=lambda result: result.describe("Dismissed", "finding"),
                done=lambda result: self._resolved("dismiss", result.done),
            )

        self.app.push_screen(
            TextPrompt(
                f"Dismiss {n} marked finding{'s' if n != 1 else ''}",
                f"They are hidden from now on, in one operation: one u undoes all {n}.",
                placeholder="why? (optional, e.g. “templates, not notes”)",
                allow_empty=True,
            ),
            chosen,
        )

    def action_edit(self) -> None:
        f = self.current
        if f is None or not _get(f, "path"):
            return
        path = self.app.config.vault / _get(f, "path")
        cmd = editor_command(path, _get(f, "line"))
        try:
            with self.app.suspend():
                subprocess.run(cmd, check=False)
        except SuspendNotSupported:
            self.notify("This terminal cannot hand over to an editor.", title="Edit", severity="warning")
            return
        except OSError as exc:
            self.notify(f"Cannot start the editor {cmd[0]!r}: {exc}. Set $EDITOR.", title="Edit", severity="error")
            return
        self._remember()
        self.app.action_reindex(quiet=True)
