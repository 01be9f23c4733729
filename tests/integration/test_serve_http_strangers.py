"""`serve --http` against hostile clients, over raw sockets: one reading of headers,
authentication before any body, and a revoked token's live view ended."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from subterminator_tui.serve.server.tokens import new_token, revoke_tokens
from tests.conftest import browser_parts_missing
from tests.integration.serve_http_child import HttpServe, client_for, http_serve

pytestmark = pytest.mark.browser

#: Bounds a hang only: every answer here comes as soon as the head is read.
WAIT = 15.0
INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "stranger", "version": "1"},
        },
    }
).encode()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServe]:
    """One HTTP server for the module (tokens for alice and bob) on a practice site."""
    missing = browser_parts_missing()
    if missing:
        pytest.skip(missing)
    with http_serve(tmp_path_factory.mktemp("serve-strangers")) as running:
        yield running


def _head(server: HttpServe, method: str, path: str, headers: list[tuple[str, str]]) -> bytes:
    host = urlsplit(server.url).netloc
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", *(f"{k}: {v}" for k, v in headers)]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def _exchange(server: HttpServe, request: bytes, *, first_line_only: bool = True) -> bytes:
    """Send ``request`` raw; the answer's status line (or everything until the close)."""
    address = urlsplit(server.url)
    reader, writer = await asyncio.open_connection(address.hostname, address.port)
    writer.write(request)
    try:
        async with asyncio.timeout(WAIT):
            return await (reader.readline() if first_line_only else reader.read())
    finally:
        writer.close()


async def test_two_authorization_headers_are_refused_on_every_route(server: HttpServe) -> None:
    """Alice's and Bob's tokens in one request, in either order: 400 at /mcp and the live
    view alike, so no layer counts one principal while another runs the calls."""
    alice, bob = server.auth("alice")["authorization"], server.auth("bob")["authorization"]
    mcp = [("Accept", "application/json, text/event-stream"), ("Content-Type", "application/json")]
    for first, second in ((alice, bob), (bob, alice)):
        twice = [("Authorization", first), ("Authorization", second)]
        body = [("Content-Length", str(len(INITIALIZE)))]
        request = _head(server, "POST", "/mcp", [*mcp, *twice, *body]) + INITIALIZE
        assert (await _exchange(server, request)).startswith(b"HTTP/1.1 400")
        live = _head(server, "GET", "/sessions/main/screenshots", twice)
        assert (await _exchange(server, live)).startswith(b"HTTP/1.1 400")
    once = [*mcp, ("Authorization", alice), ("Content-Length", str(len(INITIALIZE)))]
    request = _head(server, "POST", "/mcp", [*once, ("Connection", "close")]) + INITIALIZE
    assert (await _exchange(server, request)).startswith(b"HTTP/1.1 200")


async def test_a_strangers_body_is_never_waited_for(server: HttpServe) -> None:
    """A head announcing a megabyte with no token, then nothing: 401 at once, not a 408
    after the body's deadline (the body is never read)."""
    stalled = _head(
        server,
        "POST",
        "/mcp",
        [("Content-Type", "application/json"), ("Content-Length", str(1024 * 1024))],
    )
    assert (await _exchange(server, stalled)).startswith(b"HTTP/1.1 401")
    wrong = [("Authorization", "Bearer not-a-token"), ("Content-Length", str(1024 * 1024))]
    assert (await _exchange(server, _head(server, "POST", "/mcp", wrong))).startswith(
        b"HTTP/1.1 401"
    )


async def test_a_revoked_token_ends_its_live_view(server: HttpServe, tmp_path: Path) -> None:
    """Carol watches her session; revoking her token ends the stream she holds open."""
    tokens_file = server.profiles.parent / "tokens.json"
    server.tokens["carol"] = new_token(tokens_file, "carol")
    async with client_for(server, "carol") as client:
        opened = await client.call_tool("session_open", {"name": "watched", "service": "demoflix"})
        assert not opened.is_error
        address = urlsplit(server.url)
        reader, writer = await asyncio.open_connection(address.hostname, address.port)
        try:
            head = [("Authorization", server.auth("carol")["authorization"])]
            writer.write(_head(server, "GET", "/sessions/watched/screenshots", head))
            async with asyncio.timeout(WAIT):
                assert (await reader.readline()).startswith(b"HTTP/1.1 200")
                revoke_tokens(tokens_file, "carol")
                # The stream ends: its last chunk, or the connection closed.
                rest = b""
                while not rest.endswith(b"0\r\n\r\n"):
                    chunk = await reader.read(65536)
                    if not chunk:
                        break
                    rest += chunk
        finally:
            writer.close()
    assert "Traceback" not in "".join(server.child.lines), "".join(server.child.lines)
