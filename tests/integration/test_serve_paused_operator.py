"""A paused operator terminal (Ctrl+S, nobody reading) never freezes `serve --http`.

A real pty as the operator's terminal, its output stopped and never read, while an agent
has a call held with a 300 KB address: another principal, a stranger and SIGTERM are
all still answered.
"""

from __future__ import annotations

import asyncio
import os
import termios
from pathlib import Path

import httpx2
import pytest

from subterminator_tui.exit_codes import TERMINATED
from subterminator_tui.practice.demoflix import DemoflixServer
from subterminator_tui.serve.server.tokens import new_token
from tests.conftest import browser_parts_missing
from tests.integration.serve_http_child import HttpServe, client_for, isolated_environment
from tests.integration.serve_parts import WALK_TO_FINISH, wait_until_none_under
from tests.support.serve_clients import ServeChild, ref_in, text_of

pytestmark = pytest.mark.browser

#: Bounds a hang only: with the loop free each answer takes well under a second.
WAIT = 30.0
#: What the agent appends to the page's address: more than any terminal buffer holds.
FRAGMENT = "#" + "A" * 300_000


def _paused_pty() -> tuple[int, int]:
    """A pty whose output is stopped (IXON and Ctrl+S), as an operator pausing it would."""
    master, slave = os.openpty()
    attributes = termios.tcgetattr(slave)
    attributes[0] |= termios.IXON
    termios.tcsetattr(slave, termios.TCSANOW, attributes)
    os.write(master, b"\x13")
    return master, slave


async def test_a_paused_terminal_freezes_nobody(tmp_path: Path) -> None:
    """Alice's call is held for a terminal nobody reads; Bob and a stranger are answered,
    and SIGTERM still stops the server promptly."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    tokens_file = tmp_path / "tokens.json"
    tokens = {name: new_token(tokens_file, name) for name in ("alice", "bob")}
    profiles = tmp_path / "profiles"
    master, slave = _paused_pty()
    try:
        with DemoflixServer(["remembered"]) as site:
            args = ["--http", "127.0.0.1:0", "--tokens", str(tokens_file)]
            args += ["--operator-tty", os.ttyname(slave), "--practice-url", site.base_url]
            args += ["--profile-root", str(profiles)]
            child = ServeChild(args, isolated_environment(tmp_path))
            try:
                server = HttpServe(child, child.wait_listening(), tokens, profiles)
                await _hold_with_a_huge_address(server, site)
                async with asyncio.timeout(WAIT), client_for(server, "bob") as bob:
                    listed = await bob.call_tool("session_list", {})
                    assert not listed.is_error, text_of(listed)
                async with asyncio.timeout(WAIT), httpx2.AsyncClient(timeout=WAIT) as http:
                    stranger = await http.post(server.url, json={})
                assert stranger.status_code == 401
                assert child.stop(within=10.0) == TERMINATED, "".join(child.lines)
            finally:
                child.stop()
    finally:
        os.close(master)
        os.close(slave)
    assert wait_until_none_under(profiles) == []


async def _hold_with_a_huge_address(server: HttpServe, site: DemoflixServer) -> None:
    """Alice walks to Finish on an address with a 300 KB fragment; Finish is held."""
    async with asyncio.timeout(120), client_for(server, "alice") as alice:
        opened = await alice.call_tool("session_open", {"name": "main", "service": "demoflix"})
        assert not opened.is_error, text_of(opened)
        page = text_of(await alice.call_tool("snapshot", {"session": "main"}))
        for role, name in WALK_TO_FINISH:
            answer = await alice.call_tool(
                "click", {"session": "main", "ref": ref_in(page, role, name)}
            )
            assert not answer.is_error, text_of(answer)
            page = text_of(answer)
        assert answer.structured_content is not None
        went = await alice.call_tool(
            "navigate", {"session": "main", "url": answer.structured_content["url"] + FRAGMENT}
        )
        assert not went.is_error, text_of(went)[:500]
        page = text_of(went)
        held = await alice.call_tool(
            "click", {"session": "main", "ref": ref_in(page, "button", "Finish cancellation")}
        )
        assert held.structured_content is not None
        assert held.structured_content["status"] == "approval_pending", text_of(held)[:500]
        assert site.state.cancel_requests == 0
