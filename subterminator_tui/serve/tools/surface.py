"""What clients are told about each tool besides its name: a title, behaviour hints and the
shape of its structured answer.

Clients act on the hints: they run read-only tools without asking, ask before
destructive ones and may auto-cancel open-world ones. The browser tools act on
real sites (open world); the ones that can finish an irreversible step are
destructive even though a rule holds that step for the operator, because the
client's own confirmation is one more layer, not a replacement. Kept in one table
so a new tool cannot be registered without its hints (a test checks every tool).

Names: the tools keep short verbs (``click``, ``type``, ``back``). An MCP host
shows them under the server's name (``subterminator``) and most prefix them with
it (``mcp__subterminator__click``); the titles say ``SubTerminator`` too, so beside
another browser server nothing reads as the other's ``click``. Renaming every tool
(``st_click``) would break the clients already configured against them for a
gain the namespacing already gives.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server.mcpserver import MCPServer

_STRING = {"type": "string"}
_FAILURE_FACTS: dict[str, Any] = {
    "error": {
        "type": "string",
        "description": "A stable code on failure: refused, rejected, busy, not_found, limit, "
        "restarting, degraded, invalid_argument, unknown_service, browser_error, error.",
    },
    "retry_after": {"type": "integer", "description": "Whole seconds to wait, when it helps."},
    "session": _STRING,
}
#: Every browser tool's answer (and session_open's, session_close's, approval_wait's).
ANSWER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "status": {"enum": ["ok", "approval_pending", "rejected", "refused", "error"]},
        "message": _STRING,
        "approval_id": _STRING,
        "ref_id": {**_STRING, "description": "The call's record: get_content reads it."},
        "url": _STRING,
        "title": _STRING,
        "verified": {
            "type": "boolean",
            "description": "The service's success rules confirm this page (never the agent).",
        },
        **_FAILURE_FACTS,
    },
    "required": ["status", "message"],
}
SESSIONS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"sessions": {"type": "array", "items": {"type": "object"}}},
    "required": ["sessions"],
}
CONTENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ref_id": _STRING,
        "mode": {"enum": ["full", "diff", "unchanged", "search"]},
        "since_ref_id": {"type": ["string", "null"]},
    },
    "required": ["ref_id", "mode"],
}


def _hints(
    read_only: bool, *, destructive: bool = False, idempotent: bool = False, open_world: bool
) -> types.ToolAnnotations:
    return types.ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=open_world,
    )


_LOOK = _hints(True, idempotent=True, open_world=True)
_ACT = _hints(False, destructive=True, open_world=True)

#: name: (title, hints, output schema or None when the answer has no structured part).
TOOL_SURFACE: dict[str, tuple[str, types.ToolAnnotations, dict[str, Any] | None]] = {
    "session_open": (
        "SubTerminator: open a browser session",
        _hints(False, idempotent=True, open_world=False),
        ANSWER_SCHEMA,
    ),
    "session_list": (
        "SubTerminator: list my sessions",
        _hints(True, idempotent=True, open_world=False),
        SESSIONS_SCHEMA,
    ),
    "session_close": (
        "SubTerminator: close a session",
        _hints(False, destructive=True, open_world=False),
        ANSWER_SCHEMA,
    ),
    "navigate": ("SubTerminator: open a page", _ACT, ANSWER_SCHEMA),
    "snapshot": ("SubTerminator: read the page", _LOOK, ANSWER_SCHEMA),
    "click": ("SubTerminator: click an element", _ACT, ANSWER_SCHEMA),
    "type": ("SubTerminator: type into a field", _ACT, ANSWER_SCHEMA),
    # Choosing an option can submit its form (an onchange, a one-field form): destructive.
    "select": ("SubTerminator: choose an option", _ACT, ANSWER_SCHEMA),
    "press_key": ("SubTerminator: press a key", _ACT, ANSWER_SCHEMA),
    "back": ("SubTerminator: go back", _hints(False, open_world=True), ANSWER_SCHEMA),
    "wait_for": ("SubTerminator: wait for the page", _LOOK, ANSWER_SCHEMA),
    "dialog": ("SubTerminator: answer a dialog", _ACT, ANSWER_SCHEMA),
    "approval_wait": (
        "SubTerminator: wait for the operator",
        _hints(True, idempotent=True, open_world=False),
        ANSWER_SCHEMA,
    ),
    "get_content": (
        "SubTerminator: read a call's full page",
        _hints(True, open_world=False),
        CONTENT_SCHEMA,
    ),
    "get_console_content": (
        "SubTerminator: read a call's console",
        _hints(True, idempotent=True, open_world=False),
        None,
    ),
}


def describe_tools(server: MCPServer[Any]) -> None:
    """Give every registered tool its title, hints and output schema from TOOL_SURFACE.

    KeyError for a tool the table does not describe: none goes out without its hints.
    """
    for tool in server._tool_manager.list_tools():
        title, hints, schema = TOOL_SURFACE[tool.name]
        tool.title = title
        tool.annotations = hints
        # Advertised for clients; our answers are built to it (tests check them against it).
        tool.fn_metadata.output_schema = schema
