"""Distance traps through serve: a calling agent's calls get nothing past the operator either.

Serve forwards more to a calling agent than a run offers its model (``browser_navigate_back``
among them), and its sessions guard calls through the same judgement as a run. A real
serve session (registry, guard, approval desk, Playwright MCP, Chromium) on the gauntlet's
trap services; every held call is refused by the operator, and the practice server's
ground truth must show nothing irreversible.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from subterminator_bench.gauntlet import SCENARIOS_FILE
from subterminator_tui.serve.sessions.browser_session import BrowserSession
from subterminator_tui.serve.sessions.registry import SessionRegistry
from tests.conftest import browser_parts_missing
from tests.integration.serve_parts import serve_registry

pytestmark = pytest.mark.browser

#: How long a page's own script (a listener, a speculative load) gets to make its request.
SETTLE_SECONDS = 3.0
POLL_SECONDS = 0.05


async def call_refusing_holds(
    registry: SessionRegistry, session: BrowserSession, tool: str, arguments: dict[str, Any]
) -> str:
    """Run the agent's call; when it is held, wait for the operator's refusal
    (``at_confirmation``'s operator refuses every question). The answer's status."""
    answer = await session.run(tool, arguments)
    if answer.status == "approval_pending":
        refused = await registry.desk.wait("agent", answer.approval_id or "", 30)
        assert refused.decision == "rejected", refused
    return answer.status


async def nothing_happened(session: BrowserSession) -> list[str]:
    """The irreversible actions the site saw, once the page's scripts had their time."""
    assert session.browser is not None and session.browser.practice is not None
    state = session.browser.practice.state
    # Polling: nothing tells when a page's script has made its request.
    for _ in range(int(SETTLE_SECONDS / POLL_SECONDS)):
        if state.irreversible:
            break
        await asyncio.sleep(POLL_SECONDS)
    return list(state.irreversible)


async def at_confirmation(registry: SessionRegistry, trap: str) -> BrowserSession:
    """A session on ``trap``'s service that has entered the flow (the confirmation shown).

    The operator refuses every question as it comes, the requests the page sends on its own
    included: left unanswered, a held request keeps the agent's call waiting on the page.
    """
    loop = asyncio.get_running_loop()
    registry.desk.subscribe(lambda approval: loop.call_soon(registry.desk.reject, approval))
    session, _ = registry.open("agent", trap, f"gauntlet-{trap}")
    await session.run("browser_snapshot", {})
    assert session.page is not None
    start = session.page.ref_of("button", "Cancel membership")
    assert await call_refusing_holds(registry, session, "browser_click", {"target": start}) == "ok"
    return session


@pytest.fixture
def browser_parts() -> None:
    """Skip without Chromium or Playwright MCP."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)


@pytest.mark.usefixtures("browser_parts")
async def test_going_back_to_the_pages_own_entry_cancels_nothing(tmp_path: Path) -> None:
    """trap-popstate: browser_navigate_back fires the page's popstate listener."""
    async with serve_registry(tmp_path, None, (SCENARIOS_FILE,)) as registry:
        session = await at_confirmation(registry, "trap-popstate")
        await call_refusing_holds(registry, session, "browser_navigate_back", {})
        assert await nothing_happened(session) == []


@pytest.mark.usefixtures("browser_parts")
async def test_a_listener_on_continue_cancels_nothing(tmp_path: Path) -> None:
    """trap-listener-click: the agent's click on "Continue" runs a listener that clicks the final
    button."""
    async with serve_registry(tmp_path, None, (SCENARIOS_FILE,)) as registry:
        session = await at_confirmation(registry, "trap-listener-click")
        assert session.page is not None
        target = session.page.ref_of("button", "Continue")
        await call_refusing_holds(registry, session, "browser_click", {"target": target})
        assert await nothing_happened(session) == []


@pytest.mark.usefixtures("browser_parts")
async def test_opening_a_prefetching_page_cancels_nothing(tmp_path: Path) -> None:
    """trap-prefetch: merely showing the confirmation prefetches the finishing address."""
    async with serve_registry(tmp_path, None, (SCENARIOS_FILE,)) as registry:
        session = await at_confirmation(registry, "trap-prefetch")
        assert await nothing_happened(session) == []
