"""What every tool shares: who is calling, the answer as an MCP result, progress on long calls."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Annotated

import mcp_types as types
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import TokenVerifier
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from subterminator_tui.serve.agent_answer import Answer
from subterminator_tui.serve.names import LOCAL_PRINCIPAL

#: A long call reports progress this often, so clients do not time it out.
PROGRESS_SECONDS = 1.0

#: Tools that change nothing on the page (clients may run them without asking).
READ_ONLY = types.ToolAnnotations(read_only_hint=True)

SessionName = Annotated[str, Field(description="The session's name, as given to session_open.")]

#: Who is calling this tool (the bearer token's principal); each group of tools gets one.
Principal = Callable[[], str]


def principal_of_calls(token_verifier: TokenVerifier | None) -> Principal:
    """The caller of the tool call being run: the bearer token's principal; the local
    operator without auth."""

    def principal() -> str:
        token = get_access_token()
        if token is not None:
            return token.client_id
        if token_verifier is not None:
            # Never fall back to a shared principal when tokens are required.
            raise ToolError("No authenticated principal for this call.")
        return LOCAL_PRINCIPAL

    return principal


def as_result(answer: Answer) -> types.CallToolResult:
    """An answer as the MCP result: the text to read, the same facts structured."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=answer.text())],
        structured_content=answer.structured(),
        is_error=answer.is_error,
    )


async def with_progress(ctx: Context | None, label: str, work: Awaitable[Answer]) -> Answer:
    """Await ``work``; a client that asked for progress hears from it every second meanwhile."""
    task = asyncio.ensure_future(work)
    if ctx is None:
        return await task
    ticks = 0
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=PROGRESS_SECONDS)
            if done:
                return task.result()
            ticks += 1
            with contextlib.suppress(Exception):
                await ctx.report_progress(ticks, None, f"{label}: {ticks} s")
    except asyncio.CancelledError:
        # The client gave up; the browser call runs to its end (stopping a click halfway
        # would leave its outcome unknown) and frees the session then.
        task.add_done_callback(_discard_outcome)
        raise


def _discard_outcome(task: asyncio.Future[Answer]) -> None:
    if not task.cancelled():
        task.exception()
