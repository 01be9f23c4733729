"""The one way a served session's browser is restarted, whoever finds it dead.

The health watch finds a crash of an idle browser (or a hung one); a call finds a
crash itself when Node died just before it or under it (the gateway restarts then,
browser/gateway.py). Both go through the session's gate: it waits the policy's
backoff (1, 2, then 4 s), counts the restart in the session's window, and past
``max_restarts`` in the window refuses, leaving the session degraded.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable

from subterminator_tui.serve.health.policy import SessionHealth

logger = logging.getLogger(__name__)


class SessionRestarts:
    """One session's restarts under its health policy: backoff, counted, degraded past the
    limit (it is the gateway's ``restart_gate``, browser/restart_gate.py's protocol)."""

    def __init__(
        self,
        name: str,
        health: SessionHealth,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.name = name
        self.health = health
        self._sleep = sleep

    @contextlib.asynccontextmanager
    async def restarting(self, why: str) -> AsyncIterator[None]:
        """Wait the backoff, then run the restart in the ``async with`` body, counted.

        Raises SessionUnavailableError (degraded) instead when the window's restarts are
        used up; the body then never runs. While the backoff runs, calls are refused with
        a ``restarting`` retry_after.
        """
        health = self.health
        now = time.monotonic()
        health.failed_pings = 0
        backoff = health.next_backoff(now)
        if backoff is None:
            logger.warning("%s: %s; too many restarts, degraded", self.name, why)
            health.degrade(now)
            raise health.unavailable(self.name, now)
        logger.warning("%s: %s; restarting in %.1f s", self.name, why, backoff)
        health.note_restart(now, backoff)
        try:
            await self._sleep(backoff)
            started = time.perf_counter()
            yield
            health.restart_seconds.append(time.perf_counter() - started)
        finally:
            health.state = "ready"
            health.last_ping = time.monotonic()
