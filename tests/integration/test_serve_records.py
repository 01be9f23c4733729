"""Serve in operation: call records read back as diffs, across a killed server; browsers that heal.

Real parts throughout: `subterminator serve` (a child over stdio, or the same server
in-process for the health tests, whose policy is shortened), the mcp SDK's client,
Playwright MCP and Chromium, and a small site on loopback (tests/support/records_site.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sqlite3
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

SECRET = "hunter2-not-for-the-journal"


def ref_id(result: types.CallToolResult) -> str:
    """The ref_id of a browser tool's answer (the call's record)."""
    assert result.structured_content is not None, text_of(result)
    return str(result.structured_content["ref_id"])


async def read(client: Client, ref: str, **options: Any) -> tuple[str, str]:
    """get_content: (mode, text)."""
    result = await client.call_tool("get_content", {"ref_id": ref, **options})
    assert not result.is_error and result.structured_content is not None, text_of(result)
    return str(result.structured_content["mode"]), text_of(result)


async def console(client: Client, ref: str, level: str = "") -> list[str]:
    """get_console_content: the lines starting a message."""
    result = await client.call_tool("get_console_content", {"ref_id": ref, "level": level})
    assert not result.is_error, text_of(result)
    return [line for line in text_of(result).splitlines() if line.startswith("[")]


def serve_pid(profiles: Path) -> int:
    """The pid of the serve process started for ``profiles``."""
    found = [
        proc.pid
        for proc in process_table()
        if proc.alive and "subterminator_tui" in proc.cmdline and str(profiles) in proc.cmdline
    ]
    assert len(found) == 1, found
    return found[0]


async def test_records_read_back_as_diffs_and_survive_a_killed_server(
    records_site: RecordsSite, tmp_path: Path
) -> None:
    """Every cursor rule, console levels and search_for; then SIGKILL the server: a new one
    continues each cursor, the old session is closed and its records are still readable."""
    profiles = tmp_path / "profiles"
    killed = False
    try:
        async with Client(serve_params(tmp_path, records_site)) as client:
            opened = await client.call_tool(
                "session_open", {"name": "lab", "service": "consolelab"}
            )
            assert not opened.is_error, text_of(opened)
            one = await client.call_tool("navigate", {"session": "lab", "url": "/"})
            assert not one.is_error, text_of(one)
            first = ref_id(one)
            # The answer stays small: metadata, the ref_id, the compact page; no console.
            assert f"ref_id: {first}" in text_of(one) and "bad thing" not in text_of(one)

            mode, page_one = await read(client, first)
            assert mode == "full" and "Page one" in page_one and "Alpha line" in page_one
            assert await read(client, first) == ("unchanged", "")

            typed = await client.call_tool(
                "type",
                {"session": "lab", "ref": ref_in(text_of(one), "textbox", "Note"), "text": SECRET},
            )
            assert not typed.is_error, text_of(typed)
            # The same page after typing: only the lines that changed come back.
            mode, diff = await read(client, ref_id(typed))
            assert mode == "diff" and "textbox" in diff and "[typed by you]" in diff, diff
            assert "Alpha line" not in diff and "Slow" not in diff, diff
            two = await client.call_tool(
                "click", {"session": "lab", "ref": ref_in(text_of(typed), "link", "Two")}
            )
            assert not two.is_error, text_of(two)
            second = ref_id(two)

            mode, diff = await read(client, second)
            assert mode == "diff"
            changed = diff.splitlines()
            assert all(line.startswith(("@@", "-", "+")) for line in changed), diff
            assert any(line.startswith("+") and "Page two" in line for line in changed)
            assert await read(client, second) == ("unchanged", "")
            mode, whole = await read(client, second, reset_cursor=True)
            assert mode == "full" and "Alpha line" in whole and "Page two" in whole
            # Another page: its refs (f2e...) differ from the last one's, so every line does.
            assert {line[1:] for line in changed if line[0] == "+"} <= set(whole.splitlines())

            mode, found = await read(client, first, search_for="ALPHA")
            assert mode == "search" and found.endswith("Alpha line"), found
            assert await read(client, second) == ("unchanged", ""), "search moved no cursor"

            every = await console(client, first)
            assert [line.split("]")[0] for line in every] == [
                "[DEBUG",
                "[INFO",
                "[INFO",
                "[WARN",
                "[ERROR",
                "[ERROR",
            ], every
            assert f"[WARN] careful now @ {records_site.url}:9" == every[3]
            assert every[5] == "[ERROR] Error: uncaught boom", "the page error, from its stack"
            warned = await console(client, first, "warn")
            assert [line.split("]")[0] for line in warned] == ["[WARN", "[ERROR", "[ERROR"]
            errors = await console(client, first, "error")
            assert errors == [line for line in warned if line.startswith("[ERROR")]
            refused = await client.call_tool(
                "get_content", {"ref_id": "00000000-0000-4000-8000-000000000000"}
            )
            assert refused.is_error and "No call record" in text_of(refused)

            killed = True
            os.kill(serve_pid(profiles), signal.SIGKILL)
    except BaseException:
        if not killed:
            raise
    finally:
        # A killed server cannot stop its browser: this test does (Node and Chromium).
        for proc in wait_until_none_under(profiles, timeout=5.0):
            if pid_alive(proc.pid):
                os.kill(proc.pid, signal.SIGKILL)
    assert wait_until_none_under(profiles) == []

    async with Client(serve_params(tmp_path, records_site)) as client:
        assert await read(client, second) == ("unchanged", ""), "the cursor survived"
        mode, back = await read(client, first)
        assert mode == "diff" and "Page one" in back
        assert (await read(client, first, reset_cursor=True))[1] == page_one
        assert any("bad thing" in line for line in await console(client, first, "error"))
        listed = await client.call_tool("session_list", {})
        assert "No sessions." in text_of(listed), "a killed server's sessions are not live"
    assert wait_until_none_under(profiles) == []

    with sqlite3.connect(tmp_path / "journal.sqlite3") as db:
        (killed_run,) = db.execute(
            "SELECT ended_at, reason FROM runs WHERE pilot LIKE 'mcp:%' ORDER BY id LIMIT 1"
        ).fetchall()
        assert killed_run[0] is not None and killed_run[1] == "interrupted"
        stored = " ".join(
            str(row)
            for table in ("call_records", "console_messages", "turns")
            for row in db.execute(f"SELECT * FROM {table}").fetchall()
        )
    assert "[27 characters typed, not recorded]" in stored
    assert SECRET not in stored, "typed text never reaches the journal"


async def test_a_browser_killed_1_3_4_times_recovers_recovers_then_degrades(
    records_site: RecordsSite, tmp_path: Path
) -> None:
    """SIGKILL the session's Node: restarted on its last page within the policy; the 4th
    kill inside the window leaves the session degraded, refusing calls with a retry_after.
    Then a click cut off by a kill reports its outcome unknown with the reopened page."""
    policy = HealthPolicy(
        ping_seconds=0.5, ping_timeout=2.0, backoff=(0.1, 0.2, 0.4), check_seconds=0.05
    )
    profiles = tmp_path / "profiles"
    config = in_process_config(tmp_path, records_site, policy)
    async with server_parts(config) as parts, Client(parts.server) as client:
        await client.call_tool("session_open", {"name": "main", "service": "consolelab"})
        assert not (await client.call_tool("navigate", {"session": "main", "url": "/two"})).is_error
        session = parts.registry.get(LOCAL_PRINCIPAL, "main")
        outcomes: dict[int, str] = {}
        for kill in range(1, 5):
            node = node_of(session)
            os.kill(node, signal.SIGKILL)

            def settled(node: int = node, kill: int = kill) -> bool:
                gateway = session.lazy.gateway
                if session.health.state == "degraded":
                    return True
                restarted = gateway is not None and gateway.node_pid not in (None, node)
                return restarted and session.health.state == "ready" and session.in_flight is None

            await until(settled)
            answer = await client.call_tool("snapshot", {"session": "main"})
            if answer.is_error:
                outcomes[kill] = "degraded"
                assert "degraded" in text_of(answer) and "retry_after:" in text_of(answer)
            else:
                outcomes[kill] = "recovered"
                page = answer.structured_content or {}
                assert str(page.get("url", "")).endswith("/two"), "the last page was reopened"
        assert outcomes == {1: "recovered", 2: "recovered", 3: "recovered", 4: "degraded"}
        assert session.health.restarts_total == 3 and len(session.health.restart_seconds) == 3
        assert session.lazy.gateway is None, "a degraded session keeps no browser"
        await client.call_tool("session_close", {"name": "main"})
        left = await asyncio.to_thread(wait_until_none_under, profiles / LOCAL_PRINCIPAL / "main")
        assert left == [], "every killed browser's Chromium is gone"

        # A click in flight when Node dies: reported as unknown, never repeated.
        await client.call_tool("session_open", {"name": "cut", "service": "consolelab"})
        one = await client.call_tool("navigate", {"session": "cut", "url": "/"})
        cut = parts.registry.get(LOCAL_PRINCIPAL, "cut")
        slow = ref_in(text_of(one), "link", "Slow")
        clicking = asyncio.ensure_future(client.call_tool("click", {"session": "cut", "ref": slow}))
        await asyncio.to_thread(records_site.slow_requested.wait, 30.0)
        assert cut.in_flight == "browser_click"
        os.kill(node_of(cut), signal.SIGKILL)
        lost = await clicking
        assert lost.is_error and "not known" in text_of(lost), text_of(lost)
        assert "Page one" in text_of(lost), "the answer carries the reopened page"
        mode, content = await read(client, ref_id(lost))
        assert mode == "full" and "Page one" in content
        # The gateway's own restart (mid-call) counts against the session's window too.
        await until(lambda: cut.health.restarts_total == 1)
        assert records_site.slow_requested.is_set() and cut.health.state == "ready"
    assert wait_until_none_under(profiles) == []


async def test_a_hung_browser_is_restarted_after_three_unanswered_pings(
    records_site: RecordsSite, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """SIGSTOP the session's Node: it is alive but silent; three pings go unanswered and the
    browser is restarted on its last page."""
    policy = HealthPolicy(ping_seconds=0.2, ping_timeout=0.5, backoff=(0.1,), check_seconds=0.05)
    profiles = tmp_path / "profiles"
    config = in_process_config(tmp_path, records_site, policy)
    caplog.set_level("WARNING", logger="subterminator_tui.serve.server.session_monitor")
    async with server_parts(config) as parts, Client(parts.server) as client:
        await client.call_tool("session_open", {"name": "main", "service": "consolelab"})
        assert not (await client.call_tool("navigate", {"session": "main", "url": "/two"})).is_error
        session = parts.registry.get(LOCAL_PRINCIPAL, "main")
        await until(lambda: session.health.last_ping > 0)
        assert session.health.failed_pings == 0, "a live Node answers its pings"
        node = node_of(session)
        os.kill(node, signal.SIGSTOP)
        try:
            await until(
                lambda: (
                    session.health.restarts_total == 1
                    and session.health.state == "ready"
                    and session.in_flight is None
                )
            )
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(node, signal.SIGKILL)
        assert "3 pings went unanswered" in caplog.text
        assert node_of(session) != node
        answer = await client.call_tool("snapshot", {"session": "main"})
        assert not answer.is_error, text_of(answer)
        assert str((answer.structured_content or {}).get("url", "")).endswith("/two")
    assert wait_until_none_under(profiles) == []
