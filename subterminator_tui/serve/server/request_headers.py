"""One reading of a request's headers for every route: a repeated security header is refused.

Starlette's ``Headers.get`` takes the first of two ``Authorization`` headers and a dict
built from the header list keeps the last, so two layers reading one request could
disagree on who sent it (the session cap counted one principal while the SDK ran the
calls as another). A request that repeats a header whose meaning must be single
(:data:`SINGLE_VALUED`) is answered 400 before any layer reads it; every other
layer then reads the one value through :func:`request_headers`.
"""

from __future__ import annotations

import json
from typing import Any

#: Headers that decide who is calling, for which site, in which MCP session: sent twice,
#: nobody can say which one counts.
SINGLE_VALUED = frozenset({"authorization", "host", "origin", "mcp-session-id"})

ASGIApp = Any


def request_headers(scope: Any) -> dict[str, str]:
    """The request's headers by lower-case name (each single-valued one appears once)."""
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


def repeated_headers(scope: Any) -> list[str]:
    """The single-valued headers the request sends more than once, in the order first seen."""
    seen: set[str] = set()
    repeated: list[str] = []
    for key, _ in scope.get("headers", []):
        name = bytes(key).decode("latin-1").lower()
        if name in SINGLE_VALUED:
            if name in seen and name not in repeated:
                repeated.append(name)
            seen.add(name)
    return repeated


class OneReadingOfHeaders:
    """The outermost ASGI app: 400 for a repeated single-valued header, on every route."""

    def __init__(self, inner: ASGIApp) -> None:
        self.inner = inner

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        repeated = repeated_headers(scope) if scope["type"] == "http" else []
        if not repeated:
            await self.inner(scope, receive, send)
            return
        names = ", ".join(name.title() for name in repeated)
        body = json.dumps(
            {
                "error": "bad_request",
                "message": f"The request repeats {names}; send each of these headers once.",
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 400,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
