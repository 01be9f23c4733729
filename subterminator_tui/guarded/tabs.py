"""Keep every tab inside the service's domains: off-domain tabs are closed before anyone reads them.

Playwright MCP lists the open tabs after an action that opened one (``target=_blank``,
``window.open``). The model must never see an off-domain page's content, so other
tabs outside the allowed domains are closed, and the current tab, when it left,
is taken back (or to ``about:blank``) before the page reaches the pilot.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.errors import MCPToolError
from subterminator_tui.guarded.browser import Browser

_TAB = re.compile(r"^- (?P<index>\d+): (?P<current>\(current\) )?\[.*\]\((?P<url>[^)]*)\)\s*$")


@dataclass(frozen=True)
class OpenTab:
    """One tab as Playwright MCP lists it."""

    index: int
    url: str
    current: bool


def open_tabs(snapshot: NormalizedSnapshot) -> list[OpenTab]:
    """The tabs the snapshot's ``Open tabs`` section lists (empty when there is one tab)."""
    tabs = []
    for line in snapshot.notes.get("Open tabs", "").splitlines():
        match = _TAB.match(line.strip())
        if match:
            tabs.append(OpenTab(int(match["index"]), match["url"], bool(match["current"])))
    return tabs


async def contain_tabs(
    browser: Browser, snapshot: NormalizedSnapshot, allowed: Callable[[str], bool]
) -> tuple[NormalizedSnapshot, list[str]]:
    """Close off-domain tabs and bring the current tab back; the fresh page and what was removed.

    ``allowed(url)`` says whether the service may be at ``url`` (``about:blank`` always may).
    """
    removed: list[str] = []

    def outside(url: str) -> bool:
        return url != "about:blank" and not allowed(url)

    # Highest index first: closing a tab renumbers the ones after it.
    for tab in sorted(open_tabs(snapshot), key=lambda tab: -tab.index):
        if not tab.current and outside(tab.url):
            await browser.call("browser_tabs", {"action": "close", "index": tab.index})
            removed.append(tab.url)
    page = await browser.snapshot() if removed else snapshot
    if outside(page.url):
        removed.append(page.url)
        page = await _leave(browser, page, outside)
    return page, removed


async def _leave(
    browser: Browser, page: NormalizedSnapshot, outside: Callable[[str], bool]
) -> NormalizedSnapshot:
    """Back to the page before, else a blank page: never an off-domain page for the pilot."""
    with contextlib.suppress(MCPToolError):
        page = (await browser.call("browser_navigate_back", {})).snapshot
    if outside(page.url):
        page = (await browser.call("browser_navigate", {"url": "about:blank"})).snapshot
    return page
