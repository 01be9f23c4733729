"""Running the server: the journal, the desk, the registry and a transport, shut down cleanly.

SIGTERM and SIGINT cancel the transport; whatever way it ends, every session is
closed (held calls rejected, browsers stopped, journal runs ended) before the
process exits, well within the 10 s a supervisor allows. The operator console
(``serve --tui``) builds the same parts with :func:`server_parts` and runs the
transport from its own event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.auth.provider import TokenVerifier
from mcp.server.mcpserver import MCPServer

from subterminator_tui.journal.call_log import CallLogStore
from subterminator_tui.journal.store import Journal
from subterminator_tui.serve.config import ServeConfig
from subterminator_tui.serve.errors import ServeConfigurationError, ServeInputError
from subterminator_tui.serve.names import LOCAL_PRINCIPAL
from subterminator_tui.serve.oversight.approvals import ApprovalDesk
from subterminator_tui.serve.oversight.call_log_reader import CallLogReader
from subterminator_tui.serve.oversight.terminal_operator import (
    NoOperator,
    TerminalOperator,
    open_terminal,
)
from subterminator_tui.serve.server import live_view
from subterminator_tui.serve.server.session_monitor import HealthMonitor
from subterminator_tui.serve.sessions.registry import SessionRegistry
from subterminator_tui.serve.sessions.sign_ins import preload_sign_ins
from subterminator_tui.serve.tools.mcp_server import build_server

#: Runs the transport for a built server until it ends or is cancelled.
Transport = Callable[[MCPServer[Any]], Awaitable[None]]


async def stdio_transport(server: MCPServer[Any]) -> None:
    """MCP over this process's stdin and stdout."""
    await server.run_stdio_async()


@dataclass(frozen=True)
class ServerParts:
    """What a running server is made of; front ends (the console) read the registry and desk."""

    registry: SessionRegistry
    desk: ApprovalDesk
    server: MCPServer[Any]


@contextlib.asynccontextmanager
async def server_parts(
    config: ServeConfig,
    *,
    token_verifier: TokenVerifier | None = None,
    issuer_url: str | None = None,
    desk: ApprovalDesk | None = None,
) -> AsyncIterator[ServerParts]:
    """The journal, registry and MCP server; every session closed on exit, however it ends."""
    desk = desk or ApprovalDesk()
    with Journal(config.settings.resolved_journal()) as journal:
        call_log = CallLogStore(journal)
        # A server killed before (SIGKILL, a crash) left its sessions open: they are closed.
        call_log.close_dead_serve_runs()
        registry = SessionRegistry(config, journal, desk)
        for name, service in config.preopen:
            try:
                registry.open(LOCAL_PRINCIPAL, name, service)
            except ServeInputError as bad:
                # A --session the server cannot open is the operator's start-up mistake.
                raise ServeConfigurationError(f"--session {name}={service}: {bad}") from None
        preload_sign_ins(registry, config.sign_ins)
        server = build_server(
            registry,
            desk,
            token_verifier=token_verifier,
            issuer_url=issuer_url,
            reader=CallLogReader(call_log),
            tools=config.tools,
        )
        live_view.attach(server, registry)
        registry.start_idle_watch()
        health = HealthMonitor(registry, config.health)
        health.start()
        try:
            yield ServerParts(registry, desk, server)
        finally:
            await health.stop()
            await registry.close_all()


async def serve(
    config: ServeConfig,
    transport: Transport,
    *,
    operator_tty: str | None,
    token_verifier: TokenVerifier | None = None,
    issuer_url: str | None = None,
) -> int | None:
    """Serve until the transport ends or a signal arrives; the signal that stopped it, if any."""
    desk = ApprovalDesk()
    terminal = open_terminal(operator_tty) if operator_tty else None
    operator = TerminalOperator(desk, terminal) if terminal is not None else None
    if operator is None:
        NoOperator(desk)
    stopped_by: int | None = None
    try:
        async with server_parts(
            config, token_verifier=token_verifier, issuer_url=issuer_url, desk=desk
        ) as parts:
            main = asyncio.ensure_future(transport(parts.server))
            loop = asyncio.get_running_loop()

            def stop(signum: int) -> None:
                nonlocal stopped_by
                stopped_by = signum
                main.cancel()

            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(signum, stop, signum)
            asking = asyncio.ensure_future(operator.run()) if operator else None
            try:
                with contextlib.suppress(asyncio.CancelledError):
                    await main
            finally:
                for signum in (signal.SIGTERM, signal.SIGINT):
                    loop.remove_signal_handler(signum)
                if asking is not None:
                    asking.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await asking
    finally:
        if terminal is not None:
            with contextlib.suppress(OSError):
                os.close(terminal)
    return stopped_by
