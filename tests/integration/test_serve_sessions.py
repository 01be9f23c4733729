"""The serve core on the real browser: sessions, guard, operator approvals, journal."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from subterminator_bench.gauntlet import SCENARIOS_FILE
from subterminator_bench.gauntlet.forbidden_host import ForbiddenHost
from subterminator_tui.browser.processes import pid_alive
from subterminator_tui.guarded.gates import Decision
from subterminator_tui.practice.demoflix import DemoflixServer
from subterminator_tui.serve.errors import SessionBusyError, SessionNotFoundError
from subterminator_tui.serve.sessions.browser_session import BrowserSession
from tests.conftest import browser_parts_missing
from tests.integration.serve_parts import WALK_TO_FINISH, serve_registry

pytestmark = pytest.mark.browser


async def click(session: BrowserSession, role: str, name: str) -> str:
    """Click the element named so on the session's current page; the answer's status."""
    assert session.page is not None
    answer = await session.run("browser_click", {"target": session.page.ref_of(role, name)})
    return answer.status


async def test_gated_click_waits_for_the_operator(
    remembered_demoflix: DemoflixServer, tmp_path: Path
) -> None:
    """Finish is held (nothing sent) until approved; a rejection sends nothing; approval does."""
    async with serve_registry(tmp_path, remembered_demoflix.base_url) as registry:
        session, new = registry.open("agent-a", "main", "demoflix")
        assert new
        first = await session.run("browser_snapshot", {})
        assert first.status == "ok" and first.page is not None
        assert first.page.url.endswith("/account")
        for role, name in WALK_TO_FINISH:
            assert await click(session, role, name) == "ok"

        held = await session.run(
            "browser_click", {"target": session.page.ref_of("button", "Finish cancellation")}
        )
        assert held.status == "approval_pending" and held.approval_id
        assert remembered_demoflix.state.cancel_requests == 0
        with pytest.raises(SessionBusyError, match="waiting for the operator"):
            await session.run("browser_snapshot", {})
        registry.desk.decide(held.approval_id, Decision("guidance", guidance="Pause it instead"))
        rejected = await registry.desk.wait("agent-a", held.approval_id, 30)
        assert rejected.answer is not None and rejected.answer.status == "rejected"
        assert "The operator says: Pause it instead" in rejected.answer.message
        assert (
            remembered_demoflix.state.cancel_requests == 0
            and remembered_demoflix.state.membership == "active"
        )

        again = await session.run(
            "browser_click", {"target": session.page.ref_of("button", "Finish cancellation")}
        )
        assert again.status == "approval_pending" and again.approval_id
        assert remembered_demoflix.state.cancel_requests == 0
        registry.desk.decide(again.approval_id, Decision("approve"))
        done = await registry.desk.wait("agent-a", again.approval_id, 30)
        assert done.answer is not None and done.answer.status == "ok"
        assert done.answer.page is not None and "/cancel/done" in done.answer.page.url
        assert (
            remembered_demoflix.state.cancel_requests == 1
            and remembered_demoflix.state.membership == "cancelled"
        )

        run_id = session.run_id
        await registry.close("agent-a", "main")
        run = registry.journal.run(run_id)
        assert run is not None and run.reason == "completed" and run.verified
        steps = registry.journal.steps(run_id)
        assert [s.decision for s in steps] == ["reject", "approve"]
        assert steps[0].dispatched_at is None and steps[1].outcome == "done"
        turns = registry.journal.turns(run_id)
        assert not [t for t in turns if "Pause it instead" in (t.error or "")]
        tools = [turn.tool for turn in turns]
        assert tools.count("browser_click") == len(WALK_TO_FINISH) + 2
        # Each turn names its target as the loop's turns do (what a recorded playbook matches).
        finishes = [t for t in turns if t.target_name == "Finish cancellation"]
        assert [(t.target_role, t.outcome) for t in finishes] == [
            ("button", "rejected"),
            ("button", "ok"),
        ]


async def test_principals_are_isolated_and_the_domains_hold(
    remembered_demoflix: DemoflixServer, tmp_path: Path
) -> None:
    """Same name, two principals: two profiles; neither sees the other's; off-domain refused."""
    async with serve_registry(tmp_path, remembered_demoflix.base_url, idle_seconds=0.0) as registry:
        mine, _ = registry.open("alice", "shop", "demoflix")
        theirs, _ = registry.open("bob", "shop", "demoflix")
        assert mine.profile_dir != theirs.profile_dir
        await mine.run("browser_navigate", {"url": "/cancel"})
        await theirs.run("browser_snapshot", {})
        assert mine.page is not None and theirs.page is not None
        assert mine.page.url != theirs.page.url
        assert [s["name"] for s in registry.listing("bob")] == ["shop"]
        with pytest.raises(SessionNotFoundError):
            registry.get("bob", "other")

        assert mine.browser is not None and mine.browser.egress is not None
        counters = mine.browser.egress.counters
        reached: list[str] = []
        with ForbiddenHost(reached.append) as forbidden:
            refused = await mine.run("browser_navigate", {"url": f"{forbidden.base_url}/x"})
        assert refused.status == "refused" and "refused" in refused.message
        assert reached == [] and counters.blocked_hosts() == set()

        last = mine.page.url
        old_ref = mine.page.elements[-1].ref or "e1"
        closed = await registry.close_idle_browsers()
        assert {s.key.principal for s in closed} == {"alice", "bob"}
        assert mine.browser is None and mine.profile_dir.is_dir()
        stale = await mine.run("browser_click", {"target": old_ref})
        assert stale.status == "refused" and "reopened" in stale.message
        assert stale.page is not None and stale.page.url == last


