"""How a page is shown to a model: URL, title and a compact accessibility tree.

By default the tree is compacted (pilots/compaction.py) to a few hundred
tokens; the full tree is kept for the naive configuration the benchmark
compares against. Earlier pages in the history are replaced by a one-line
stub so the context does not grow with every page.
"""

from __future__ import annotations

from dataclasses import dataclass

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.pilots.compaction import compact_snapshot


@dataclass(frozen=True)
class PageView:
    """How pages reach the model."""

    #: Compact the tree (False: the full tree, boxes and all, as the seeds' origin sent it).
    compact: bool = True
    #: Token budget of a compact tree.
    budget_tokens: int = 600
    #: Replace earlier pages in the history by a stub (False: keep every page in full).
    stub_history: bool = True
    #: Offer only the tools the page can use (False: every tool on every turn).
    page_tools: bool = True


COMPACT_VIEW = PageView()
NAIVE_VIEW = PageView(compact=False, stub_history=False, page_tools=False)


def page_for_model(snapshot: NormalizedSnapshot, view: PageView = COMPACT_VIEW) -> str:
    """The fresh page as the model reads it."""
    lines = [f"URL: {snapshot.url}", f"Title: {snapshot.title}"]
    for name, body in snapshot.notes.items():
        lines.append(f"{name}:\n{body}")
    lines.append("Snapshot:")
    lines.append(
        compact_snapshot(snapshot, view.budget_tokens) if view.compact else snapshot.content
    )
    return "\n".join(lines)


def page_stub(snapshot: NormalizedSnapshot) -> str:
    """What replaces an earlier page in the history."""
    return f"[old page: {snapshot.title}]"
