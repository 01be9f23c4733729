"""The MCP tool surface: 15 tools over the session registry, for stdio and HTTP alike.

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

import asyncio
import base64
import contextlib
from collections.abc import Awaitable
from pathlib import Path
from typing import Annotated, Any

import mcp_types as types
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from pydantic import AnyHttpUrl, Field

from subterminator_tui import __version__
from subterminator_tui.errors import SubTerminatorError
from subterminator_tui.serve.oversight.approvals import ApprovalDesk
from subterminator_tui.serve.oversight.call_log_reader import ContentReader
from subterminator_tui.serve.sessions.names import LOCAL_PRINCIPAL
from subterminator_tui.serve.sessions.registry import SessionRegistry
from subterminator_tui.serve.tools.agent_answer import Answer
from subterminator_tui.serve.tools.call_log_tools import add_record_tools
from subterminator_tui.serve.tools.error_contract import error_result, failure_result
from subterminator_tui.serve.tools.surface import describe_tools

#: JPEG over PNG keeps a viewport well under 5 MB, the usual limit on a tool result.
MAX_SCREENSHOT_BYTES = 5 * 1024 * 1024
#: A long call reports progress this often, so clients do not time it out.
PROGRESS_SECONDS = 1.0
MAX_APPROVAL_WAIT_SECONDS = 300.0

INSTRUCTIONS = (
    "SubTerminator's guarded browser. Open a named session for a service (session_open), "
    "then act with element refs from the latest page (e.g. 'e12'): every action answers "
    "with the fresh compact page. The browser stays inside the service's domains. Steps a "
    "rule marks irreversible return status approval_pending with an approval_id: a human "
    "operator decides; call approval_wait with the id to get the outcome. You cannot "
    "approve your own calls."
)

#: Tools that change nothing on the page (clients may run them without asking).
READ_ONLY = types.ToolAnnotations(read_only_hint=True)

SessionName = Annotated[str, Field(description="The session's name, as given to session_open.")]
Ref = Annotated[
    str,
    Field(
        description="An element ref from the latest page, such as 'e12'.",
        pattern=r"^(?:f\d+)?e\d+$",
    ),
]


def as_result(answer: Answer) -> types.CallToolResult:
    """An answer as the MCP result: the text to read, the same facts structured."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=answer.text())],
        structured_content=answer.structured(),
        is_error=answer.is_error,
    )


async def _with_progress(ctx: Context | None, label: str, work: Awaitable[Answer]) -> Answer:
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


