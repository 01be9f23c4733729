"""One error contract for every tool: a structured result with a stable ``error`` code.

A client acts on ``error`` (and ``retry_after`` where waiting helps) without reading
prose, and the message says what to do next without library boilerplate. The codes:

- ``invalid_argument``  an argument failed the tool's schema (the fields are named)
- ``unknown_tool``      no tool of that name (forbidden Playwright tools included)
- ``unknown_service``   no such service (or address, without --any-site)
- ``not_found``         no such session or approval for this principal
- ``busy``              the session runs a call, or holds one for the operator
- ``limit``             the principal or the machine holds as many sessions as allowed
- ``restarting`` / ``degraded``  the browser is coming back, or rests (``retry_after``)
- ``refused``           the guard stopped the call; nothing was sent
- ``rejected``          the operator said no; nothing was sent
- ``browser_error``     the browser failed the call
- ``error``             anything else
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

from subterminator_tui.errors import BrowserUnavailableError, ServiceNotFoundError
from subterminator_tui.inert_text import inert_line
from subterminator_tui.serve.errors import (
    ApprovalNotFoundError,
    ServeInputError,
    SessionBusyError,
    SessionLimitError,
    SessionNotFoundError,
)

_CODES: tuple[tuple[type[Exception], str], ...] = (
    (SessionBusyError, "busy"),
    (SessionLimitError, "limit"),
    (SessionNotFoundError, "not_found"),
    (ApprovalNotFoundError, "not_found"),
    (ServiceNotFoundError, "unknown_service"),
    (ServeInputError, "invalid_argument"),
)
#: Answer statuses that are failures, and their codes.
STATUS_CODES = {"refused": "refused", "rejected": "rejected", "error": "browser_error"}


def error_code(error: Exception) -> str:
    """The stable code of ``error``."""
    if isinstance(error, BrowserUnavailableError):
        return str(error.facts()["error"])
    for kind, code in _CODES:
        if isinstance(error, kind):
            return code
    return "error"


def error_result(code: str, message: str, **facts: Any) -> types.CallToolResult:
    """A failed call: the message to read, and ``{status, error, message, ...}`` to act on."""
    data: dict[str, Any] = {"status": "error", "error": code, "message": message, **facts}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"error: {code}\n{message}")],
        structured_content=data,
        is_error=True,
    )


def failure_result(error: Exception) -> types.CallToolResult:
    """``error`` (ours, or the SDK's ToolError for arguments and unknown tools) as a result."""
    if isinstance(error, BrowserUnavailableError):
        facts = error.facts()
        return error_result(str(facts["error"]), str(error), **facts)
    if isinstance(error, ToolError):
        return _tool_error_result(error)
    return error_result(error_code(error), str(error))


def _tool_error_result(error: ToolError) -> types.CallToolResult:
    cause = error.__cause__
    if isinstance(cause, ValidationError):
        problems = "; ".join(
            f"{'.'.join(str(part) for part in problem['loc'])}: {problem['msg']}"
            for problem in cause.errors()
        )
        return error_result("invalid_argument", f"Invalid arguments: {inert_line(problems)}.")
    message = str(error)
    if message.startswith("Unknown tool: "):
        name = inert_line(message.removeprefix("Unknown tool: "))[:60]
        return error_result(
            "unknown_tool",
            f"No tool {name!r} here. This server offers only its listed tools; nothing that "
            "runs code, uploads or writes files, or decides an approval.",
        )
    return error_result("error", message.removeprefix("Error executing tool "))
