"""The typed neighbourhood of one page as a tree.

Layout (1 hop)::

    ● Renew TLS certificate for api.acme.example  task
    ├── used → (3)
    │   ├── certbot  tool
    │   └── Billing API  system
    ├── corrected_by → (1)
    │   └── Serve the intermediate along with the leaf  correction
    ├── related → (2)
    │   └── ✗ systems/legacy-ftp (dead link)
    └── ← related (4)
        └── ...

At 2 hops every live neighbour can be expanded (lazily: its children are
built when it is first expanded) to show the pages one more hop away,
labelled with the edge as seen from that neighbour.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.color import Color, ColorParseError
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from brainwork.store.graph import Neighbour, StoredPage
from brainwork.tui.widgets.cells import shown
from brainwork.vocabulary import EDGE_NAMES

#: At 2 hops, expand every neighbour at once when there are at most this
#: many second-hop rows in all (more would flood the tree; expand by hand).
AUTO_EXPAND_SECOND_HOP = 60


@dataclass(frozen=True)
class NodeInfo:
    """What a tree node stands for: ``kind`` is ``centre``, ``group`` or
    ``page``; ``page_id`` for centre and page nodes; ``dead`` for a dead
    link (``page_id`` is then the written target); ``hop`` 1 or 2."""

    kind: str
    page_id: str | None = None
    dead: bool = False
    hop: int = 0


def edge_label(edge: str, direction: str) -> str:
    """``used →`` for an outgoing edge, ``← used`` for an incoming one."""
    return f"{edge} →" if direction == "out" else f"← {edge}"


def _group_key(row: Neighbour) -> tuple[int, int]:
    return (EDGE_NAMES.index(row.edge), 0 if row.direction == "out" else 1)


class NeighbourTree(Tree[NodeInfo]):
    """Tree of a page's neighbours grouped by edge type and direction."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__("", **kwargs)
        self.auto_expand = False  # enter opens a neighbour; space expands
        self.guide_depth = 3
        self._second: dict[str, list[Neighbour]] = {}
        self._filled: set[int] = set()
        self.centre_id: str | None = None

    # -- styling ------------------------------------------------------------
    def _colour(self, name: str) -> Style:
        """A Rich style in the theme's colour ``name`` (``text-muted`` is the
        foreground blended 60% over the background, as Textual does)."""
        variables = self.app.theme_variables
        try:
            if name == "text-muted":
                background = Color.parse(variables.get("background", "#000000"))
                foreground = Color.parse(variables.get("foreground", "#ffffff"))
                colour = background.blend(foreground, 0.6)
            else:
                colour = Color.parse(variables[name])
        except (KeyError, ColorParseError):
            return Style()
        return Style(color=colour.rich_color)

    def _page_text(self, row: Neighbour, prefix: str = "") -> Text:
        if row.dead:
            return Text.assemble(
                # the target as written (``title``; the id is the normalised form)
                prefix, ("✗ ", self._colour("error")), (shown(row.title or row.id), self._colour("error")),
                (" (dead link)", self._colour("error") + Style(italic=True)),
            )
        text = Text(prefix)
        text.append(shown(row.title or row.id))
        text.append(f"  {row.type or 'untyped'}", self._colour("text-muted"))
        if row.count > 1:
            text.append(f" ×{row.count}", self._colour("text-muted"))
        return text

    def render_label(self, node: TreeNode[NodeInfo], base_style: Style, style: Style) -> Text:
        """The label cut to the width left after the guides, ending in "…"
        (Textual's tree crops lines without a mark; the preview shows the
        whole title)."""
        text = super().render_label(node, base_style, style)
        depth, parent = 0, node.parent
        while parent is not None:
            depth, parent = depth + 1, parent.parent
        room = self.scrollable_content_region.width - depth * self.guide_depth
        if room > 0 and text.cell_len > room:
            text.truncate(room, overflow="ellipsis")
        return text

    # -- content ------------------------------------------------------------
    def show_neighbourhood(self, page: StoredPage, rows: list[Neighbour], hops: int) -> None:
        """Rebuild the tree for ``page`` from its neighbourhood rows."""
        self.clear()
        self._filled.clear()
        self.centre_id = page.id
        root = self.root
        root.data = NodeInfo("centre", page.id, hop=0)
        root.set_label(
            Text.assemble(
                ("● ", self._colour("accent")), (shown(page.title or page.id), Style(bold=True)),
                (f"  {page.type or 'untyped'}", self._colour("text-muted")),
            )
        )
        first = [r for r in rows if r.hop == 1]
        self._second = defaultdict(list)
        for r in rows:
            if r.hop == 2:
                self._second[r.via].append(r)
        groups: dict[tuple[int, int], list[Neighbour]] = defaultdict(list)
        for r in first:
            groups[_group_key(r)].append(r)
        if not groups:
            root.add_leaf(Text("no links in or out (an orphan)", self._colour("text-muted")), NodeInfo("group"))
        expandable: list[TreeNode[NodeInfo]] = []
        for key in sorted(groups):
            members = sorted(groups[key], key=lambda r: (r.dead, (r.title or r.id).lower()))
            head = members[0]
            label = Text.assemble(
                (edge_label(head.edge, head.direction), self._colour("primary") + Style(bold=True)),
                (f" ({len(members)})", self._colour("text-muted")),
            )
            group = root.add(label, NodeInfo("group"), expand=True)
            for r in members:
                info = NodeInfo("page", r.id, dead=r.dead, hop=1)
                second = [] if r.dead or hops < 2 else self._second.get(r.id, [])
                if second:
                    text = self._page_text(r)
                    text.append(f"  +{len(second)}", self._colour("secondary"))
                    expandable.append(group.add(text, info, allow_expand=True))
                else:
                    group.add_leaf(self._page_text(r), info)
        root.expand()
        if hops >= 2 and sum(len(v) for v in self._second.values()) <= AUTO_EXPAND_SECOND_HOP:
            for node in expandable:
                node.expand()
        self.move_cursor(root)

    def _fill(self, node: TreeNode[NodeInfo]) -> None:
        if node.id in self._filled or node.data is None or node.data.kind != "page":
            return
        self._filled.add(node.id)
        rows = sorted(
            self._second.get(node.data.page_id or "", []),
            key=lambda r: (_group_key(r), r.dead, (r.title or r.id).lower()),
        )
        for r in rows:
            prefix = edge_label(r.edge, r.direction) + " "
            node.add_leaf(self._page_text(r, prefix), NodeInfo("page", r.id, dead=r.dead, hop=2))

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[NodeInfo]) -> None:
        if event.node.tree is self:
            self._fill(event.node)

    # -- queries --------------------------------------------------------------
    @property
    def highlighted_info(self) -> NodeInfo | None:
        node = self.cursor_node
        return node.data if node is not None else None

    def select_page(self, page_id: str) -> bool:
        """Move the cursor to the first node showing ``page_id``."""
        stack = list(self.root.children)
        while stack:
            node = stack.pop(0)
            if node.data is not None and node.data.page_id == page_id and node.data.kind == "page":
                self.move_cursor(node)
                return True
            stack.extend(node.children)
        return False
