"""The Playwright-compatible tools: Playwright MCP's names and arguments, serve's guarded session.

Every call goes where a native tool's goes: the caller's session, its guard, the
guarded-call pipeline and, for an irreversible step, the operator's desk. Playwright
MCP has no session argument, so each principal gets one implicit session:

- the principal's session named ``playwright`` when it has one;
- else its only session (the operator's ``--session NAME=SERVICE`` on stdio);
- else, on ``browser_navigate``, a session ``playwright`` for the configured service
  whose domains allow the address (or, with ``--any-site``, for that address's site).

Arguments are checked against the pinned schema first and every ``target`` must be a
ref from the page the agent was last given: a selector or a ref from an older page
never reaches the browser. Refusals and failures are tool errors (``isError``) in
Playwright MCP's own words (``### Error`` / ``Error: ...``), never protocol errors.
"""

from __future__ import annotations

import asyncio
import base64
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools.base import Tool
from mcp.server.mcpserver.utilities.func_metadata import func_metadata
from pydantic import Field

from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.browser.tools import REF_PATTERN
from subterminator_tui.errors import SubTerminatorError
from subterminator_tui.inert_text import inert_line, inert_text
from subterminator_tui.serve.agent_answer import Answer
from subterminator_tui.serve.errors import ServeInputError
from subterminator_tui.serve.names import echoed
from subterminator_tui.serve.oversight.approvals import ApprovalDesk
from subterminator_tui.serve.sessions.browser_session import BrowserSession
from subterminator_tui.serve.sessions.registry import SessionRegistry
from subterminator_tui.serve.tools.playwright_profile.catalog import (
    REFUSED_TOOLS,
    PinnedTool,
    argument_problems,
    profile_tools,
)
from subterminator_tui.serve.tools.playwright_profile.page_markdown import playwright_markdown
from subterminator_tui.serve.tools.playwright_profile.refs import serve_ref
from subterminator_tui.serve.tools.tool_calls import Principal, with_progress

#: The implicit session's name, per principal.
IMPLICIT_SESSION = "playwright"
#: A tool result over this is refused, as the native snapshot's image is.
MAX_SCREENSHOT_BYTES = 5 * 1024 * 1024
MAX_APPROVAL_WAIT_SECONDS = 300.0
_REF = re.compile(REF_PATTERN)
_IMAGE_TYPES = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}
#: Arguments serve will not pass on: they write files on the server.
_FILE_ARGUMENTS = ("filename",)

#: One compat tool's work: the raw arguments and the call's context to a result.
Handler = Callable[[dict[str, Any], Context | None], Awaitable[types.CallToolResult]]


def error_markdown(message: str) -> types.CallToolResult:
    """A refusal or failure as Playwright MCP writes one: a tool error, never a protocol one."""
    text = inert_text(f"### Error\nError: {message}")
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def unknown_tool_markdown(name: str) -> types.CallToolResult:
    """The answer to a tool this profile does not list (refused on purpose, or no such tool)."""
    shown = inert_line(name)[:60]
    why = REFUSED_TOOLS.get(name)
    if why is not None:
        return error_markdown(f'Tool "{shown}" is not offered by this server: it {why}.')
    return error_markdown(f'Tool "{shown}" not found.')


class PinnedSchemaTool(Tool):
    """A tool whose advertised input schema is Playwright MCP's own, checked as such.

    The SDK derives a tool's schema from a Python signature; these keep the pinned
    server's JSON schema verbatim and validate against it, so an agent's arguments mean
    here exactly what they mean there.
    """

    async def run(
        self, arguments: dict[str, Any], context: Any, convert_result: bool = False
    ) -> Any:
        """The handler's result for ``arguments``, or the schema's complaint as a tool error."""
        tool = PinnedTool(self.name, self.description, self.parameters, self.annotations)  # type: ignore[arg-type]
        problems = argument_problems(tool, arguments)
        if problems:
            return error_markdown(f"Invalid arguments: {inert_line('; '.join(problems))[:400]}.")
        handler: Handler = self.fn
        return await handler(arguments, context)


async def _no_arguments() -> None:
    """Stands in for the handler where the SDK reads a signature (never called)."""


def _register(server: MCPServer[Any], pinned: PinnedTool, handler: Handler) -> None:
    tool = PinnedSchemaTool(
        fn=handler,
        name=pinned.name,
        title=pinned.annotations.title,
        description=pinned.description,
        parameters=pinned.input_schema,
        fn_metadata=func_metadata(_no_arguments, structured_output=False),
        is_async=True,
        context_kwarg=None,
        annotations=pinned.annotations,
    )
    server._tool_manager._tools[pinned.name] = tool


