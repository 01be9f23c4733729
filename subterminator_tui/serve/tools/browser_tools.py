"""The browser tools: each maps onto one allowlisted Playwright MCP tool, with arguments built here.

navigate, snapshot (``image`` adds a screenshot), click, type, select, press_key, back,
dialog and wait_for. Nothing an agent sends reaches the browser unchecked: every call
goes through its session's guard, and no tool evaluates JavaScript, runs code,
uploads or writes files.
"""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from typing import Annotated, Any

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from subterminator_tui.errors import SubTerminatorError
from subterminator_tui.serve.agent_answer import Answer
from subterminator_tui.serve.sessions.registry import SessionRegistry
from subterminator_tui.serve.tools.error_contract import error_result, failure_result
from subterminator_tui.serve.tools.tool_calls import (
    READ_ONLY,
    Principal,
    SessionName,
    as_result,
    with_progress,
)

#: JPEG over PNG keeps a viewport well under 5 MB, the usual limit on a tool result.
MAX_SCREENSHOT_BYTES = 5 * 1024 * 1024

Ref = Annotated[
    str,
    Field(
        description="An element ref from the latest page, such as 'e12'.",
        pattern=r"^(?:f\d+)?e\d+$",
    ),
]


def add_browser_tools(
    server: MCPServer[Any], registry: SessionRegistry, principal: Principal
) -> None:
    """Register the browser tools on ``server``, each acting in ``principal()``'s sessions."""

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
            answer = await (with_progress(ctx, label, work) if label else work)
        except SubTerminatorError as error:
            # Degraded or restarting carry retry_after; every failure has its error code.
            return failure_result(error)
        return as_result(answer)

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
