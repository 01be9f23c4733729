"""The proxy's own answers: a short page saying what was blocked and why."""

from __future__ import annotations

import html
from http import HTTPStatus


def refusal_page(host: str, reason: str) -> bytes:
    """The page's HTML: ``SubTerminator blocked a request to HOST: why``."""
    title = f"SubTerminator blocked a request to {host}"
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title></head><body>"
        f"<h1>{html.escape(title)}</h1><p>{html.escape(reason)}</p></body></html>"
    ).encode()


def refusal_response(status: int, host: str, reason: str) -> bytes:
    """A complete HTTP/1.1 response: ``SubTerminator blocked a request to HOST: why``."""
    body = refusal_page(host, reason)
    phrase = HTTPStatus(status).phrase
    head = (
        f"HTTP/1.1 {status} {phrase}\r\n"
        "Content-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Cache-Control: no-store\r\n"
        "Connection: close\r\n\r\n"
    ).encode()
    return head + body


TUNNEL_ESTABLISHED = b"HTTP/1.1 200 Connection established\r\n\r\n"
