"""A region of the page in full: what a compact line's ref holds, for ``show_region``.

The compact tree counts what a canceller rarely needs (a footer's links, a long list,
a landmark the last page showed); its line keeps the ref of what it stands for. Asked
for that ref, the pilot gets every element under it, texts bounded as everywhere, up
to a budget: a region longer than that names a ref inside it to open instead.
"""

from __future__ import annotations

from subterminator_tui.browser.snapshot import NormalizedSnapshot, SnapshotElement
from subterminator_tui.pilots.compact_lines import describe_element
from subterminator_tui.pilots.compaction import estimate_tokens

#: The most one region may send, in estimated tokens (a real page's footer fits).
REGION_BUDGET = 1500
#: Elements that only hold others say nothing on their own line.
_SILENT_ROLES = frozenset({"generic", "list", "none", "presentation", "separator"})


def _line(element: SnapshotElement, depth: int) -> str | None:
    if element.role in _SILENT_ROLES and not element.name:
        return None
    return "  " * depth + "- " + describe_element(element)


def region_text(snapshot: NormalizedSnapshot, ref: str, budget_tokens: int = REGION_BUDGET) -> str:
    """Every element under ``ref`` (itself first), one a line; ValueError when no such ref."""
    elements = snapshot.elements
    start = next((i for i, element in enumerate(elements) if element.ref == ref), None)
    if start is None:
        raise ValueError(f"No element with ref {ref} on this page; use a ref the page shows.")
    top = elements[start].depth
    end = start + 1
    while end < len(elements) and elements[end].depth > top:
        end += 1
    lines: list[str] = []
    used = 0
    for position in range(start, end):
        element = elements[position]
        line = _line(element, element.depth - top)
        if line is None:
            continue
        cost = estimate_tokens(line) + 1
        if used + cost > budget_tokens:
            left = end - position
            inner = next(
                (e.ref for e in elements[position:end] if e.ref and e.depth == element.depth), ""
            )
            where = f"; show_region {inner} opens the first of them" if inner else ""
            over = f"over {budget_tokens} tokens"
            lines.append(f"- ... {left} more elements not shown ({over}){where}")
            break
        lines.append(line)
        used += cost
    return "\n".join(lines)
