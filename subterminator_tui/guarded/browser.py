"""What the loop needs of a browser: a protocol, so its policies can be tested without one.

:class:`~subterminator_tui.browser.gateway.BrowserGateway` is the real implementation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from subterminator_tui.browser.gateway import ActionResult
from subterminator_tui.browser.inspection import PageFacts
from subterminator_tui.browser.interception import RequestWatch
from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.browser.typed_values import TypingWatch


class Browser(Protocol):
    """A guarded browser that answers every action with the fresh page."""

    #: Seconds spent waiting for the browser's answers so far (the browser's share of a turn).
    mcp_seconds: float

    @property
    def requests(self) -> RequestWatch | None:
        """Where the request gate judges every request the browser sends (None: a browser
        whose requests nobody watches, so what a step sent is unknown, never "nothing")."""
        ...

    @property
    def typing(self) -> TypingWatch | None:
        """What is typed into the browser's pages (None: a browser that does not report it)."""
        ...

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> ActionResult:
        """Dispatch one tool call; MCPToolError or MCPConnectionError when it fails."""
        ...

    def checked_arguments(self, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
        """The arguments as they would be sent; MCPToolError when the browser would refuse them."""
        ...

    async def inspect(self, ref: str | None = None) -> PageFacts:
        """The target's visible text, the focused element and the forms, read from the DOM."""
        ...

    async def seen_text(self) -> str | None:
        """The text a person can see on the page (rendered, on-screen, not aria-hidden, never
        the title), or None when it cannot be read."""
        ...

    async def keep_sign_in(self) -> None:
        """Save the browser's sign-ins now, so a crash cannot log the person out."""
        ...

    async def snapshot(self) -> NormalizedSnapshot:
        """A fresh snapshot of the current page."""
        ...

    async def screenshot(self) -> Path:
        """Save a screenshot of the viewport and return its path."""
        ...
