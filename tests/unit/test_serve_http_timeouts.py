"""Slow clients cannot hold a connection: a request head and a body each have a deadline.

uvicorn in-process with serve's own protocol and front, the deadlines shortened.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import uvicorn
from mcp.server.transport_security import TransportSecuritySettings

from subterminator_tui.serve.server import http_timeouts
from subterminator_tui.serve.server.http import _QuietServer
from subterminator_tui.serve.server.http_front import McpFront
from subterminator_tui.serve.server.http_timeouts import DeadlineH11Protocol

HOST = "127.0.0.1"


async def _inner(scope: Any, receive: Any, send: Any) -> None:
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


async def _app(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            kind = message["type"].removeprefix("lifespan.")
            await send({"type": f"lifespan.{kind}.complete"})
            if kind == "shutdown":
                return
    # Host "x" is trusted: the body deadline applies to requests that may be read at all.
    security = TransportSecuritySettings(allowed_hosts=["x"], allowed_origins=[])
    await McpFront(_inner, None, set, security)(scope, receive, send)


@pytest.fixture
async def port(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[int]:
    """A server with 0.3 s deadlines."""
    monkeypatch.setattr(http_timeouts, "HEAD_SECONDS", 0.3)
    monkeypatch.setattr(http_timeouts, "BODY_SECONDS", 0.3)
    config = uvicorn.Config(_app, host=HOST, port=0, log_level="warning", http=DeadlineH11Protocol)
    server = _QuietServer(config)
    config.load()
    sockets = [config.bind_socket()]
    task = asyncio.create_task(server.serve(sockets=sockets))
    await server.listening.wait()
    try:
        yield sockets[0].getsockname()[1]
    finally:
        server.should_exit = True
        await task


async def _exchange(port: int, data: bytes) -> bytes:
    reader, writer = await asyncio.open_connection(HOST, port)
    writer.write(data)
    try:
        async with asyncio.timeout(10):
            return await reader.read()
    finally:
        writer.close()


async def test_a_request_head_that_never_ends_is_cut_off(port: int) -> None:
    """Half a head (no blank line), before any authentication: the connection closes."""
    assert await _exchange(port, b"POST /mcp HTTP/1.1\r\nHost: x\r\n") == b""


async def test_a_body_that_never_ends_gets_408(port: int) -> None:
    """A body shorter than its Content-Length: 408 and the connection closes."""
    answer = await _exchange(port, b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
    assert answer.startswith(b"HTTP/1.1 408")


async def test_a_prompt_request_is_served(port: int) -> None:
    """A whole request in time is answered as usual."""
    answer = await _exchange(
        port, b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
    )
    assert answer.startswith(b"HTTP/1.1 200")
