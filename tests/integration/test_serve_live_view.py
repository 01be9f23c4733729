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

import httpx2
import pytest

from tests.conftest import browser_parts_missing
from tests.integration.serve_http_child import HttpServe, client_for, http_serve
from tests.support.serve_clients import text_of

pytestmark = pytest.mark.browser

#: Only against a hang: the awaited event normally comes far sooner.
HANG = 30.0


def live(server: HttpServe, session: str) -> str:
    """The live view's URL for ``session``."""
    return f"{server.base}/sessions/{session}/screenshots"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServe]:
    """One HTTP server for the module, on a practice site."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    with http_serve(tmp_path_factory.mktemp("serve-live")) as running:
        yield running


async def status_of(server: HttpServe, session: str, headers: dict[str, str]) -> int:
    """The status a GET of ``session``'s live view gets (the body is not read)."""
    async with (
        httpx2.AsyncClient(timeout=HANG) as http,
        http.stream("GET", live(server, session), headers=headers) as answer,
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
async def watching(server: HttpServe, principal: str, session: str) -> AsyncIterator[Frames]:
    """An open live view of ``session`` as ``principal``."""
    async with (
        httpx2.AsyncClient(timeout=HANG) as http,
        http.stream("GET", live(server, session), headers=server.auth(principal)) as answer,
    ):
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/event-stream")
        yield Frames(answer.aiter_lines())


async def test_the_live_view_refuses_by_hand(server: HttpServe) -> None:
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


async def test_a_frame_follows_an_action(server: HttpServe) -> None:
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
