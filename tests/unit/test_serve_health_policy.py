"""The restart policy with its real defaults: 30 s pings, 3 failures, 1-2-4 s, 3 in 5 minutes."""

from __future__ import annotations

from typing import cast

import pytest

from subterminator_tui.browser.mcp_process import ServerStopped
from subterminator_tui.errors import MCPConnectionError
from subterminator_tui.serve.health.policy import (
    HealthPolicy,
    SessionHealth,
    SessionUnavailableError,
)
from subterminator_tui.serve.health.restarts import SessionRestarts
from subterminator_tui.serve.names import SessionKey
from subterminator_tui.serve.server.session_monitor import HealthMonitor
from subterminator_tui.serve.sessions.browser_session import BrowserSession
from subterminator_tui.serve.sessions.registry import SessionRegistry


def test_the_defaults_are_the_issues() -> None:
    """Nothing but the documented defaults, so a change to one is a visible decision."""
    policy = HealthPolicy()
    assert (policy.ping_seconds, policy.failed_pings) == (30.0, 3)
    assert (policy.backoff, policy.max_restarts, policy.window_seconds) == ((1, 2, 4), 3, 300)


def test_three_restarts_back_off_1_2_4_and_a_fourth_in_five_minutes_degrades() -> None:
    """1 crash: recovered; 3: recovered; 4 within 5 minutes: degraded, retry when one expires."""
    health = SessionHealth(HealthPolicy())
    waits = []
    for now in (0.0, 10.0, 20.0):
        backoff = health.next_backoff(now)
        assert backoff is not None
        waits.append(backoff)
        health.note_restart(now)
        health.state = "ready"
    assert waits == [1.0, 2.0, 4.0]
    assert health.next_backoff(299.0) is None, "a 4th crash within 5 minutes gets no restart"
    health.degrade(299.0)
    with pytest.raises(SessionUnavailableError, match=r"degraded: .*retry_after: 1 s") as refused:
        health.refuse_if_unavailable("main", 299.0)
    assert refused.value.retry_after == pytest.approx(1.0)
    # Once the first restart is 5 minutes old, a call may try again (and a restart is possible).
    health.refuse_if_unavailable("main", 300.0)
    assert health.state == "ready"
    assert health.next_backoff(300.0) == 4.0, "two restarts are still inside the window"


def test_restarts_older_than_the_window_are_forgotten() -> None:
    """Crashes spread over hours never degrade a session; the backoff starts again at 1 s."""
    health = SessionHealth(HealthPolicy())
    for hour in range(5):
        now = hour * 3600.0
        assert health.next_backoff(now) == 1.0
        health.note_restart(now)
        health.state = "ready"
    assert health.restarts_total == 5


def test_a_restarting_session_refuses_with_a_retry_after() -> None:
    """While the browser restarts, calls are refused (never queued to run later) with a wait."""
    health = SessionHealth(HealthPolicy())
    health.note_restart(0.0)
    refusal = "restarting: .*Nothing was sent"
    with pytest.raises(SessionUnavailableError, match=refusal) as refused:
        health.refuse_if_unavailable("main", 0.5)
    assert refused.value.retry_after > 0


async def test_one_gate_backs_off_counts_and_degrades_whoever_restarts() -> None:
    """The gate every restart goes through (the watch's and a call's): 1, 2, 4 s, counted in
    one window; the 4th within 5 minutes never runs and says so as data."""
    health = SessionHealth(HealthPolicy())
    waits: list[float] = []
    states: list[str] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        states.append(health.state)

    gate = SessionRestarts("main", health, sleep=sleep)
    ran = 0
    for _ in range(3):
        async with gate.restarting("a call found its Playwright MCP dead"):
            ran += 1
        assert health.state == "ready"
    assert (waits, states, ran) == ([1.0, 2.0, 4.0], ["restarting"] * 3, 3)
    assert health.restarts_total == 3 and len(health.restart_seconds) == 3
    with pytest.raises(SessionUnavailableError, match="degraded: session 'main'") as refused:
        async with gate.restarting("it died again"):
            ran += 1
    assert ran == 3 and health.degraded and waits == [1.0, 2.0, 4.0]
    facts = refused.value.facts()
    assert facts["error"] == "degraded" and facts["session"] == "main"
    assert isinstance(facts["retry_after"], int) and 0 < facts["retry_after"] <= 300


async def test_a_restart_that_fails_still_counts_and_leaves_the_session_ready() -> None:
    """A browser that would not start again: counted (a crash loop still degrades), no
    restart time recorded, and the next call may try (ready, not stuck restarting)."""
    health = SessionHealth(HealthPolicy())

    async def no_wait(seconds: float) -> None:
        return None

    gate = SessionRestarts("main", health, sleep=no_wait)
    with pytest.raises(MCPConnectionError):
        async with gate.restarting("it died"):
            raise MCPConnectionError("Chromium did not start")
    assert health.restarts_total == 1 and health.restart_seconds == []
    assert health.state == "ready"


def test_retry_after_while_restarting_is_the_real_wait() -> None:
    """retry_after counts down the backoff plus a restart's usual time; it is not a fixed 9."""
    health = SessionHealth(HealthPolicy())
    health.restart_seconds.extend([2.0, 2.5, 3.0])
    health.note_restart(100.0, backoff=4.0)
    assert health.retry_after(100.0) == pytest.approx(6.5)
    assert health.retry_after(105.0) == pytest.approx(1.5)
    assert health.retry_after(120.0) == 1.0  # late: try again soon, never 0 while restarting


async def test_node_dying_while_a_restart_reopens_the_page_does_not_escape() -> None:
    """ServerStopped under a restart is the restart failing: logged, browser left closed,
    counted in the window; nothing escapes the health task."""
    health = SessionHealth(HealthPolicy())

    async def no_wait(seconds: float) -> None:
        return None

    class DyingSession:
        key = SessionKey("alice", "main")
        restarts = SessionRestarts("main", health, sleep=no_wait)
        closed = 0

        def claim_for(self, what: str) -> bool:
            return True

        def release(self) -> None:
            pass

        async def close_browser(self) -> None:
            self.closed += 1

        async def open_browser(self) -> None:
            raise ServerStopped("Node died while the page reopened")

    session = DyingSession()
    monitor = HealthMonitor(cast(SessionRegistry, None), HealthPolicy())
    await monitor.restart(cast(BrowserSession, session), "it died")
    assert session.closed == 2  # before the restart, and after it failed
    assert health.restarts_total == 1 and health.state == "ready"
