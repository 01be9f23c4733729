"""The page's console messages, read by SubTerminator itself and only when they can have changed.

``browser_console_messages`` stays off the allowlist, so no model calls it; serve's
call log reads it after each call. Playwright MCP links "New console entries" in the
next answer after any message (``--console-level debug``: every level), so while the
last read found none and no answer has linked one since, the page still has none (a
new page starts empty) and the read is skipped.
"""

from __future__ import annotations

import mcp_types as types

from subterminator_tui.browser.answers import Dispatch, text_of
from subterminator_tui.browser.mcp_process import ServerStopped
from subterminator_tui.browser.snapshot import split_sections
from subterminator_tui.errors import MCPConnectionError, MCPToolError

#: How Playwright MCP's answers link console messages that came since its last answer.
_NEW_CONSOLE_ENTRIES = "New console entries:"


class ConsoleMessages:
    """The current page's console messages, with the last empty read kept while it holds."""

    def __init__(self, dispatch: Dispatch) -> None:
        self._dispatch = dispatch
        # A read that found no message, while no answer has linked one since.
        self._quiet: str | None = None

    async def read(self) -> str:
        """Every console message of the current page, as Playwright MCP prints them ('' if none
        could be read: a call log without console messages, never a failed call)."""
        if self._quiet is not None:
            return self._quiet
        try:
            result = await self._dispatch("browser_console_messages", {"level": "debug"})
        except (MCPToolError, MCPConnectionError, ServerStopped):
            return ""
        if result.is_error:
            return ""
        text = text_of(result)
        empty = split_sections(text).get("Result", "").startswith("Total messages: 0 ")
        self._quiet = text if empty else None
        return text

    def saw(self, result: types.CallToolResult) -> None:
        """Note an answer: one that links new console entries makes the next read real."""
        if _NEW_CONSOLE_ENTRIES in text_of(result):
            self._quiet = None

    def forget(self) -> None:
        """A restart or a lost answer: the next read is real."""
        self._quiet = None
