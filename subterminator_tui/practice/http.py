"""The practice sites' HTTP vocabulary: a parsed request in, a response out, no sockets.

Every site (Demoflix, the portal, the bench's gauntlet) routes :class:`Request` to
:class:`Response` with the helpers here; :mod:`subterminator_tui.practice.server` puts
any such router on a socket.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeGuard, runtime_checkable

HTML = "text/html; charset=utf-8"
JSON = "application/json; charset=utf-8"


@dataclass(frozen=True)
class Request:
    """What the routes need from an HTTP request."""

    method: str
    path: str
    query: Mapping[str, list[str]] = field(default_factory=dict)
    form: Mapping[str, list[str]] = field(default_factory=dict)
    session_token: str | None = None
    #: A JSON body's object (a single-page app's ``fetch``); empty for a form or no body.
    json_body: Mapping[str, Any] = field(default_factory=dict)

    def param(self, name: str) -> str | None:
        """The first value of ``name`` from the form, else from the query string."""
        values = self.form.get(name) or self.query.get(name)
        return values[0] if values else None


@dataclass(frozen=True)
class Response:
    """What the HTTP layer writes back."""

    status: int
    body: bytes = b""
    content_type: str = HTML
    location: str | None = None
    set_cookie: str | None = None


#: One route: a request in, a response out.
Handler = Callable[[Request], Response]


class Router(Protocol):
    """A site's behaviour over HTTP, without the sockets."""

    def handle(self, request: Request) -> Response:
        """The response to ``request``."""
        ...


#: One WebSocket's behaviour: a text frame from the browser in, an optional text frame out.
SocketListener = Callable[[str], str | None]


@runtime_checkable
class SocketRouter(Protocol):
    """A router that also accepts WebSockets (the server asks it at each upgrade request)."""

    def open_socket(self, request: Request) -> SocketListener | None:
        """The listener for a WebSocket opened by ``request``; None refuses the upgrade."""
        ...


def html(text: str, status: int = 200) -> Response:
    """An HTML page."""
    return Response(status=status, body=text.encode("utf-8"))


def redirect(location: str, set_cookie: str | None = None) -> Response:
    """A 303 to ``location``.

    303 turns a POST into a GET, so reloading the target never repeats an action.
    """
    return Response(status=303, location=location, set_cookie=set_cookie)


def json_response(data: Mapping[str, Any]) -> Response:
    """``data`` as indented JSON (the sites' ``/__state``)."""
    body = json.dumps(data, indent=2).encode("utf-8")
    return Response(status=200, body=body, content_type=JSON)


def is_local_path(candidate: str | None) -> TypeGuard[str]:
    """True for a path on this site; rejects absolute and scheme-relative URLs."""
    if not candidate or not candidate.startswith("/"):
        return False
    return not candidate.startswith(("//", "/\\")) and "\\" not in candidate
