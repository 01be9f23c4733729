"""A browser that answers from captured pages: for the loop's fast unit tests.

It implements the loop's Browser protocol, not the gateway: it opens nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from subterminator_tui.browser.gateway import ActionResult
from subterminator_tui.browser.inspection import NO_FACTS, PageFacts
from subterminator_tui.browser.snapshot import NormalizedSnapshot

#: Decides the page after a call (or raises, as the gateway would).
Answer = Callable[[str, dict[str, Any]], NormalizedSnapshot]


@dataclass
class FakeBrowser:
    """Every call is recorded; ``answer`` gives the fresh page (or raises)."""

    page: NormalizedSnapshot
    answer: Answer | None = None
    snapshot_error: Exception | None = None
    facts: PageFacts = NO_FACTS
    #: What a person sees; by default every name and text of the page (never its title).
    seen: Callable[[NormalizedSnapshot], str | None] | None = None
    sign_ins_kept: int = 0
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    mcp_seconds: float = 0.0
    #: No request watch and no typing reports: nothing watches a fake browser's requests.
    requests: None = None
    typing: None = None

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> ActionResult:
        """Record the call; the page is what ``answer`` says (the same page without one)."""
        args = dict(arguments or {})
        self.calls.append((name, args))
        if self.answer is not None:
            self.page = self.answer(name, args)
        return ActionResult(name, args, "", self.page)

    def checked_arguments(self, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
        """No schema here: the arguments as given."""
        return dict(arguments or {})

    async def inspect(self, ref: str | None = None) -> PageFacts:
        """The configured DOM facts (none by default)."""
        return self.facts

    async def seen_text(self) -> str | None:
        """The configured seen text, else the page's names and texts without its title."""
        if self.seen is not None:
            return self.seen(self.page)
        return "\n".join(part for e in self.page.elements for part in (e.name, e.text) if part)

    async def keep_sign_in(self) -> None:
        """Counted, nothing saved."""
        self.sign_ins_kept += 1

    async def snapshot(self) -> NormalizedSnapshot:
        """The current page, or the configured failure."""
        if self.snapshot_error is not None:
            raise self.snapshot_error
        return self.page

    async def screenshot(self) -> Path:
        """A path that is never read."""
        return Path("screenshot.png")

    def dispatched(self) -> list[str]:
        """The tool names that reached the browser, in order."""
        return [name for name, _args in self.calls]
