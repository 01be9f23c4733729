"""A session's change counter: bumped after every call, awaited by whoever watches the page."""

from __future__ import annotations

import asyncio
import contextlib


class PageChanges:
    """How many times the session's page may have changed; watchers await the next change."""

    def __init__(self) -> None:
        self.version = 0
        self._changed = asyncio.Event()

    def bump(self) -> None:
        """A call finished (or the browser closed): the page may look different now."""
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_after(self, version: int, seconds: float) -> int:
        """The version once it is past ``version``, or the same one after ``seconds``."""
        if self.version == version:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), seconds)
        return self.version
