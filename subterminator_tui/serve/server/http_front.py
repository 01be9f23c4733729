"""What stands in front of ``/mcp``: the token checked first, a cap on MCP sessions per
principal, and a 401 that says what to send.

The token is checked from the request head, before any body is read: a stranger's
request is refused with its connection closed, so an upload nobody vouched for never
sits in memory (the SDK's own check came after the body had been read).

The SDK caps MCP sessions only for the whole server (and by default at 10,000), so one
token could open enough to crowd out everyone else; here each principal may hold
:data:`MAX_MCP_SESSIONS_PER_PRINCIPAL`, and one more is refused with 429 and a
``Retry-After`` (with tokens; ``--no-auth`` on loopback has one principal, the local
operator, and only the server-wide cap). A 401 names the scheme this server takes: a
static bearer token made with ``--new-token``, and no OAuth (a client that sees a bare
401 goes looking for an OAuth server that does not exist).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mcp.server.auth.provider import TokenVerifier
from mcp.server.transport_security import TransportSecuritySettings

from subterminator_tui.serve.server.http_timeouts import read_body, replaying, request_timeout
from subterminator_tui.serve.server.request_headers import request_headers

#: Open MCP sessions one principal may hold at once (an agent needs one, a few at most).
MAX_MCP_SESSIONS_PER_PRINCIPAL = 16
#: An idle MCP session is closed after this long (the SDK's default is 30 minutes).
MCP_SESSION_IDLE_SECONDS = 10 * 60.0
#: Every MCP session of the server at once.
MAX_MCP_SESSIONS = 256
#: What a client refused for too many sessions is told to wait.
SESSION_CAP_RETRY_SECONDS = 30

STATIC_TOKEN_HELP = (
    "This server takes a static bearer token (Authorization: Bearer <token>); the operator "
    "makes one with `subterminator serve --new-token NAME`. It offers no OAuth."
)
WWW_AUTHENTICATE = (
    'Bearer realm="subterminator", error="invalid_token", '
    f'error_description="{STATIC_TOKEN_HELP.replace(chr(34), chr(39))}"'
).encode()

ASGIApp = Any


def unauthorized_body() -> bytes:
    """The JSON body of every 401."""
    return json.dumps({"error": "invalid_token", "error_description": STATIC_TOKEN_HELP}).encode()


class McpFront:
    """The ASGI app in front of the MCP app: per-principal session cap and a helpful 401."""

    def __init__(
        self,
        inner: ASGIApp,
        verifier: TokenVerifier | None,
        live_sessions: Callable[[], set[str]],
        security: TransportSecuritySettings,
        cap: int = MAX_MCP_SESSIONS_PER_PRINCIPAL,
        body_limit: int = 1024 * 1024,
    ) -> None:
        self.inner = inner
        self.body_limit = body_limit
        self.security = security
        self.verifier = verifier
        self.live_sessions = live_sessions
        self.cap = cap
        #: The MCP session ids each principal opened (pruned to the live ones when checked).
        self.opened: dict[str, set[str]] = {}

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope.get("path", "").startswith("/mcp"):
            await self.inner(scope, receive, send)
            return
        headers = request_headers(scope)
        # A wrong Host or Origin is the transport's 421/403 before anything is counted
        # (the SDK answers those from the head alone, reading no body).
        trusted = headers.get("host") in (self.security.allowed_hosts or []) and headers.get(
            "origin", ""
        ) in ["", *(self.security.allowed_origins or [])]
        principal = await self._principal(headers) if trusted else None
        if trusted and self.verifier is not None and principal is None:
            # Nobody reads a byte of the body of a request nobody vouched for: a stranger's
            # stalled megabyte would otherwise sit in memory until its deadline.
            await _unauthorized(send)
            return
        opening = trusted and scope["method"] == "POST" and "mcp-session-id" not in headers
        if opening and principal is not None and len(self._live(principal)) >= self.cap:
            await _too_many(send, self.cap)
            return

        if scope["method"] == "POST" and trusted:
            messages, in_time = await read_body(receive, self.body_limit)
            if not in_time:
                await request_timeout(send)
                return
            receive = replaying(messages, receive)
        rewriting = False

        async def watched(message: dict[str, Any]) -> None:
            nonlocal rewriting
            if message["type"] == "http.response.start":
                if message["status"] == 401:
                    await _unauthorized_start(send)
                    rewriting = True
                    return
                session = _header(message, b"mcp-session-id")
                if opening and principal is not None and session is not None:
                    self.opened.setdefault(principal, set()).add(session)
            elif message["type"] == "http.response.body" and rewriting:
                if not message.get("more_body"):
                    await send({"type": "http.response.body", "body": unauthorized_body()})
                return
            await send(message)

        await self.inner(scope, receive, watched)

    def _live(self, principal: str) -> set[str]:
        live = self.live_sessions()
        mine = self.opened.get(principal, set()) & live
        self.opened[principal] = mine
        return mine

    async def _principal(self, headers: dict[str, str]) -> str | None:
        if self.verifier is None:
            # --no-auth (loopback only): one local operator, whose every client is "local";
            # the server-wide cap is the one that applies.
            return None
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            return None
        access = await self.verifier.verify_token(token)
        return access.client_id if access is not None and access.client_id else None


def _header(message: dict[str, Any], name: bytes) -> str | None:
    for key, value in message.get("headers", []):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


async def _unauthorized(send: Any) -> None:
    # The connection closes with the answer: the unread body is never buffered, not even
    # by the HTTP layer waiting for the next request behind it.
    await _unauthorized_start(send, close=True)
    await send({"type": "http.response.body", "body": unauthorized_body()})


async def _unauthorized_start(send: Any, *, close: bool = False) -> None:
    body = unauthorized_body()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"www-authenticate", WWW_AUTHENTICATE),
    ]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": 401, "headers": headers})


async def _too_many(send: Any, cap: int) -> None:
    body = json.dumps(
        {
            "error": "limit",
            "message": f"You hold {cap} open MCP sessions, the most allowed per principal; "
            "close one (HTTP DELETE with its Mcp-Session-Id) or reuse it.",
            "retry_after": SESSION_CAP_RETRY_SECONDS,
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 429,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"retry-after", str(SESSION_CAP_RETRY_SECONDS).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
