"""Reading one request the browser sends its proxy: a CONNECT, or a plain-http absolute URL.

The head is read up to a bounded size and parsed by h11 (a maintained,
strict HTTP/1.1 parser), so malformed or smuggling-shaped heads are refused
rather than half-understood. Only the head is parsed: a CONNECT tunnel and a
request body are relayed as bytes to the one checked address.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

import h11

from subterminator_tui.browser.egress.addresses import Host, HostError, parse_host

#: Larger than any head Chromium sends with a normal cookie jar; a bigger one is refused.
MAX_HEAD_BYTES = 64 * 1024
#: The blank line that ends a request head.
HEAD_END = b"\r\n\r\n"
# Hop-by-hop headers that concern the browser and its proxy, never the site.
_PROXY_ONLY = frozenset({b"proxy-connection", b"proxy-authorization", b"keep-alive", b"te"})


class RequestHeadError(ValueError):
    """A request the proxy will not read; ``status`` is the HTTP answer to give."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class ProxyRequest:
    """One request to the proxy, with the host it wants, parsed the browser's way."""

    method: str
    host: Host
    port: int
    #: The path and query for the origin server (empty for CONNECT).
    path: str
    headers: tuple[tuple[bytes, bytes], ...]

    @property
    def is_tunnel(self) -> bool:
        """A CONNECT: https or wss, relayed blind after the check."""
        return self.method == "CONNECT"

    @property
    def is_upgrade(self) -> bool:
        """A plain-http WebSocket (or other) upgrade: the connection becomes a relay."""
        return any(name == b"upgrade" for name, _ in self.headers)

    def header_map(self) -> dict[str, str]:
        """Lower-case header names to their (last) values, for the policy's questions."""
        return {name.decode("latin-1"): value.decode("latin-1") for name, value in self.headers}

    def origin_head(self) -> bytes:
        """The head to send the site: origin-form target, proxy headers dropped.

        ``Connection: close`` keeps one request per connection, so every
        request the browser makes comes back through the proxy's check;
        an upgrade keeps its ``Connection: upgrade``.
        """
        connection_named = {
            token.strip().lower().encode("latin-1")
            for name, value in self.headers
            if name == b"connection"
            for token in value.decode("latin-1").split(",")
        }
        lines = [f"{self.method} {self.path} HTTP/1.1".encode("latin-1")]
        for name, value in self.headers:
            if name in _PROXY_ONLY or name == b"connection":
                continue
            if name in connection_named and not (self.is_upgrade and name == b"upgrade"):
                continue
            lines.append(name + b": " + value)
        lines.append(b"Connection: upgrade" if self.is_upgrade else b"Connection: close")
        return b"\r\n".join(lines) + HEAD_END


def parse_request_head(head: bytes) -> ProxyRequest:
    """Parse the bytes up to and including the blank line; raises RequestHeadError."""
    connection = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEAD_BYTES)
    connection.receive_data(head)
    try:
        event = connection.next_event()
    except h11.RemoteProtocolError as error:
        raise RequestHeadError(400, f"malformed request: {error}") from None
    if not isinstance(event, h11.Request):
        raise RequestHeadError(400, "incomplete request head")
    method = event.method.decode("ascii")
    target = event.target.decode("ascii", errors="replace")
    headers = tuple((bytes(name), bytes(value)) for name, value in event.headers)
    if method == "CONNECT":
        host, port = _authority(target, default_port=None)
        return ProxyRequest(method, host, port, "", headers)
    parts = urlsplit(target)
    if parts.scheme.lower() != "http" or not parts.netloc:
        # https and wss arrive as CONNECT; an origin-form request is not meant for a proxy.
        raise RequestHeadError(400, f"not a proxy request: {target[:80]!r}")
    if "@" in parts.netloc:
        raise RequestHeadError(400, "credentials in a proxied URL")
    host, port = _authority(parts.netloc, default_port=80)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return ProxyRequest(method, host, port, path, headers)


def _authority(text: str, *, default_port: int | None) -> tuple[Host, int]:
    """``host[:port]`` or ``[v6][:port]``, the host parsed the browser's way."""
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            raise RequestHeadError(400, f"unreadable authority {text[:80]!r}")
        host_part, rest = text[: end + 1], text[end + 1 :]
    else:
        # IPv6 must be bracketed, so a second colon leaves a port that is no number.
        host_part, colon, port_part = text.partition(":")
        rest = colon + port_part
    if rest and not rest.startswith(":"):
        raise RequestHeadError(400, f"unreadable authority {text[:80]!r}")
    port_text = rest.removeprefix(":")
    if port_text:
        if not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise RequestHeadError(400, f"unreadable port in {text[:80]!r}")
        port = int(port_text)
    elif default_port is not None:
        port = default_port
    else:
        raise RequestHeadError(400, f"CONNECT without a port: {text[:80]!r}")
    try:
        return parse_host(host_part), port
    except HostError as error:
        raise RequestHeadError(400, str(error)) from None
