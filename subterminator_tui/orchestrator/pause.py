"""A hold a front end puts on a run while it asks the person whether to stop.

The loop awaits :meth:`RunPause.until_released` before each turn and before each
dispatch, so nothing is proposed or clicked while "Stop the run?" is on screen: an
answer meant for that question can then never meet another one that came up under it.
"""

from __future__ import annotations

import asyncio
from typing import Protocol, runtime_checkable


class RunPause:
    """Held or released; the run waits at its next pause point while held."""

    def __init__(self) -> None:
        self._released = asyncio.Event()
        self._released.set()
        #: How many pause points are waiting now (a front end's tests read it).
        self.waiting = 0

    @property
    def held(self) -> bool:
        """True while the run may not go on."""
        return not self._released.is_set()

    def hold(self) -> None:
        """Stop the run at its next pause point."""
        self._released.clear()

    def release(self) -> None:
        """Let the run go on."""
        self._released.set()

    async def until_released(self) -> None:
        """Return at once when released; otherwise wait until :meth:`release`."""
        if self._released.is_set():
            return
        self.waiting += 1
        try:
            await self._released.wait()
        finally:
            self.waiting -= 1


@runtime_checkable
class PausingGate(Protocol):
    """A human gate whose front end can also hold the run (the app's does)."""

    pause: RunPause


def pause_of(gate: object) -> RunPause:
    """The gate's pause, or one nobody holds (the headless gate asks only when the run asks)."""
    return gate.pause if isinstance(gate, PausingGate) else RunPause()
