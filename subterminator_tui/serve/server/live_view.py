"""``GET /sessions/{name}/screenshots``: the session's live page as Server-Sent Events.

A JPEG frame (``event: screenshot``, data ``{"timestamp", "format", "image"}`` with the
image in base64) right away, then after each call the session finishes, and at most one
a second while it is idle; frames are taken only while someone watches, never while a
call is running. The SDK protects only ``/mcp``, so this route checks everything by
hand, in this order: Host (421), Origin (403), the bearer token (401), then the session,
which must be the caller's own (404, as for a name it does not hold). The token is
checked again every second while the stream is open: a revoked token ends it.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import re
import time
import weakref
from collections.abc import AsyncIterator
from typing import Any

from mcp.server.auth.provider import TokenVerifier
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

from subterminator_tui.errors import SubTerminatorError
from subterminator_tui.serve.errors import ServeInputError, SessionNotFoundError
from subterminator_tui.serve.names import LOCAL_PRINCIPAL
from subterminator_tui.serve.server.http_front import WWW_AUTHENTICATE, unauthorized_body
from subterminator_tui.serve.server.request_headers import request_headers
from subterminator_tui.serve.server.revocations import REVOCATION_CHECK_SECONDS
from subterminator_tui.serve.sessions.browser_session import BrowserSession
from subterminator_tui.serve.sessions.registry import SessionRegistry

#: A frame at most this often while the session is idle.
IDLE_FRAME_SECONDS = 1.0
_ROUTE = re.compile(r"^/sessions/([^/]+)/screenshots$")
_REGISTRIES: weakref.WeakKeyDictionary[MCPServer[Any], SessionRegistry] = (
    weakref.WeakKeyDictionary()
)

ASGIApp = Any


def attach(server: MCPServer[Any], registry: SessionRegistry) -> None:
    """Let the HTTP transport of ``server`` find the sessions its live view shows."""
    _REGISTRIES[server] = registry


def registry_of(server: MCPServer[Any]) -> SessionRegistry | None:
    """The sessions of ``server`` (None before ``attach``)."""
    return _REGISTRIES.get(server)


async def frames(session: BrowserSession) -> AsyncIterator[bytes]:
    """The session's page as JPEG frames: now, after each call, at most 1/s while idle."""
    seen = -1
    while True:
        gateway = session.lazy.gateway
        if gateway is not None and session.in_flight is None:
            frame = await gateway.jpeg_frame()
            if frame is not None and not await shows_what_the_person_typed(session):
                yield frame
        version = session.changes.version
        if version == seen:
            version = await session.changes.wait_after(version, IDLE_FRAME_SECONDS)
        seen = version


async def shows_what_the_person_typed(session: BrowserSession) -> bool:
    """Whether the page (read after the frame was taken) shows a value no picture may show;
    no read at all before the person typed one."""
    gateway = session.lazy.gateway
    if gateway is None or not session.scrubber.withholds_pictures:
        return False
    try:
        return session.scrubber.shows_a_value(await gateway.snapshot())
    except SubTerminatorError:
        return True


def sse_event(frame: bytes) -> bytes:
    """One ``screenshot`` event."""
    data = {
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "format": "jpeg",
        "image": base64.b64encode(frame).decode("ascii"),
    }
    return f"event: screenshot\ndata: {json.dumps(data)}\n\n".encode()


class LiveView:
    """The ASGI app in front of the MCP app: this one route, checked by hand; the rest passes."""

    def __init__(
        self,
        inner: ASGIApp,
        server: MCPServer[Any],
        security: TransportSecuritySettings,
        verifier: TokenVerifier | None,
    ) -> None:
        self.inner = inner
        self.server = server
        self.security = security
        self.verifier = verifier

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        match = _ROUTE.match(scope.get("path", "")) if scope["type"] == "http" else None
        if match is None:
            await self.inner(scope, receive, send)
            return
        headers = request_headers(scope)
        status, principal = await self._check(scope["method"], headers)
        if principal is None:
            await _plain(send, status)
            return
        registry = _REGISTRIES.get(self.server)
        try:
            if registry is None:
                raise SessionNotFoundError("no sessions")
            session = registry.get(principal, match[1])
        except (SessionNotFoundError, ServeInputError):
            # A name that could never be a session (".." or 300 letters) is not found either.
            await _plain(send, 404)
            return
        await self._stream(session, receive, send, headers.get("authorization", ""))

    async def _check(self, method: str, headers: dict[str, str]) -> tuple[int, str | None]:
        """(status, principal): the principal when every check passes, else the refusal."""
        if headers.get("host") not in (self.security.allowed_hosts or []):
            return 421, None
        origin = headers.get("origin")
        if origin is not None and origin not in (self.security.allowed_origins or []):
            return 403, None
        if method != "GET":
            return 405, None
        if self.verifier is None:
            return 200, LOCAL_PRINCIPAL
        scheme, _, token = headers.get("authorization", "").partition(" ")
        access = await self.verifier.verify_token(token) if scheme.lower() == "bearer" else None
        if access is None or not access.client_id:
            return 401, None
        return 200, access.client_id

    async def _still_vouched_for(self, authorization: str) -> bool:
        """Whether the stream's token still names a principal (False once it is revoked)."""
        if self.verifier is None:
            return True
        scheme, _, token = authorization.partition(" ")
        access = await self.verifier.verify_token(token) if scheme.lower() == "bearer" else None
        return access is not None

    async def _until_revoked(self, authorization: str) -> None:
        # Revoking edits a file another process writes: nothing to wait on but the clock.
        while True:
            if not await self._still_vouched_for(authorization):
                return
            await asyncio.sleep(REVOCATION_CHECK_SECONDS)

    async def _stream(
        self, session: BrowserSession, receive: Any, send: Any, authorization: str
    ) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"text/event-stream"),
                    (b"cache-control", b"no-store"),
                    (b"x-accel-buffering", b"no"),
                ],
            }
        )

        # Frames stop as soon as the watcher goes: send fails or the disconnect arrives.
        async def until_disconnect() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass

        async def send_frames() -> None:
            async for frame in frames(session):
                await send(
                    {"type": "http.response.body", "body": sse_event(frame), "more_body": True}
                )

        # The stream ends when the watcher goes, and when its token is revoked: a token
        # taken away mid-stream must not keep showing the page.
        gone = asyncio.ensure_future(until_disconnect())
        revoked = asyncio.ensure_future(self._until_revoked(authorization))
        streaming = asyncio.ensure_future(send_frames())
        try:
            await asyncio.wait({gone, revoked, streaming}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (gone, revoked, streaming):
                task.cancel()
            await asyncio.gather(gone, revoked, streaming, return_exceptions=True)
        if revoked.done() and not gone.done():
            with contextlib.suppress(OSError):
                await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _plain(send: Any, status: int) -> None:
    reasons = {
        401: b"unauthorized",
        403: b"forbidden origin",
        404: b"not found",
        405: b"method not allowed",
        421: b"misdirected request",
    }
    headers = [(b"content-type", b"text/plain")]
    body = reasons.get(status, b"") + b"\n"
    if status == 401:
        headers = [(b"content-type", b"application/json"), (b"www-authenticate", WWW_AUTHENTICATE)]
        body = unauthorized_body()
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
