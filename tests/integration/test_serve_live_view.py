"""``GET /sessions/{name}/screenshots``: the live page as Server-Sent Events, checked by hand.

One ``serve --http`` child for the module (tokens for alice and bob) on a practice site.
The SDK protects only /mcp, so each refusal here is the route's own: 421 for a bad Host,
403 for a bad Origin, 401 without a valid token, 404 for a session the caller does not
hold (another principal's included). A frame is awaited after an action; how soon it
comes is measured by benchmarks/live_view_latency.py, never asserted here.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from subterminator_tui.exit_codes import TERMINATED
from subterminator_tui.practice.demoflix import DemoflixServer
from subterminator_tui.serve.tokens import new_token
from tests.conftest import browser_parts_missing
from tests.integration.serve_clients import ServeChild, child_environment, text_of
from tests.integration.serve_parts import wait_until_none_under

pytestmark = pytest.mark.browser

#: Only against a hang: the awaited event normally comes far sooner.
HANG = 30.0


@dataclass
class LiveServer:
    """The child, its base URL and one token per principal."""

    url: str
    base: str
    tokens: dict[str, str]

    def live(self, session: str) -> str:
        """The live view's URL for ``session``."""
        return f"{self.base}/sessions/{session}/screenshots"

    def auth(self, principal: str) -> dict[str, str]:
        """``principal``'s bearer header."""
        return {"authorization": f"Bearer {self.tokens[principal]}"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One HTTP server for the module, on a practice site."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    home = tmp_path_factory.mktemp("serve-live")
    tokens_file = home / "tokens.json"
    tokens = {name: new_token(tokens_file, name) for name in ("alice", "bob")}
    env = child_environment(home)
    for variable in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[variable] = str(home / variable.lower())
    (home / "config.toml").write_text("", encoding="utf-8")
    env["SUBTERMINATOR_CONFIG"] = str(home / "config.toml")
    profiles = home / "profiles"
    with DemoflixServer(["remembered"]) as site:
        args = ["--http", "127.0.0.1:0", "--tokens", str(tokens_file), "--operator-tty", "none"]
        args += ["--practice-url", site.base_url, "--profile-root", str(profiles)]
        child = ServeChild(args, env)
        try:
            url = child.wait_listening()
            yield LiveServer(url, url.removesuffix("/mcp"), tokens)
        finally:
            code = child.stop()
        assert code == TERMINATED, "".join(child.lines)
    assert wait_until_none_under(profiles) == []


@asynccontextmanager
async def client_for(server: LiveServer, principal: str) -> AsyncIterator[Client]:
    """An SDK client sending ``principal``'s bearer token."""
    async with (
        create_mcp_http_client(headers=server.auth(principal)) as http,
        Client(streamable_http_client(server.url, http_client=http)) as client,
    ):
        yield client


async def status_of(server: LiveServer, session: str, headers: dict[str, str]) -> int:
    """The status a GET of ``session``'s live view gets (the body is not read)."""
    async with (
        httpx2.AsyncClient(timeout=HANG) as http,
        http.stream("GET", server.live(session), headers=headers) as answer,
    ):
        return answer.status_code


class Frames:
    """The ``screenshot`` events of one open stream, read as they come."""

    def __init__(self, lines: AsyncIterator[str]) -> None:
        self._lines = lines

    async def next(self) -> bytes:
        """The next frame's JPEG bytes (awaited, bounded only against a hang)."""
        async with asyncio.timeout(HANG):
            event = ""
            async for line in self._lines:
                if line.startswith("event:"):
                    event = line.split(":", 1)[1].strip()
                elif line.startswith("data:") and event == "screenshot":
                    data = json.loads(line.split(":", 1)[1])
                    assert data["format"] == "jpeg"
                    return base64.b64decode(data["image"])
        raise AssertionError("the stream ended")


@asynccontextmanager
async def watching(server: LiveServer, principal: str, session: str) -> AsyncIterator[Frames]:
    """An open live view of ``session`` as ``principal``."""
    async with (
        httpx2.AsyncClient(timeout=HANG) as http,
        http.stream("GET", server.live(session), headers=server.auth(principal)) as answer,
    ):
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/event-stream")
        yield Frames(answer.aiter_lines())


async def test_the_live_view_refuses_by_hand(server: LiveServer) -> None:
    """421 bad Host, 403 bad Origin, 401 no or bad token, 404 a session the caller lacks."""
    async with client_for(server, "alice") as alice:
        opened = await alice.call_tool("session_open", {"name": "mine", "service": "demoflix"})
        assert not opened.is_error, text_of(opened)
        good = server.auth("alice")
        assert await status_of(server, "mine", {**good, "host": "evil.example:80"}) == 421
        assert await status_of(server, "mine", {**good, "origin": "http://evil.example"}) == 403
        assert await status_of(server, "mine", {}) == 401
        assert await status_of(server, "mine", {"authorization": "Bearer not-a-token"}) == 401
        assert await status_of(server, "mine", server.auth("bob")) == 404
        assert await status_of(server, "nothing-here", good) == 404
        await alice.call_tool("session_close", {"name": "mine"})


async def test_a_frame_follows_an_action(server: LiveServer) -> None:
    """Watching: a JPEG at once, and after navigate answers, a frame of the new page."""
    async with client_for(server, "alice") as alice:
        opened = await alice.call_tool("session_open", {"name": "live", "service": "demoflix"})
        assert not opened.is_error, text_of(opened)
        went = await alice.call_tool("navigate", {"session": "live", "url": "/account"})
        assert not went.is_error, text_of(went)
        async with watching(server, "alice", "live") as frames:
            before = await frames.next()
            assert before.startswith(b"\xff\xd8")
            moved = await alice.call_tool("navigate", {"session": "live", "url": "/cancel"})
            assert not moved.is_error, text_of(moved)
            # The page changed, so a frame of it must come (idle frames repeat the old one).
            async with asyncio.timeout(HANG):
                after = await frames.next()
                while after == before:
                    after = await frames.next()
            assert after.startswith(b"\xff\xd8")
        await alice.call_tool("session_close", {"name": "live"})
