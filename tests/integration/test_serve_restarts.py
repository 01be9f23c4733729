"""One restart policy for a session's browser, whoever finds it dead; degraded said as data.

Real parts: `subterminator serve` (in-process where the test reads the session's own
state, a child over stdio for what a client sees), the mcp SDK's client, Playwright
MCP and Chromium, the console lab site on loopback; real SIGKILLs of the session's Node.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from subterminator_tui.browser.processes import pid_alive, process_table
from subterminator_tui.serve.health.policy import HealthPolicy
from subterminator_tui.serve.names import LOCAL_PRINCIPAL
from subterminator_tui.serve.server.lifecycle import server_parts
from tests.integration.serve_parts import wait_until_none_under
from tests.support.polling import until
from tests.support.records_site import RecordsSite, in_process_config, node_of, serve_params
from tests.support.serve_clients import ref_in, text_of

pytestmark = pytest.mark.browser


async def health_of(client: Client, name: str = "main") -> str:
    """The session's health as session_list reports it to any client."""
    listing = await client.call_tool("session_list", {})
    assert listing.structured_content is not None, text_of(listing)
    (session,) = [s for s in listing.structured_content["sessions"] if s["name"] == name]
    return str(session["health"])


async def watched(client: Client, tool: str, arguments: dict[str, Any]) -> tuple[Any, set[str]]:
    """Run one call; meanwhile read the session's health from another request. Its answer and
    every health state seen while it ran."""
    call = asyncio.ensure_future(client.call_tool(tool, arguments))
    seen: set[str] = set()
    while not call.done():
        seen.add(await health_of(client))
        # Poll the server's state between reads: nothing signals a state change to a client.
        await asyncio.wait({call}, timeout=0.05)
    return await call, seen


def degraded_facts(result: types.CallToolResult) -> dict[str, Any]:
    """The structured content of a degraded refusal, checked against its own text."""
    assert result.is_error, text_of(result)
    facts = result.structured_content
    assert facts is not None, "the error carries structured content"
    assert facts["status"] == "error" and facts["error"] == "degraded", facts
    assert facts["session"] == "main"
    retry_after = facts["retry_after"]
    assert isinstance(retry_after, int) and 0 < retry_after <= 300, facts
    # The words for a person say the same number.
    assert f"retry_after: {retry_after} s" in text_of(result)
    return facts


