"""The health watch: every session's Playwright MCP child pinged, crashes noticed, restarts.

The process watchdog (browser/mcp_process.py) notices within 0.2 s that Node died;
this watch looks every ``check_seconds`` and pings an idle session's child every
``ping_seconds``. A crash, or ``failed_pings`` pings in a row without an answer,
restarts the browser after the policy's backoff and reopens the session's last
page; past ``max_restarts`` in the window the session is degraded (health/policy.py).

A call in flight when Node dies is the gateway's to answer: it restarts the server,
reopens the page and reports the call's outcome as unknown, never repeating it.
Either way the restart goes through the session's one gate (health/restarts.py): the
same backoff, counted in the same window, degraded past the same limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time

from subterminator_tui.browser.mcp_process import ServerStopped
from subterminator_tui.errors import SubTerminatorError
from subterminator_tui.serve.health.policy import HealthPolicy, SessionUnavailableError
from subterminator_tui.serve.names import SessionKey
from subterminator_tui.serve.sessions.browser_session import BrowserSession
from subterminator_tui.serve.sessions.registry import SessionRegistry

logger = logging.getLogger(__name__)


class HealthMonitor:
    """Watches every session of a registry from one background task."""

    def __init__(self, registry: SessionRegistry, policy: HealthPolicy) -> None:
        self.registry = registry
        self.policy = policy
        self._task: asyncio.Task[None] | None = None
        #: One check per session at a time, each in its own task: a session's slow ping or
        #: restart (backoff and all) never delays another's.
        self._checks: dict[SessionKey, asyncio.Task[None]] = {}

    def start(self) -> None:
        """Watch from now on (inside the running event loop)."""
        if self._task is None:
            self._task = asyncio.create_task(self._watch(), name="serve-health-watch")

    async def stop(self) -> None:
        """Stop watching (a restart under way is cancelled; the registry closes the rest)."""
        task, self._task = self._task, None
        tasks = [*self._checks.values(), *([task] if task is not None else [])]
        self._checks.clear()
        for each in tasks:
            each.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self.policy.check_seconds)
            for session in list(self.registry.sessions.values()):
                if session.key not in self._checks:
                    check = asyncio.create_task(self._checked(session), name="serve-health-check")
                    self._checks[session.key] = check

    async def _checked(self, session: BrowserSession) -> None:
        try:
            await self.check(session)
        except (SubTerminatorError, ServerStopped) as error:
            # Node can die again under a check or a restart: logged, never an unretrieved
            # task exception; the next check looks again.
            logger.warning("health check of %s failed: %s", session.key.name, error)
        finally:
            self._checks.pop(session.key, None)

    async def check(self, session: BrowserSession) -> None:
        """One look at an idle ``session``: restart a dead browser, ping a live one when due,
        and keep no browser for a degraded session."""
        gateway = session.lazy.gateway
        health = session.health
        if gateway is None or session.in_flight is not None or session.pending is not None:
            return
        if health.degraded:
            # Its restarts used the window up: the browser is not kept either.
            if session.claim_for("closing its degraded browser"):
                try:
                    await session.close_browser()
                finally:
                    session.release()
            return
        if health.state != "ready":
            return
        if not gateway.alive:
            await self.restart(session, "its Playwright MCP process died")
            return
        now = time.monotonic()
        if now - health.last_ping < self.policy.ping_seconds:
            return
        health.last_ping = now
        if await gateway.ping(self.policy.ping_timeout):
            health.failed_pings = 0
            return
        health.failed_pings += 1
        logger.warning("%s: ping %d failed", session.key.name, health.failed_pings)
        if health.failed_pings >= self.policy.failed_pings:
            # A hung Node cannot close gracefully (nor answer SIGTERM while stopped):
            # it is killed, and its watchdog stops its Chromium, as after a crash.
            if gateway.node_pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(gateway.node_pid, signal.SIGKILL)
            await self.restart(session, f"{health.failed_pings} pings went unanswered")

    async def restart(self, session: BrowserSession, why: str) -> None:
        """Restart ``session``'s browser through its gate (after the backoff, counted), or
        leave it degraded and closed."""
        if not session.claim_for("restarting its browser"):
            return
        try:
            async with session.restarts.restarting(why):
                await session.close_browser()
                await session.open_browser()
        except SessionUnavailableError:
            await session.close_browser()
        except (SubTerminatorError, ServerStopped) as error:
            # Node died again while the page reopened: left closed, the next call starts it
            # through the same gate (this restart counted already, so the limit holds).
            logger.warning("%s: the restart failed: %s", session.key.name, error)
            await session.close_browser()
        finally:
            session.release()
