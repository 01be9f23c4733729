"""The session tools: session_open, session_list and session_close."""

from __future__ import annotations

from typing import Annotated, Any

import mcp_types as types
from mcp.server.mcpserver import MCPServer
from pydantic import Field

from subterminator_tui.errors import SubTerminatorError
from subterminator_tui.serve.agent_answer import Answer
from subterminator_tui.serve.sessions.registry import SessionRegistry
from subterminator_tui.serve.tools.error_contract import failure_result
from subterminator_tui.serve.tools.tool_calls import READ_ONLY, Principal, SessionName, as_result


def add_session_tools(
    server: MCPServer[Any], registry: SessionRegistry, principal: Principal
) -> None:
    """Register the session tools on ``server``; a caller sees only its own sessions."""

    @server.tool(
        description="Open (or find again) your named browser session for a service. WHEN TO "
        "USE: first, before any browser tool. WHAT HAPPENS: the session is made; its browser "
        "starts on the first browser call at the session's last page (or the service's start "
        "page), with its own profile. `domains` may narrow the service's allowed domains. "
        "ERRORS: unknown service, invalid name, domains outside the service's, limit reached."
    )
    def session_open(
        name: SessionName,
        service: Annotated[
            str,
            Field(
                description="A service id, e.g. 'demoflix' (or a site address such as "
                "'example.com' when the operator allows any site)."
            ),
        ],
        domains: Annotated[
            list[str] | None, Field(description="Narrow the allowed domains (optional).")
        ] = None,
    ) -> types.CallToolResult:
        try:
            opened, new = registry.open(principal(), name, service, domains)
        except SubTerminatorError as error:
            return failure_result(error)
        verb = "Opened" if new else "Found"
        message = (
            f"{verb} session '{name}' for {opened.service.name}; allowed domains: "
            f"{', '.join(opened.service.allowed_domains)}. Call snapshot to see the page."
        )
        return as_result(Answer("ok", message))

    @server.tool(
        annotations=READ_ONLY,
        description="List your sessions. WHEN TO USE: to find a session or see if it is "
        "busy or waiting for approval. WHAT HAPPENS: nothing changes. ERRORS: none.",
    )
    def session_list() -> types.CallToolResult:
        sessions = registry.listing(principal())
        lines = [
            f"- {s['name']} ({s['service']}): browser {s['browser']}, url {s['url']}, "
            f"busy {s['busy']}, pending approval {s['pending_approval']}, health {s['health']}"
            for s in sessions
        ]
        return types.CallToolResult(
            content=[types.TextContent(type="text", text="\n".join(lines) or "No sessions.")],
            structured_content={"sessions": sessions},
        )

    @server.tool(
        description="Close your session. WHEN TO USE: when done. WHAT HAPPENS: a call "
        "waiting for approval is rejected, the browser closes; the profile is kept for a "
        "session of the same name later. ERRORS: no such session, a call still running."
    )
    async def session_close(name: SessionName) -> types.CallToolResult:
        try:
            await registry.close(principal(), name)
        except SubTerminatorError as error:
            return failure_result(error)
        return as_result(Answer("ok", f"Closed session '{name}'."))