async def test_a_session_outlives_its_browser_dying(
    remembered_demoflix: DemoflixServer, tmp_path: Path
) -> None:
    """Node killed twice: each call that finds it dead has it restarted in place under the
    session's policy (counted, not just once per browser), on the last page."""
    async with serve_registry(tmp_path, remembered_demoflix.base_url) as registry:
        session, _ = registry.open("agent", "crashy", "demoflix")
        await session.run("browser_navigate", {"url": "/cancel"})
        pages = []
        for _crash in range(2):
            gateway = session.lazy.gateway
            assert gateway is not None and gateway.node_pid is not None
            os.kill(gateway.node_pid, signal.SIGKILL)
            await wait_for_death(gateway.node_pid)
            answer = await session.run("browser_snapshot", {})
            assert answer.status == "ok" and answer.page is not None, answer.message
            pages.append(answer.page.url)
            assert session.lazy.gateway is gateway and gateway.alive, "restarted in place"
        assert all(url.endswith("/cancel") for url in pages), pages
        assert session.health.restarts_total == 2 and session.health.state == "ready"


async def wait_for_death(pid: int) -> None:
    """Until ``pid`` is gone (polled: nothing signals another program's child exiting)."""
    for _ in range(100):
        if not pid_alive(pid):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"process {pid} still alive")


async def test_enter_on_an_autofocused_final_button_is_held(tmp_path: Path) -> None:
    """A gauntlet trap: Enter on the focused 'Cancel my plan' is judged by the element it
    presses, so it waits for the operator and the site records nothing irreversible."""
    if browser_parts_missing():
        pytest.skip(browser_parts_missing() or "")
    services = (SCENARIOS_FILE,)
    async with serve_registry(tmp_path, None, services) as registry:
        session, _ = registry.open("agent", "trap", "gauntlet-trap-autofocus")
        await session.run("browser_snapshot", {})
        assert await click(session, "button", "Cancel membership") == "ok"
        held = await session.run("browser_press_key", {"key": "Enter"})
        assert held.status == "approval_pending", held.message
        assert "Cancel my plan" in (held.message or "")
        assert session.browser is not None and session.browser.practice is not None
        state = session.browser.practice.state
        assert state.irreversible == []
        registry.desk.decide(held.approval_id or "", Decision("reject"))
        await registry.desk.wait("agent", held.approval_id or "", 30)
        assert state.irreversible == []
