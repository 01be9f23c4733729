"""The call-log tools: get_content and get_console_content read a served call back.

Both are read-only and only ever see the caller's own calls (oversight/call_log_reader.py).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import mcp_types as types
from mcp.server.mcpserver import MCPServer
from pydantic import Field

from subterminator_tui.errors import SubTerminatorError
from subterminator_tui.serve.oversight.call_log_reader import CallLogReader
from subterminator_tui.serve.tools.error_contract import failure_result
from subterminator_tui.serve.tools.tool_calls import READ_ONLY, Principal

RefId = Annotated[str, Field(description="The ref_id from a browser tool's answer.")]


def add_call_log_tools(server: MCPServer[Any], reader: CallLogReader, principal: Principal) -> None:
    """Register get_content and get_console_content on ``server``, as ``principal()``."""

    @server.tool(
        annotations=READ_ONLY,
        description="The full record of a browser call by ref_id: the whole page as text "
        "(every answer gives a compact page and a ref_id). WHEN TO USE: you need more than "
        "the compact page. WHAT HAPPENS: your first read in a session is the whole page; "
        "after that you get only the lines that changed since your last read (a diff of "
        "-/+ lines), and an empty string when nothing did; `reset_cursor` gives the whole "
        "page again; `search_for` returns the matching lines (numbered) without moving your "
        "place. ERRORS: unknown ref_id.",
    )
    def get_content(
        ref_id: RefId,
        search_for: Annotated[
            str | None, Field(description="Only the lines containing this (any case).")
        ] = None,
        reset_cursor: Annotated[
            bool, Field(description="The whole content, not the changes since your last read.")
        ] = False,
    ) -> types.CallToolResult:
        try:
            reading = reader.content(
                principal(), ref_id, search_for=search_for, reset_cursor=reset_cursor
            )
        except SubTerminatorError as error:
            return failure_result(error)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=reading.content)],
            structured_content={
                "ref_id": reading.ref_id,
                "mode": reading.mode,
                "since_ref_id": reading.since_ref_id,
            },
        )

    @server.tool(
        annotations=READ_ONLY,
        description="The browser console messages recorded with a call, one per line as "
        "[LEVEL] message @ url:line. WHEN TO USE: a page misbehaves, to see its errors. WHAT "
        "HAPPENS: the page's messages since it loaded, at `level` or more severe (debug < "
        "info < warn < error; empty: all). ERRORS: unknown ref_id or level.",
    )
    def get_console_content(
        ref_id: RefId,
        level: Annotated[
            Literal["", "debug", "info", "warn", "error"],
            Field(description="The least severe level to include; empty for all."),
        ] = "",
    ) -> types.CallToolResult:
        try:
            text = reader.console(principal(), ref_id, level)
        except SubTerminatorError as error:
            return failure_result(error)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])
