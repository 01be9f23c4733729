"""A call whose caller left before its answer came (``browser/mcp_process.py``)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from subterminator_tui.browser.mcp_process import PlaywrightMCPProcess, ServerStopped
from tests.support.launch_plans import make_plan


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda process: process.dispatch("browser_snapshot", {}), id="a-call"),
        # A health check whose time ran out (serve's watch of a session's browser).
        pytest.param(lambda process: process.ping(30.0), id="a-ping"),
    ],
)
async def test_a_dead_servers_answer_to_a_call_nobody_awaits_is_never_printed(
    tmp_path: Path, call: Callable[[PlaywrightMCPProcess], Awaitable[object]]
) -> None:
    """A caller cancelled (an app closed at its checkpoint, a ping out of time), then the
    server dies: the answer's error is taken, not reported on the terminal when the answer
    is collected."""
    loop = asyncio.get_running_loop()
    reported: list[dict[str, Any]] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: reported.append(context))
    process = PlaywrightMCPProcess(make_plan(tmp_path), connect_timeout=1.0, call_timeout=30.0)
    # The server's owner as start_server leaves it; it never answers.
    owner = asyncio.create_task(asyncio.Event().wait())
    process._owner = owner
    try:
        caller = asyncio.ensure_future(call(process))
        await asyncio.sleep(0)  # the caller's first step queues its request
        assert not process._requests.empty()
        caller.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await caller
        process._fail_queued(ServerStopped("Playwright MCP stopped"))
        await asyncio.sleep(0)  # the answer's callbacks run on the next turn of the loop
        del caller
        gc.collect()
    finally:
        owner.cancel()
        loop.set_exception_handler(previous)
    assert [context["message"] for context in reported] == []