def build_server(
    registry: SessionRegistry,
    desk: ApprovalDesk,
    *,
    token_verifier: TokenVerifier | None = None,
    issuer_url: str | None = None,
    reader: ContentReader | None = None,
) -> MCPServer[Any]:
    """The MCP server with every tool bound to ``registry`` and ``desk``.

    With ``token_verifier`` every HTTP request needs a bearer token (401 without one),
    and each call acts as the token's principal.
    """
    auth = (
        AuthSettings(
            issuer_url=AnyHttpUrl(issuer_url or "http://127.0.0.1"), resource_server_url=None
        )
        if token_verifier is not None
        else None
    )
    server: MCPServer[Any] = _StructuredErrors(
        "subterminator",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
        token_verifier=token_verifier,
        auth=auth,
    )

    def principal() -> str:
        """Who is calling: the bearer token's principal; the local operator without auth."""
        token = get_access_token()
        if token is not None:
            return token.client_id
        if token_verifier is not None:
            # Never fall back to a shared principal when tokens are required.
            raise ToolError("No authenticated principal for this call.")
        return LOCAL_PRINCIPAL

    async def browser(
        session: str,
        tool: str,
        arguments: dict[str, Any],
        ctx: Context | None = None,
        label: str | None = None,
    ) -> types.CallToolResult:
        try:
            held = registry.get(principal(), session)
            work = held.run(tool, arguments)
            answer = await (_with_progress(ctx, label, work) if label else work)
        except SubTerminatorError as error:
            # Degraded or restarting carry retry_after; every failure has its error code.
            return failure_result(error)
        return as_result(answer)

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

    @server.tool(
        description="Open a URL in the session (a path is relative to the current page). "
        "WHEN TO USE: to go to one of the service's pages. WHAT HAPPENS: the fresh page. "
        "ERRORS: a URL outside the allowed domains is refused and nothing is requested."
    )
    async def navigate(
        session: SessionName, url: Annotated[str, Field(description="URL or path.")], ctx: Context
    ) -> types.CallToolResult:
        return await browser(session, "browser_navigate", {"url": url}, ctx, "navigating")

    @server.tool(
        annotations=READ_ONLY,
        description="Read the current page. WHEN TO USE: to get fresh element refs, after "
        "waiting, or first in a session. WHAT HAPPENS: a compact accessibility tree with refs; "
        "`full` gives the whole tree; `image` adds a JPEG of the visible page (at most 2000 px "
        "a side, under 5 MB) for when layout or images matter. ERRORS: the browser could not "
        "be started; a dialog blocks the image.",
    )
    async def snapshot(
        session: SessionName,
        ctx: Context,
        full: Annotated[bool, Field(description="The whole tree, not the compact one.")] = False,
        image: Annotated[bool, Field(description="Add a JPEG of the visible page.")] = False,
    ) -> types.CallToolResult:
        if image:
            return await screenshot(session, ctx)
        result = await browser(session, "browser_snapshot", {}, ctx, "opening")
        if full and not result.is_error:
            page = registry.get(principal(), session).page
            result = as_result(Answer("ok", "", page, full=True))
        return result

    @server.tool(
        description="Click an element by ref. WHEN TO USE: buttons, links, checkboxes, "
        "radios. WHAT HAPPENS: the fresh page; an irreversible click returns "
        "approval_pending and waits for the operator. ERRORS: stale ref, changed element."
    )
    async def click(session: SessionName, ref: Ref, ctx: Context) -> types.CallToolResult:
        return await browser(session, "browser_click", {"target": ref}, ctx, "clicking")

    @server.tool(
        name="type",
        description="Type text into a textbox by ref. WHEN TO USE: free-text fields. WHAT "
        "HAPPENS: the field is filled (`submit` presses Enter), fresh page. ERRORS: stale "
        "ref, not editable; a submit that would finish an irreversible step waits for approval.",
    )
    async def type_text(
        session: SessionName,
        ref: Ref,
        text: Annotated[str, Field(description="The text to type.")],
        ctx: Context,
        submit: Annotated[bool, Field(description="Press Enter after typing.")] = False,
    ) -> types.CallToolResult:
        arguments = {"target": ref, "text": text, "submit": submit}
        return await browser(session, "browser_type", arguments, ctx, "typing")

    @server.tool(
        description="Choose options in a dropdown by ref. WHEN TO USE: comboboxes and "
        "listboxes. WHAT HAPPENS: the fresh page. ERRORS: stale ref, no such option."
    )
    async def select(
        session: SessionName,
        ref: Ref,
        values: Annotated[list[str], Field(description="Option labels or values.", min_length=1)],
        ctx: Context,
    ) -> types.CallToolResult:
        arguments = {"target": ref, "values": values}
        return await browser(session, "browser_select_option", arguments, ctx, "selecting")

    @server.tool(
        description="Press a key (Escape, Enter, Tab, ArrowDown). WHEN TO USE: close a "
        "pop-up, move focus. WHAT HAPPENS: the fresh page; Enter on an irreversible button "
        "waits for approval. ERRORS: unknown key."
    )
    async def press_key(
        session: SessionName,
        key: Annotated[str, Field(description="A key name such as 'Escape'.")],
        ctx: Context,
    ) -> types.CallToolResult:
        return await browser(session, "browser_press_key", {"key": key}, ctx, "pressing")

    @server.tool(
        description="Go back one page. WHEN TO USE: a wrong turn. WHAT HAPPENS: the fresh "
        "page. ERRORS: no earlier page."
    )
    async def back(session: SessionName, ctx: Context) -> types.CallToolResult:
        return await browser(session, "browser_navigate_back", {}, ctx, "going back")

    @server.tool(
        description="Answer the native dialog (confirm, prompt, leave-page) the page has open. "
        "WHEN TO USE: the page lists a dialog under 'Modal state'; nothing else runs until it "
        "is answered (plain alerts are acknowledged for you and listed under 'Dialogs'). "
        "WHAT HAPPENS: accepted or dismissed, the fresh page; accepting one that finishes an "
        "irreversible step returns approval_pending. ERRORS: no dialog open."
    )
    async def dialog(
        session: SessionName,
        accept: Annotated[bool, Field(description="True: OK/accept; false: Cancel/dismiss.")],
        ctx: Context,
        prompt_text: Annotated[
            str | None, Field(description="The text to answer a prompt() with.")
        ] = None,
    ) -> types.CallToolResult:
        arguments: dict[str, Any] = {"accept": accept}
        if prompt_text is not None:
            arguments["promptText"] = prompt_text
        return await browser(session, "browser_handle_dialog", arguments, ctx, "answering")

    @server.tool(
        annotations=READ_ONLY,
        description="Wait for text to appear or disappear, or for some seconds (at most 30). "
        "WHEN TO USE: the page is loading. WHAT HAPPENS: the fresh page. ERRORS: timeout.",
    )
    async def wait_for(
        session: SessionName,
        ctx: Context,
        text: Annotated[str | None, Field(description="Text to wait for.")] = None,
        text_gone: Annotated[str | None, Field(description="Text to wait to vanish.")] = None,
        seconds: Annotated[float | None, Field(description="Seconds.", ge=0, le=30)] = None,
    ) -> types.CallToolResult:
        arguments: dict[str, Any] = {}
        if text is not None:
            arguments["text"] = text
        if text_gone is not None:
            arguments["textGone"] = text_gone
        if seconds is not None:
            arguments["time"] = seconds
        if not arguments:
            return error_result("invalid_argument", "Give text, text_gone or seconds.")
        return await browser(session, "browser_wait_for", arguments, ctx, "waiting")

    async def screenshot(session: SessionName, ctx: Context) -> types.CallToolResult:
        """snapshot with ``image``: the JPEG first, then the compact page as text."""
        result = await browser(
            session, "browser_take_screenshot", {"type": "jpeg"}, ctx, "capturing"
        )
        page = registry.get(principal(), session).page
        if result.is_error or page is None or page.screenshot_path is None:
            return result
        data = await asyncio.to_thread(Path(page.screenshot_path).read_bytes)
        if len(data) > MAX_SCREENSHOT_BYTES:
            return error_result(
                "limit", "The screenshot is over 5 MB; use snapshot without image instead."
            )
        image = types.ImageContent(
            type="image", data=base64.b64encode(data).decode("ascii"), mime_type="image/jpeg"
        )
        return types.CallToolResult(
            content=[image, *result.content], structured_content=result.structured_content
        )

    @server.tool(
        description="Wait for the operator to decide a held call, up to `timeout_seconds` "
        "(default 60, at most 300; 0 reads its state now). WHEN TO USE: after "
        "approval_pending. WHAT HAPPENS: the call is sent only if approved; you get its fresh "
        "page, or the rejection, or still pending. You cannot approve it yourself. ERRORS: "
        "unknown id."
    )
    async def approval_wait(
        approval_id: Annotated[str, Field(description="The id from approval_pending.")],
        ctx: Context,
        timeout_seconds: Annotated[float, Field(ge=0, le=MAX_APPROVAL_WAIT_SECONDS)] = 60.0,
    ) -> types.CallToolResult:
        try:
            desk.get(principal(), approval_id)
        except SubTerminatorError as error:
            return failure_result(error)

        async def waited() -> Answer:
            approval = await desk.wait(principal(), approval_id, timeout_seconds)
            return approval.answer_for_agent()

        return as_result(await _with_progress(ctx, "waiting for the operator", waited()))

    if reader is not None:
        add_record_tools(server, reader, principal)
    describe_tools(server)
    return server


class _StructuredErrors(MCPServer[Any]):
    """The SDK's server, answering a bad argument or an unknown tool like any other failure
    (error_contract.py) instead of with the SDK's own text."""

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