class ImplicitSessions:
    """Each principal's one implicit session, found or opened for a Playwright-style call."""

    def __init__(self, registry: SessionRegistry, principal: Principal) -> None:
        self.registry = registry
        self.principal = principal

    def session_for(self, tool: str, arguments: dict[str, Any]) -> BrowserSession:
        """The caller's session for this call; ServeInputError when none can be chosen."""
        principal = self.principal()
        mine = {
            key.name: session
            for key, session in self.registry.sessions.items()
            if key.principal == principal
        }
        if IMPLICIT_SESSION in mine:
            return mine[IMPLICIT_SESSION]
        if len(mine) == 1:
            return next(iter(mine.values()))
        if mine:
            names = ", ".join(sorted(mine))
            raise ServeInputError(
                f"you hold several sessions ({names}) and none is named "
                f"'{IMPLICIT_SESSION}': these tools act in one session only."
            )
        url = str(arguments.get("url", "")) if tool == "browser_navigate" else ""
        if not url:
            raise ServeInputError(
                "no page is open yet. Call browser_navigate with the address of a service "
                "this server offers first."
            )
        service = self.registry.service_for_address(url)
        if service is None:
            raise ServeInputError(
                f"{echoed(url)} belongs to no service this server offers; nothing was "
                "requested. Ask the operator to add the service (or start serve with "
                "--any-site)."
            )
        session, _new = self.registry.open(principal, IMPLICIT_SESSION, service)
        return session


def add_playwright_tools(
    server: MCPServer[Any], registry: SessionRegistry, desk: ApprovalDesk, principal: Principal
) -> None:
    """Register the Playwright-compatible tools and approval_wait on ``server``."""
    sessions = ImplicitSessions(registry, principal)

    async def guarded(
        tool: str, arguments: dict[str, Any], ctx: Context | None
    ) -> tuple[Answer | None, types.CallToolResult | None]:
        """Run ``tool`` in the caller's session: the answer, or the error result instead."""
        try:
            session = sessions.session_for(tool, arguments)
            stale = _unchecked_target(session, arguments)
            if stale is not None:
                return None, error_markdown(stale)
            work = session.run(tool, _with_serve_refs(arguments, session.page))
            return await with_progress(ctx, tool.removeprefix("browser_"), work), None
        except SubTerminatorError as error:
            return None, error_markdown(str(error))

    def as_markdown(tool: str, answer: Answer) -> types.CallToolResult:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=playwright_markdown(answer, tool))],
            structured_content=answer.structured(),
            is_error=answer.is_error,
        )

    def plain(tool: str, keys: tuple[str, ...] = ()) -> Handler:
        async def handler(arguments: dict[str, Any], ctx: Context | None) -> types.CallToolResult:
            refused = _file_argument(arguments)
            if refused is not None:
                return error_markdown(refused)
            sent = {key: arguments[key] for key in keys if key in arguments}
            answer, failed = await guarded(tool, sent, ctx)
            return failed if answer is None else as_markdown(tool, answer)  # type: ignore[return-value]

        return handler

    async def take_screenshot(
        arguments: dict[str, Any], ctx: Context | None
    ) -> types.CallToolResult:
        refused = _file_argument(arguments)
        if refused is not None:
            return error_markdown(refused)
        kind = str(arguments.get("type", "png"))
        sent = {"type": kind, "scale": arguments.get("scale", "css")}
        sent.update({k: arguments[k] for k in ("target", "element", "fullPage") if k in arguments})
        answer, failed = await guarded("browser_take_screenshot", sent, ctx)
        if answer is None:
            return failed  # type: ignore[return-value]
        result = as_markdown("browser_take_screenshot", answer)
        shot = answer.page.screenshot_path if answer.page is not None else None
        if answer.is_error or shot is None:
            return result
        data = await asyncio.to_thread(Path(shot).read_bytes)
        if len(data) > MAX_SCREENSHOT_BYTES:
            return error_markdown("the screenshot is over 5 MB; use browser_snapshot instead.")
        image = types.ImageContent(
            type="image",
            data=base64.b64encode(data).decode("ascii"),
            mime_type=_IMAGE_TYPES.get(kind, "image/png"),
        )
        # Playwright MCP's order: its text first, then the picture.
        return result.model_copy(update={"content": [*result.content, image]})

    handlers: dict[str, Handler] = {
        "browser_navigate": plain("browser_navigate", ("url",)),
        "browser_navigate_back": plain("browser_navigate_back"),
        "browser_snapshot": plain("browser_snapshot"),
        "browser_click": plain(
            "browser_click", ("target", "element", "doubleClick", "button", "modifiers")
        ),
        "browser_type": plain("browser_type", ("target", "element", "text", "submit", "slowly")),
        "browser_fill_form": plain("browser_fill_form", ("fields",)),
        "browser_select_option": plain("browser_select_option", ("target", "element", "values")),
        "browser_press_key": plain("browser_press_key", ("key",)),
        "browser_hover": plain("browser_hover", ("target", "element")),
        "browser_wait_for": plain("browser_wait_for", ("time", "text", "textGone")),
        "browser_tabs": plain("browser_tabs", ("action", "index", "url")),
        "browser_handle_dialog": plain("browser_handle_dialog", ("accept", "promptText")),
        "browser_take_screenshot": take_screenshot,
    }
    for pinned in profile_tools():
        _register(server, pinned, handlers[pinned.name])

    @server.tool(
        title="Wait for the operator's decision",
        annotations=types.ToolAnnotations(
            title="Wait for the operator's decision",
            read_only_hint=True,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=False,
        ),
        description="Wait for the human operator to decide a call this server held (not a "
        "Playwright MCP tool: serve holds irreversible steps, such as a final 'Cancel "
        "membership' or 'Pay' click, for a person). WHEN TO USE: after a browser_* answer "
        "whose Result says 'Held for the operator' with an approval_id. WHAT HAPPENS: waits "
        "up to `timeout_seconds` (default 60, at most 300; 0 reads the state now); approved, "
        "the call is sent and you get its page; rejected, an error and nothing was sent; "
        "still pending, the same id to wait on again. You cannot approve it yourself.",
        structured_output=False,
    )
    async def approval_wait(
        approval_id: Annotated[str, Field(description="The approval_id of the held call.")],
        ctx: Context,
        timeout_seconds: Annotated[
            float,
            Field(
                description="Seconds to wait (0 reads it now).", ge=0, le=MAX_APPROVAL_WAIT_SECONDS
            ),
        ] = 60.0,
    ) -> types.CallToolResult:
        try:
            desk.get(principal(), approval_id)
        except SubTerminatorError as error:
            return error_markdown(str(error))

        async def waited() -> Answer:
            approval = await desk.wait(principal(), approval_id, timeout_seconds)
            return approval.answer_for_agent()

        answer = await with_progress(ctx, "waiting for the operator", waited())
        # The decided call may have typed: its code section is never repeated here.
        return as_markdown("browser_type", answer)


