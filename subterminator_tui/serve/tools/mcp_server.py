"""The MCP tool surface: 15 tools over the session registry, for stdio and HTTP alike
(or, with the ``playwright`` profile, Playwright MCP's 13 and approval_wait).

The surface stays small (clients show every tool to their model): the screenshot
is ``snapshot`` with ``image``, and reading an approval's state now is
``approval_wait`` with ``timeout_seconds`` 0. ``dialog`` answers a confirm() or
prompt(), which otherwise blocks every other tool.

Each description says when to use the tool, what happens and what can go wrong,
so an agent picks the right one the first time. Browser tools map onto a fixed
set of Playwright MCP tools with arguments built here: nothing an agent sends
reaches the browser unchecked, and no tool evaluates JavaScript, runs code,
uploads or writes files. No tool decides an approval: only the operator's side
of the ApprovalDesk can.
"""

from __future__ import annotations

from typing import Any

from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from pydantic import AnyHttpUrl

from subterminator_tui import __version__
from subterminator_tui.serve.oversight.approvals import ApprovalDesk
from subterminator_tui.serve.oversight.call_log_reader import CallLogReader
from subterminator_tui.serve.sessions.registry import SessionRegistry
from subterminator_tui.serve.tools.approval_tools import add_approval_tools
from subterminator_tui.serve.tools.browser_tools import add_browser_tools
from subterminator_tui.serve.tools.call_log_tools import add_call_log_tools
from subterminator_tui.serve.tools.error_contract import failure_result
from subterminator_tui.serve.tools.playwright_profile.tools import (
    add_playwright_tools,
    error_markdown,
    unknown_tool_markdown,
)
from subterminator_tui.serve.tools.session_tools import add_session_tools
from subterminator_tui.serve.tools.surface import describe_tools
from subterminator_tui.serve.tools.tool_calls import principal_of_calls

INSTRUCTIONS = (
    "SubTerminator's guarded browser. Open a named session for a service (session_open), "
    "then act with element refs from the latest page (e.g. 'e12'): every action answers "
    "with the fresh compact page. The browser stays inside the service's domains. Steps a "
    "rule marks irreversible return status approval_pending with an approval_id: a human "
    "operator decides; call approval_wait with the id to get the outcome. You cannot "
    "approve your own calls."
)
PLAYWRIGHT_INSTRUCTIONS = (
    "SubTerminator's guarded browser with Playwright MCP's tools (browser_navigate, "
    "browser_snapshot, browser_click, ...): the same names, arguments and answers, in one "
    "browser session per client. Act with refs from the latest snapshot. The browser stays "
    "inside the allowed domains. A step a rule marks irreversible is held for a human "
    "operator: its answer says 'Held for the operator' with an approval_id; call "
    "approval_wait with it for the outcome. You cannot approve your own calls."
)
#: The tool profiles ``serve --tools`` offers: serve's own, or Playwright MCP's names.
TOOL_PROFILES = ("native", "playwright")


def build_server(
    registry: SessionRegistry,
    desk: ApprovalDesk,
    *,
    token_verifier: TokenVerifier | None = None,
    issuer_url: str | None = None,
    reader: CallLogReader | None = None,
    tools: str = "native",
) -> MCPServer[Any]:
    """The MCP server with every tool bound to ``registry`` and ``desk``.

    With ``token_verifier`` every HTTP request needs a bearer token (401 without one),
    and each call acts as the token's principal. ``tools`` is the profile: serve's own
    tools, or ``playwright`` for Playwright MCP's names, arguments and answers.
    """
    auth = (
        AuthSettings(
            issuer_url=AnyHttpUrl(issuer_url or "http://127.0.0.1"), resource_server_url=None
        )
        if token_verifier is not None
        else None
    )
    playwright = tools == "playwright"
    server: MCPServer[Any] = (_PlaywrightErrors if playwright else _StructuredErrors)(
        "subterminator",
        instructions=PLAYWRIGHT_INSTRUCTIONS if playwright else INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
        token_verifier=token_verifier,
        auth=auth,
    )

    principal = principal_of_calls(token_verifier)
    if playwright:
        # Its own names and sessions; the call log tools read serve's records, which an
        # agent written for Playwright MCP does not know, so they are not offered here.
        add_playwright_tools(server, registry, desk, principal)
        return server
    # The order clients list them in: sessions first, then the browser, then what follows.
    add_session_tools(server, registry, principal)
    add_browser_tools(server, registry, principal)
    add_approval_tools(server, desk, principal)
    if reader is not None:
        add_call_log_tools(server, reader, principal)
    describe_tools(server)
    return server


class _StructuredErrors(MCPServer[Any]):
    """The SDK's server, answering a bad argument or an unknown tool like any other failure
    (tools/error_contract.py) instead of with the SDK's own text."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        """As the SDK's, a ToolError becoming a structured error result."""
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise  # logged with its traceback by the SDK; the client reads a plain failure
        except ToolError as error:
            return failure_result(error)


class _PlaywrightErrors(MCPServer[Any]):
    """The SDK's server, answering a bad argument or an unknown tool as Playwright MCP does:
    a tool error whose text is ``### Error`` / ``Error: ...``."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        """As the SDK's; a tool it does not list, or a ToolError, becomes an error result."""
        if self._tool_manager.get_tool(name) is None:
            return unknown_tool_markdown(name)
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise
        except ToolError as error:
            structured = failure_result(error)
            text = structured.content[0].text if structured.content else str(error)  # type: ignore[union-attr]
            return error_markdown(text.partition("\n")[2] or text)
