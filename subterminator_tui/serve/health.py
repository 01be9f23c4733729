"""The health watch: every session's Playwright MCP child pinged, crashes noticed, restarts.

The process watchdog (browser/mcp_process.py) notices within 0.2 s that Node died;
this watch looks every ``check_seconds`` and pings an idle session's child every
``ping_seconds``. A crash, or ``failed_pings`` pings in a row without an answer,
restarts the browser after the policy's backoff and reopens the session's last
page; past ``max_restarts`` in the window the session is degraded (health_policy.py).

A call in flight when Node dies is the gateway's to answer: it restarts the server
once, reopens the page and reports the call's outcome as unknown, never repeating
it. That restart counts here too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time

from subterminator_tui.errors import SubTerminatorError
from subterminator_tui.serve.health_policy import HealthPolicy
from subterminator_tui.serve.names import SessionKey
from subterminator_tui.serve.registry import SessionRegistry
from subterminator_tui.serve.session import BrowserSession

logger = logging.getLogger(__name__)


class HealthMonitor:
    """Watches every session of a registry from one background task."""

    def __init__(self, registry: SessionRegistry, policy: HealthPolicy) -> None:
        self.registry = registry
        self.policy = policy
        self._task: asyncio.Task[None] | None = None
        #: Restarts the gateways made themselves (mid-call), already counted, per gateway.
        self._counted: dict[int, int] = {}
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
        except SubTerminatorError as error:
            logger.warning("health check of %s failed: %s", session.key.name, error)
        finally:
            self._checks.pop(session.key, None)

    async def check(self, session: BrowserSession) -> None:
        """One look at ``session``: count the gateway's own restarts, restart a dead browser,
        ping a live idle one when due."""
        gateway = session.lazy.gateway
        health = session.health
        if gateway is None or health.state != "ready":
            return
        counted = self._counted.get(id(gateway), 0)
        if gateway.restarts > counted:
            now = time.monotonic()
            for _ in range(gateway.restarts - counted):
                if health.next_backoff(now) is None:
                    health.degrade(now)
                else:
                    health.note_restart(now)
                    health.state = "ready"
            self._counted[id(gateway)] = gateway.restarts
        if session.in_flight is not None or session.pending is not None:
            return
        if health.degraded:
            # Its own restarts used the window up: the browser is not kept either.
            if session.claim_for("closing its degraded browser"):
                try:
                    await session.close_browser()
                finally:
                    session.release()
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
        """Restart ``session``'s browser after the backoff, or leave it degraded."""
        if not session.claim_for("restarting its browser"):
            return
        health = session.health
        try:
            now = time.monotonic()
            backoff = health.next_backoff(now)
            health.failed_pings = 0
            if backoff is None:
                logger.warning("%s: %s; too many restarts, degraded", session.key.name, why)
                health.degrade(now)
                await session.close_browser()
                return
            logger.warning("%s: %s; restarting in %.1f s", session.key.name, why, backoff)
            health.note_restart(now)
            await session.close_browser()
            await asyncio.sleep(backoff)
            started = time.perf_counter()
            try:
                await session.open_browser()
            except SubTerminatorError as error:
                # Left closed: the next call starts it (and counts against the same window).
                logger.warning("%s: the restart failed: %s", session.key.name, error)
            else:
                health.restart_seconds.append(time.perf_counter() - started)
            health.state = "ready"
            health.last_ping = time.monotonic()
        finally:
            session.release()