async def test_crashes_calls_find_back_off_count_and_the_fourth_degrades(
    records_site: RecordsSite, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Node SIGKILLed before a call, during one, before one, and again: the calls restart it
    themselves (the health watch is kept out of it), each after the policy's next backoff,
    seen as 'restarting' meanwhile and counted in the session's window; the 4th degrades."""
    policy = HealthPolicy(
        ping_seconds=3600.0, check_seconds=3600.0, backoff=(0.5, 1.0, 1.5), window_seconds=300.0
    )
    profiles = tmp_path / "profiles"
    config = in_process_config(tmp_path, records_site, policy)
    caplog.set_level("WARNING", logger="subterminator_tui.serve.health.restarts")
    async with server_parts(config) as parts, Client(parts.server) as client:
        await client.call_tool("session_open", {"name": "main", "service": "consolelab"})
        first = await client.call_tool("navigate", {"session": "main", "url": "/"})
        assert not first.is_error, text_of(first)
        session = parts.registry.get(LOCAL_PRINCIPAL, "main")

        async def killed_before_a_call() -> tuple[Any, set[str]]:
            gateway, node = session.lazy.gateway, node_of(session)
            os.kill(node, signal.SIGKILL)
            assert gateway is not None
            await until(lambda: not gateway.alive)
            return await watched(client, "snapshot", {"session": "main"})

        # 1: found dead by the next call: restarted after backoff[0], the page reopened.
        answer, seen = await killed_before_a_call()
        assert not answer.is_error, text_of(answer)
        assert "Page one" in text_of(answer)
        assert "restarting" in seen and session.health.restarts_total == 1

        # 2: killed under a click: its outcome is unknown, never repeated; backoff[1].
        slow = ref_in(text_of(answer), "link", "Slow")
        clicking = asyncio.ensure_future(watched(client, "click", {"session": "main", "ref": slow}))
        await asyncio.to_thread(records_site.slow_requested.wait, 30.0)
        os.kill(node_of(session), signal.SIGKILL)
        lost, seen = await clicking
        assert lost.is_error and "not known" in text_of(lost), text_of(lost)
        assert "Page one" in text_of(lost), "the answer carries the reopened page"
        assert "restarting" in seen and session.health.restarts_total == 2

        # 3: found dead again: restarted after backoff[2].
        answer, seen = await killed_before_a_call()
        assert not answer.is_error, text_of(answer)
        assert "restarting" in seen and session.health.restarts_total == 3

        # 4 within the window: no restart; the call's error says so, as data too.
        answer, _seen = await killed_before_a_call()
        degraded_facts(answer)
        assert session.health.restarts_total == 3 and session.health.degraded
        assert session.lazy.gateway is None, "a degraded session keeps no browser"
        again = await client.call_tool("snapshot", {"session": "main"})
        degraded_facts(again)
        assert "Nothing was sent" in text_of(again)
        assert await health_of(client) == "degraded"

        backoffs = re.findall(r"restarting in ([\d.]+) s", caplog.text)
        assert backoffs == ["0.5", "1.0", "1.5"], caplog.text
        assert "too many restarts, degraded" in caplog.text
        assert len(session.health.restart_seconds) == 3
    assert wait_until_none_under(profiles) == []


def session_node(profiles: Path) -> int | None:
    """The pid of the Playwright MCP (Node) a serve child runs for session 'main'."""
    profile = str(profiles / LOCAL_PRINCIPAL / "main")
    found = [
        proc.pid
        for proc in process_table()
        if proc.alive and "node" in proc.program and profile in proc.cmdline
    ]
    return found[0] if len(found) == 1 else None


async def test_a_degraded_sessions_errors_carry_retry_after_as_structured_content(
    records_site: RecordsSite, tmp_path: Path
) -> None:
    """`serve` over stdio with its real default policy (1, 2, 4 s; 3 in 5 minutes): Node
    SIGKILLed 4 times; the SDK client then reads `error`, `retry_after` and `session` from
    the tool result's structuredContent, with isError set."""
    profiles = tmp_path / "profiles"
    try:
        async with Client(serve_params(tmp_path, records_site)) as client:
            await client.call_tool("session_open", {"name": "main", "service": "consolelab"})
            answer = await client.call_tool("navigate", {"session": "main", "url": "/two"})
            assert not answer.is_error, text_of(answer)
            for _kill in range(3):
                node = session_node(profiles)
                assert node is not None
                os.kill(node, signal.SIGKILL)

                # The health watch restarts it after the backoff, on the last page.
                async def back(node: int = node) -> bool:
                    fresh = session_node(profiles)
                    return fresh not in (None, node) and await health_of(client) == "ready"

                await until(back, within=60.0, what="the session back after its browser was killed")
                page = await client.call_tool("snapshot", {"session": "main"})
                assert not page.is_error and "Page two" in text_of(page), text_of(page)
            node = session_node(profiles)
            assert node is not None
            os.kill(node, signal.SIGKILL)

            async def degraded() -> bool:
                return await health_of(client) == "degraded"

            await until(degraded, within=60.0, what="the session degraded")
            refused = await client.call_tool("navigate", {"session": "main", "url": "/"})
            facts = degraded_facts(refused)
            assert set(facts) == {"status", "message", "error", "retry_after", "session"}
            assert "Nothing was sent" in facts["message"]
            await client.call_tool("session_close", {"name": "main"})
    finally:
        for proc in wait_until_none_under(profiles, timeout=10.0):
            if pid_alive(proc.pid):
                os.kill(proc.pid, signal.SIGKILL)
    assert wait_until_none_under(profiles) == []
