"""Slow clients cannot hold a connection: the request head and body each have a deadline.

uvicorn times out an idle keep-alive connection, but a client that sends a request
head a byte at a time, before any authentication, would hold its connection (and a
worker slot) forever; so would one that never finishes its body. The head must be
complete within :data:`HEAD_SECONDS` of the connection opening (or of the last
answer on it), and a body within :data:`BODY_SECONDS` of its head, or the
connection is closed (408 for a body, since its head was read).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

#: From connecting (or the last answer) to a complete request head.
HEAD_SECONDS = 10.0
#: From the head to the whole body (a body is at most a megabyte here).
BODY_SECONDS = 30.0


class DeadlineH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request head is too slow."""

    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head_timer()

    def _arm_head_timer(self) -> None:
        self._cancel_head_timer()
        self._head_timer = self.loop.call_later(HEAD_SECONDS, self._head_too_slow)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if self.cycle is None or self.cycle.response_complete:
            self.transport.close()

    def handle_events(self) -> None:
        """As uvicorn's, and a complete head stops the head's deadline."""
        before = self.cycle
        super().handle_events()
        if self.cycle is not before:
            self._cancel_head_timer()

    def on_response_complete(self) -> None:
        """As uvicorn's; the next request's head gets its own deadline."""
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        """As uvicorn's, without a timer left behind."""
        self._cancel_head_timer()
        super().connection_lost(exc)


async def read_body(receive: Any, limit: int) -> tuple[list[dict[str, Any]], bool]:
    """The request's body messages (up to ``limit`` bytes and one more), read within
    BODY_SECONDS; and whether they came in time."""
    messages: list[dict[str, Any]] = []
    size = 0
    try:
        async with asyncio.timeout(BODY_SECONDS):
            while True:
                message = await receive()
                messages.append(message)
                if message["type"] != "http.request":
                    return messages, True
                size += len(message.get("body", b""))
                if not message.get("more_body") or size > limit:
                    return messages, True
    except TimeoutError:
        return messages, False


def replaying(messages: list[dict[str, Any]], receive: Any) -> Any:
    """A ``receive`` that gives ``messages`` first, then the real ones."""
    queue = list(messages)

    async def replay() -> dict[str, Any]:
        if queue:
            return queue.pop(0)
        message: dict[str, Any] = await receive()
        return message

    return replay


async def request_timeout(send: Any) -> None:
    """408: the body did not arrive in time."""
    body = json.dumps(
        {
            "error": "timeout",
            "message": f"The request body did not arrive within {BODY_SECONDS:.0f} s.",
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 408,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