def _file_argument(arguments: dict[str, Any]) -> str | None:
    """Why a call that asks serve to write a file is refused (None: it asks for none)."""
    for key in _FILE_ARGUMENTS:
        if key in arguments:
            return (
                f"`{key}` is not supported here: this server writes no files. Nothing was done; "
                "call again without it."
            )
    return None


def _unchecked_target(session: BrowserSession, arguments: dict[str, Any]) -> str | None:
    """Why a target is refused before the guard sees it: not a ref, or not on the agent's
    latest page (None: every target is a ref of that page)."""
    targets = [arguments["target"]] if "target" in arguments else []
    fields = arguments.get("fields")
    if isinstance(fields, list):
        targets += [field.get("target") for field in fields if isinstance(field, dict)]
    page = session.page
    for target in targets:
        shown = echoed(target)
        if not isinstance(target, str) or not _REF.fullmatch(target):
            return (
                f"target {shown} is not an element ref. This server takes refs from the "
                "latest snapshot only (such as 'e12'), never selectors. Nothing was done."
            )
        if page is not None and page.element_by_ref(serve_ref(target, page)) is None:
            return (
                f"Ref {target} not found in the current page snapshot. Try capturing new "
                "snapshot. Nothing was done."
            )
    return None


def _with_serve_refs(arguments: dict[str, Any], page: NormalizedSnapshot | None) -> dict[str, Any]:
    """``arguments`` with every target as serve's id for it (checked refs only)."""
    mapped = dict(arguments)
    if isinstance(mapped.get("target"), str):
        mapped["target"] = serve_ref(mapped["target"], page)
    fields = mapped.get("fields")
    if isinstance(fields, list):
        mapped["fields"] = [
            {**field, "target": serve_ref(field["target"], page)}
            if isinstance(field, dict) and isinstance(field.get("target"), str)
            else field
            for field in fields
        ]
    return mapped
