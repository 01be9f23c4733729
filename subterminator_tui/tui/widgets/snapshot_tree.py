"""The accessibility snapshot as a collapsible, searchable tree.

Nodes are added to the Tree in one pass but rendered lazily by Textual, so
a page of thousands of elements stays responsive.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from subterminator_tui.browser.snapshot import NormalizedSnapshot, SnapshotElement

# Structure-only roles start collapsed below this depth so big pages open readable.
_EXPAND_DEPTH = 6


def element_label(element: SnapshotElement, *, target: bool = False) -> Text:
    """``role "name" [states] ref``, styled; the pending call's target stands out."""
    label = Text()
    if target:
        label.append("▶ ", style="bold reverse")
    label.append(element.role, style="bold" if element.ref else "dim")
    if element.label:
        label.append(f' "{element.label}"')
    if element.level:
        label.append(f" h{element.level}", style="dim")
    if element.states:
        label.append(" [" + ", ".join(sorted(element.states)) + "]", style="italic")
    if element.ref:
        label.append(f" {element.ref}", style="dim")
    return label


class SnapshotTree(Tree[SnapshotElement]):
    """The page the pilot sees."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("Page", id=id)
        self.show_root = False
        self.guide_depth = 2
        self.snapshot: NormalizedSnapshot | None = None
        self.target_ref: str | None = None
        self._by_ref: dict[str, TreeNode[SnapshotElement]] = {}
        self._matches: list[TreeNode[SnapshotElement]] = []
        self._match_index = -1
        self.last_search = ""

    def show_snapshot(self, snapshot: NormalizedSnapshot, target_ref: str | None = None) -> None:
        """Rebuild the tree for ``snapshot``; highlight ``target_ref`` when given."""
        self.snapshot = snapshot
        self.target_ref = target_ref
        self.clear()
        self.root.label = Text(snapshot.title or snapshot.url)
        self._by_ref = {}
        self._matches = []
        parents: list[TreeNode[SnapshotElement]] = [self.root]
        for element in snapshot.elements:
            depth = min(element.depth + 1, len(parents))
            del parents[depth:]
            node = parents[-1].add(
                element_label(element, target=element.ref == target_ref and target_ref is not None),
                data=element,
                expand=element.depth < _EXPAND_DEPTH,
            )
            if element.ref:
                self._by_ref[element.ref] = node
            parents.append(node)
        for node in self._walk(self.root):
            # Leaves get no expand arrow.
            node.allow_expand = bool(node.children)
        self.root.expand()
        if target_ref:
            self.reveal(target_ref)

    def reveal(self, ref: str) -> bool:
        """Expand down to the element with ``ref``, select it and scroll it into view."""
        node = self._by_ref.get(ref)
        if node is None:
            return False
        parent = node.parent
        while parent is not None:
            parent.expand()
            parent = parent.parent
        self.call_after_refresh(self._select, node)
        return True

    def _select(self, node: TreeNode[SnapshotElement]) -> None:
        self.select_node(node)
        self.scroll_to_node(node, animate=False)

    def search(self, text: str) -> int:
        """Select the first element whose role, name or ref contains ``text``; returns matches."""
        wanted = text.strip().casefold()
        self._matches = []
        self._match_index = -1
        if not wanted:
            return 0
        for node in self._walk(self.root):
            element = node.data
            if element is None:
                continue
            haystack = f"{element.role} {element.label} {element.ref or ''}".casefold()
            if wanted in haystack:
                self._matches.append(node)
        return self.next_match()

    def next_match(self) -> int:
        """Move to the next search match (wrapping); returns how many there are."""
        if not self._matches:
            return 0
        self._match_index = (self._match_index + 1) % len(self._matches)
        node = self._matches[self._match_index]
        parent = node.parent
        while parent is not None:
            parent.expand()
            parent = parent.parent
        self.call_after_refresh(self._select, node)
        return len(self._matches)

    def _walk(self, node: TreeNode[SnapshotElement]) -> list[TreeNode[SnapshotElement]]:
        found: list[TreeNode[SnapshotElement]] = []
        stack = list(reversed(node.children))
        while stack:
            current = stack.pop()
            found.append(current)
            stack.extend(reversed(current.children))
        return found
