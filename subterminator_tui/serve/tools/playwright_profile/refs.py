"""Refs as Playwright MCP shows them, mapped onto the element ids serve's guard judges by.

serve's browser gives its main frame a frame number, so its refs read ``f1e2`` where
Playwright MCP on its own browser says ``e2`` (iframes are ``f2e3`` in both). The agent
is shown the main frame's refs without that prefix, as Playwright MCP would show them,
and every ref it sends back is mapped to serve's id before anything checks or sends
it; a ref of another frame keeps its prefix both ways.
"""

from __future__ import annotations

import re

from subterminator_tui.browser.snapshot import NormalizedSnapshot

_FIRST_REF = re.compile(r"\[ref=(f\d+)?e\d+\]")
_BARE_REF = re.compile(r"e\d+")


def main_frame_prefix(page: NormalizedSnapshot | None) -> str:
    """The prefix of the main frame's refs in serve's page (``f1``), or "" for none.

    The first ref of a snapshot is always the main frame's root element.
    """
    if page is None:
        return ""
    found = _FIRST_REF.search(page.content)
    return found.group(1) or "" if found else ""


def shown_content(page: NormalizedSnapshot) -> str:
    """The page's yaml with the main frame's refs as Playwright MCP writes them."""
    prefix = main_frame_prefix(page)
    if not prefix:
        return page.content
    return re.sub(rf"\[ref={prefix}(e\d+)\]", r"[ref=\1]", page.content)


def serve_ref(ref: str, page: NormalizedSnapshot | None) -> str:
    """The id serve knows for a ref the agent sends (a main-frame ref gets its prefix)."""
    prefix = main_frame_prefix(page)
    return prefix + ref if prefix and _BARE_REF.fullmatch(ref) else ref
