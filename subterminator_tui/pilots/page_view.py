"""How a page is shown to a model: URL, title and a compact accessibility tree.

By default the tree is compacted (pilots/compaction.py) to a few hundred
tokens; the full tree is kept for the naive configuration the benchmark
compares against. Earlier pages in the history are replaced by a one-line
stub so the context does not grow with every page.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.pilots.compaction import DEFAULT_BUDGET, CompactPage, compact_page

#: Bounds of the page's own texts in the compact view: a page's title, address or a
#: dialog's message can be any length (a 200,000-character title has been seen).
TITLE_CHARS = 150
URL_CHARS = 300
NOTE_CHARS = 600


def bounded(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit:,} more characters]"


@dataclass(frozen=True)
class PageView:
    """How pages reach the model."""

    #: Compact the tree (False: the full tree, boxes and all, as Playwright MCP sends it).
    compact: bool = True
    #: Token budget of a compact tree.
    budget_tokens: int = DEFAULT_BUDGET
    #: Replace earlier pages in the history by a stub (False: keep every page in full).
    stub_history: bool = True
    #: Offer only the tools the page can use (False: every tool on every turn). Off by
    #: default: the tool definitions open the prompt, so a set that changes from page
    #: to page misses the provider's prompt cache on every call, and a cached read of
    #: all of them costs a tenth of sending the few a page needs.
    page_tools: bool = False
    #: A line added under a compact tree that left something out, saying how to get it
    #: (an agent over MCP can ask for the full tree; the pilot's system prompt says it).
    collapsed_hint: str = ""


COMPACT_VIEW = PageView()
NAIVE_VIEW = PageView(compact=False, stub_history=False, page_tools=False)


def page_for_model(snapshot: NormalizedSnapshot, view: PageView = COMPACT_VIEW) -> str:
    """The fresh page as the model reads it."""
    return page_after(snapshot, view).text


def page_after(
    snapshot: NormalizedSnapshot,
    view: PageView = COMPACT_VIEW,
    seen_landmarks: Collection[str] = (),
) -> CompactPage:
    """The fresh page as the model reads it after a page whose landmarks were
    ``seen_landmarks`` (those it repeats are folded), and this page's landmarks."""
    if not view.compact:
        lines = [f"URL: {snapshot.url}", f"Title: {snapshot.title}"]
        lines += [f"{name}:\n{body}" for name, body in snapshot.notes.items()]
        return CompactPage("\n".join([*lines, "Snapshot:", snapshot.content]), frozenset())
    lines = [
        f"URL: {bounded(snapshot.url, URL_CHARS)}",
        f"Title: {bounded(snapshot.title, TITLE_CHARS)}",
    ]
    for name, body in snapshot.notes.items():
        lines.append(f"{bounded(name, 60)}:\n{bounded(body, NOTE_CHARS)}")
    lines.append("Snapshot:")
    compact = compact_page(snapshot, view.budget_tokens, seen_landmarks)
    lines.append(compact.text)
    if view.collapsed_hint and "not shown" in compact.text:
        lines.append(view.collapsed_hint)
    return CompactPage("\n".join(lines), compact.landmarks)


def page_stub(snapshot: NormalizedSnapshot) -> str:
    """What replaces an earlier page in the history."""
    return f"[old page: {bounded(snapshot.title, 80)}]"
