"""Streamable HTTP at ``/mcp``: bearer tokens, Host and Origin allowlists, a body limit, no CORS.

Refused at start: ``--no-auth`` on anything but loopback, and a non-loopback
address without tokens. Host and Origin are checked on every request (421, 403)
by the SDK's transport security with explicit lists; no CORS middleware is
installed, so a browser's preflight never gets an ``Access-Control-Allow-*``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

from subterminator_tui.browser.egress.addresses import listen_address
from subterminator_tui.serve.errors import ServeConfigurationError
from subterminator_tui.serve.server.http_front import (
    MAX_MCP_SESSIONS,
    MCP_SESSION_IDLE_SECONDS,
    McpFront,
)
from subterminator_tui.serve.server.http_timeouts import DeadlineH11Protocol
from subterminator_tui.serve.server.lifecycle import Transport
from subterminator_tui.serve.server.live_view import LiveView, registry_of
from subterminator_tui.serve.server.request_headers import OneReadingOfHeaders
from subterminator_tui.serve.server.revocations import RevocationWatch
from subterminator_tui.serve.server.tokens import TokenFileVerifier, read_tokens

#: JSON-RPC requests are small; a megabyte is far more than any of these tools takes.
BODY_LIMIT_BYTES = 1024 * 1024
#: In-flight requests get this long after a stop before the browsers are closed.
GRACEFUL_SECONDS = 3


def is_loopback(host: str) -> bool:
    """Whether ``host`` only ever reaches this machine."""
    if host == "localhost":
        return True
    with contextlib.suppress(ValueError):
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    return False


def is_unspecified(host: str) -> bool:
    """Whether ``host`` (0.0.0.0, ::) means every address: no client ever names it."""
    with contextlib.suppress(ValueError):
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    return False


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6); ServeConfigurationError when malformed."""
    address = listen_address(text)
    if address is None:
        raise ServeConfigurationError(
            f"--http takes HOST:PORT, such as 127.0.0.1:8765 (got {text!r})."
        )
    return address


@dataclass(frozen=True)
class HttpOptions:
    """How the HTTP transport listens and whom it lets in."""

    host: str
    port: int
    tokens_file: Path
    no_auth: bool = False
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    body_limit: int = BODY_LIMIT_BYTES

    def verifier(self) -> TokenFileVerifier | None:
        """The token check, or None for ``--no-auth`` on loopback; refuses unsafe setups."""
        loopback = is_loopback(self.host)
        if self.no_auth:
            if not loopback:
                raise ServeConfigurationError(
                    f"--no-auth is only allowed on a loopback address, not {self.host}: anyone "
                    "who can reach it could drive your browser. Use tokens "
                    "(subterminator serve --new-token NAME)."
                )
            return None
        entries = read_tokens(self.tokens_file)
        if not entries:
            where = "this machine" if loopback else self.host
            raise ServeConfigurationError(
                f"No tokens in {self.tokens_file}: HTTP on {where} needs a bearer token per "
                "client. Make one with: subterminator serve --new-token NAME"
                + (" (or pass --no-auth on loopback)." if loopback else ".")
            )
        return TokenFileVerifier(entries, self.tokens_file)

    def security(self, port: int) -> TransportSecuritySettings:
        """Exact Host and Origin allowlists for the bound port, plus the operator's additions."""
        names = ["127.0.0.1", "localhost", "[::1]"] if is_loopback(self.host) else [self.host]
        hosts = [f"{name}:{port}" for name in names] + list(self.allowed_hosts)
        origins = [f"http://{name}:{port}" for name in names] + list(self.allowed_origins)
        return TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
        )


class _QuietServer(uvicorn.Server):
    """uvicorn without its own signal handlers (the lifecycle's stop everything), saying when
    it listens."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.listening = asyncio.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        self.listening.set()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def _print_listening(url: str) -> None:
    print(f"listening on {url}", file=sys.stderr, flush=True)


def http_transport(
    options: HttpOptions, announce: Callable[[str], None] = _print_listening
) -> Transport:
    """The transport serving ``options``; ``announce`` hears the /mcp URL once it listens
    (by default ``listening on URL`` on stderr)."""

    async def run(server: MCPServer[Any]) -> None:
        # The allowlists name the bound port, which is only known after binding for port 0.
        app_holder: dict[str, Any] = {}

        async def app(scope: Any, receive: Any, send: Any) -> None:
            await app_holder["app"](scope, receive, send)

        config = uvicorn.Config(
            app,
            host=options.host,
            port=options.port,
            log_level="warning",
            lifespan="on",
            timeout_graceful_shutdown=GRACEFUL_SECONDS,
            # A request head must be complete within seconds of connecting (slow clients).
            http=DeadlineH11Protocol,
        )
        web = _QuietServer(config)
        config.load()
        sockets = [config.bind_socket()]
        port = sockets[0].getsockname()[1]
        mcp_app = server.streamable_http_app(
            streamable_http_path="/mcp",
            max_request_body_size=options.body_limit,
            transport_security=options.security(port),
            host=options.host,
            max_sessions=MAX_MCP_SESSIONS,
            session_idle_timeout=MCP_SESSION_IDLE_SECONDS,
        )
        verifier = options.verifier()
        manager = server.session_manager
        front = McpFront(
            mcp_app,
            verifier,
            lambda: set(manager._server_instances),
            options.security(port),
            body_limit=options.body_limit,
        )
        # /sessions/{name}/screenshots, which the SDK would not protect: checked there.
        app_holder["app"] = OneReadingOfHeaders(
            LiveView(front, server, options.security(port), verifier)
        )
        serving = asyncio.ensure_future(web.serve(sockets=sockets))
        listening = asyncio.ensure_future(web.listening.wait())
        await asyncio.wait({listening, serving}, return_when=asyncio.FIRST_COMPLETED)
        listening.cancel()
        if serving.done():
            await serving
            raise ServeConfigurationError(f"Could not listen on {options.host}:{port}.")
        registry = registry_of(server)
        watching = (
            asyncio.ensure_future(RevocationWatch(verifier, registry).run())
            if verifier is not None and registry is not None
            else None
        )
        host = f"[{options.host}]" if ":" in options.host else options.host
        announce(f"http://{host}:{port}/mcp")
        try:
            await asyncio.shield(serving)
        except asyncio.CancelledError:
            web.should_exit = True
            await serving
            raise
        finally:
            if watching is not None:
                watching.cancel()
                await asyncio.gather(watching, return_exceptions=True)

    return run
