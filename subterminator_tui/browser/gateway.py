"""The browser gateway: one guarded Playwright MCP session with fresh state after every action.

The MCP client lives in a task of its own (the *session owner*): the SDK's
stdio transport opens cancel scopes and a task group that must be closed by
the task that opened them, and callers (the loop, the Textual worker) need to
time out or be cancelled without tearing those scopes. Callers talk to the
owner through a queue.

A watchdog notices when Node dies (a crash, or a SIGKILL) and immediately
kills the Chromium it leaves behind, which Playwright started in a process
group of its own. The next call restarts the server once and reopens the
last URL (seed 000 §3.2).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import logging
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from subterminator_tui import __version__
from subterminator_tui.browser.answers import (
    ANSI,
    error_message,
    restart_message,
    root_cause,
    text_of,
)
from subterminator_tui.browser.inspection import (
    NO_FACTS,
    PAGE_FACTS_FUNCTION,
    PageFacts,
    parse_page_facts,
)
from subterminator_tui.browser.launch import LaunchPlan
from subterminator_tui.browser.processes import kill_browser_processes, pid_alive, process_table
from subterminator_tui.browser.profile_lock import ensure_profile_free
from subterminator_tui.browser.sign_in import (
    SAVE_STATE_CODE,
    SIGN_IN_FILE,
    add_cookies_code,
    parse_saved_state,
    write_private_json,
)
from subterminator_tui.browser.snapshot import (
    NormalizedSnapshot,
    normalize_snapshot,
    split_sections,
)
from subterminator_tui.browser.tools import (
    REQUIRED_TOOLS,
    check_allowed,
    validate_arguments,
    with_schema_defaults,
)
from subterminator_tui.errors import (
    MCPConnectionError,
    MCPToolError,
    OutcomeUnknownError,
    SnapshotValidationError,
)

logger = logging.getLogger(__name__)

# Calls that are safe to repeat after a restart; a click on a ref is not:
# refs change when the page is reopened.
_REPEATABLE = frozenset(
    {"browser_snapshot", "browser_navigate", "browser_wait_for", "browser_take_screenshot"}
)
_WATCHDOG_INTERVAL = 0.2
#: A page still loading after an action gets this many waits of this long to settle.
_SETTLE_ATTEMPTS = 3
_SETTLE_SECONDS = 0.5
_FILE_CHOOSER = "[File chooser]"
_FILE_CHOOSER_NOTE = (
    "That action opened a file chooser. SubTerminator never uploads files, so it was "
    "closed; this task does not need a file. Choose another way forward."
)


@dataclass(frozen=True)
class ActionResult:
    """What a dispatched tool call produced: the server's text and the fresh page."""

    tool: str
    arguments: dict[str, Any]
    text: str
    snapshot: NormalizedSnapshot
    screenshot_path: Path | None = None


@dataclass
class _Request:
    name: str
    arguments: dict[str, Any]
    reply: asyncio.Future[types.CallToolResult]


class _ServerStopped(Exception):
    """The Playwright MCP process is gone; the gateway may restart it."""


class BrowserGateway:
    """A Playwright MCP server plus the browser it drives, used from one asyncio task."""

    def __init__(
        self,
        plan: LaunchPlan,
        *,
        connect_timeout: float = 10.0,
        call_timeout: float = 30.0,
        max_restarts: int = 1,
    ) -> None:
        self.plan = plan
        self.connect_timeout = connect_timeout
        self.call_timeout = call_timeout
        self.max_restarts = max_restarts
        self.server_tools: dict[str, types.Tool] = {}
        self.last_snapshot: NormalizedSnapshot | None = None
        self.restarts = 0
        #: Time spent waiting for Playwright MCP's answers: the browser's share of a turn.
        self.mcp_seconds = 0.0
        self.node_pid: int | None = None
        self._owner: asyncio.Task[None] | None = None
        self._watchdog: asyncio.Task[None] | None = None
        self._requests: asyncio.Queue[_Request | None] = asyncio.Queue()
        self._server_died = False
        self._closing = False
        self._errlog: TextIO | None = None
        self._screenshots = 0

    # --- lifecycle ------------------------------------------------------------------

    async def __aenter__(self) -> BrowserGateway:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def start(self) -> None:
        """Check the profile, start the server, handshake, cache tools/list, restore sign-ins."""
        ensure_profile_free(self.plan.profile_dir)
        await self._start_server()
        await self._restore_sign_in()

    async def keep_sign_in(self) -> None:
        """Save the browser's cookies and local storage beside the profile, now.

        Chromium writes its cookie store lazily; a run killed with SIGKILL (or a
        power cut) would lose a sign-in made moments before. The copy is restored
        when the next browser starts. It lives in the profile directory, which
        holds the same cookies already, and only the person can read it (0600).
        """
        try:
            result = await self._dispatch("browser_run_code_unsafe", {"code": SAVE_STATE_CODE})
        except (MCPToolError, _ServerStopped):
            return
        state = parse_saved_state(text_of(result))
        if state is not None:
            await asyncio.to_thread(write_private_json, self.plan.profile_dir / SIGN_IN_FILE, state)

    async def _restore_sign_in(self) -> None:
        code = add_cookies_code(self.plan.profile_dir / SIGN_IN_FILE)
        if code is not None:
            with contextlib.suppress(MCPToolError, _ServerStopped):
                await self._dispatch("browser_run_code_unsafe", {"code": code})

    async def _start_server(self) -> None:
        self._server_died = False
        self._requests = asyncio.Queue()
        self._errlog = self.plan.server_log.open("a", encoding="utf-8")
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[types.ListToolsResult] = loop.create_future()
        self._owner = asyncio.create_task(self._own_session(ready), name="playwright-mcp")
        try:
            listing = await asyncio.wait_for(asyncio.shield(ready), self.connect_timeout)
        except TimeoutError:
            await self._stop_server()
            raise MCPConnectionError(
                f"Playwright MCP did not answer within {self.connect_timeout:.0f} s. "
                + self._diagnostics()
            ) from None
        except (Exception, asyncio.CancelledError) as error:
            await self._stop_server()
            if isinstance(error, asyncio.CancelledError):
                raise
            raise MCPConnectionError(
                f"Failed to connect to Playwright MCP ({root_cause(error)}). " + self._diagnostics()
            ) from error
        self.server_tools = {tool.name: tool for tool in listing.tools}
        missing = REQUIRED_TOOLS - self.server_tools.keys()
        if missing:
            await self._stop_server()
            raise MCPConnectionError(
                f"Playwright MCP {self.plan.package.version} lacks {', '.join(sorted(missing))}; "
                "reinstall the pinned version with: make setup"
            )
        self.node_pid = self._find_node_pid()
        self._watchdog = asyncio.create_task(self._watch_node(), name="playwright-mcp-watchdog")

    async def _own_session(self, ready: asyncio.Future[types.ListToolsResult]) -> None:
        params = StdioServerParameters(
            command=str(self.plan.node.executable),
            args=self.plan.arguments(),
            env=self.plan.environment(),
            cwd=self.plan.run_dir,
        )
        assert self._errlog is not None
        client = Client(
            stdio_client(params, errlog=self._errlog),
            mode="legacy",
            client_info=types.Implementation(name="subterminator", version=__version__),
        )
        pending: _Request | None = None
        try:
            async with client:
                listing = await client.list_tools()
                if not ready.done():
                    ready.set_result(listing)
                while True:
                    pending = await self._requests.get()
                    if pending is None:
                        return
                    result = await client.call_tool(pending.name, pending.arguments)
                    if not pending.reply.done():
                        pending.reply.set_result(result)
                    pending = None
        except Exception as error:
            if not ready.done():
                ready.set_exception(error)
            if pending is not None and not pending.reply.done():
                pending.reply.set_exception(_ServerStopped(str(error)))
        finally:
            self._fail_queued(_ServerStopped("Playwright MCP stopped"))

    def _fail_queued(self, error: Exception) -> None:
        while not self._requests.empty():
            request = self._requests.get_nowait()
            if request is not None and not request.reply.done():
                request.reply.set_exception(error)

    def _find_node_pid(self) -> int | None:
        marker = str(self.plan.output_dir)
        for proc in process_table():
            if proc.alive and marker in proc.cmdline and str(self.plan.package.cli) in proc.cmdline:
                return proc.pid
        return None

    async def _watch_node(self) -> None:
        # Polling: Node is the SDK's child, so there is no handle of ours to await.
        while not self._closing:
            await asyncio.sleep(_WATCHDOG_INTERVAL)
            if self.node_pid is not None and not pid_alive(self.node_pid) and not self._closing:
                logger.warning("Playwright MCP (pid %s) died; stopping its browser", self.node_pid)
                self._server_died = True
                await asyncio.to_thread(kill_browser_processes, self.plan.profile_dir, patience=2.0)
                return

    async def _stop_server(self) -> None:
        watchdog, self._watchdog = self._watchdog, None
        if watchdog is not None and watchdog is not asyncio.current_task():
            watchdog.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watchdog
        # SIGTERM to Node first: Playwright then closes the browser cleanly and
        # Chromium writes its cookies, so the person stays signed in. Closing
        # stdin first (the SDK's way) makes Playwright kill the browser abruptly.
        if self.node_pid is not None and pid_alive(self.node_pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.node_pid, signal.SIGTERM)
            await asyncio.to_thread(kill_browser_processes, self.plan.profile_dir, patience=2.0)
        owner, self._owner = self._owner, None
        if owner is not None:
            self._requests.put_nowait(None)
            # The SDK's shutdown (close stdin, wait, then kill the tree) is shielded and bounded.
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(owner, timeout=6.0)
        # Whatever is left: a browser still closing after Node died gets a moment
        # to write its cookies before it is stopped.
        await asyncio.to_thread(
            kill_browser_processes, self.plan.profile_dir, patience=1.0, grace=1.5
        )
        if self._errlog is not None:
            self._errlog.close()
            self._errlog = None

    async def close(self) -> None:
        """Stop the server and make sure no browser process outlives it, even when cancelled."""
        if self._closing:
            return
        self._closing = True
        task = asyncio.ensure_future(self._stop_server())
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            await task
            raise

    @property
    def alive(self) -> bool:
        """True while the server is running and answering."""
        return self._owner is not None and not self._owner.done() and not self._server_died

    def _diagnostics(self) -> str:
        tail = ""
        with contextlib.suppress(OSError):
            lines = self.plan.server_log.read_text(encoding="utf-8", errors="replace").splitlines()
            tail = " | ".join(line.strip() for line in lines[-5:] if line.strip())
        hint = (
            f"Ensure Node.js and the pinned Playwright MCP are installed (make setup) and that "
            f"{self.plan.browser} starts. Server log: {self.plan.server_log}"
        )
        return hint + (f". Last output: {tail}" if tail else "")

    # --- calls ----------------------------------------------------------------------

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> ActionResult:
        """Dispatch one allowlisted tool call and return the fresh page it left.

        Raises MCPToolError (refused, invalid or failed; carries the fresh page
        when there is one) or MCPConnectionError (the server cannot be kept alive).
        """
        args = self.checked_arguments(name, arguments)
        result = await self._dispatch_with_restart(name, args)
        text = text_of(result)
        if result.is_error:
            modal = split_sections(text).get("Modal state")
            if modal is not None and self.last_snapshot is not None:
                # A dialog blocks every other tool: the page is the last one plus the dialog.
                notes = {**self.last_snapshot.notes, "Modal state": modal}
                blocked = dataclasses.replace(self.last_snapshot, notes=notes)
                if name == "browser_snapshot":
                    return ActionResult(name, args, text, blocked, None)
                raise MCPToolError(error_message(text), snapshot=blocked)
            fresh = await self._fresh_snapshot_or_none()
            raise MCPToolError(self._explain_error(text), snapshot=fresh)
        screenshot = self._save_images(result)
        snapshot = await self._settled_snapshot(text, screenshot)
        if _FILE_CHOOSER in snapshot.notes.get("Modal state", ""):
            snapshot = await self._close_file_chooser()
        return ActionResult(name, args, text, snapshot, screenshot)

    async def _settled_snapshot(self, text: str, screenshot: Path | None) -> NormalizedSnapshot:
        """The page after an action; a page still loading (no title yet) gets time to settle.

        A key press or a click that starts a navigation can answer before the new page
        has a title; the page is given up to three short waits before that is an error.
        """
        for _attempt in range(_SETTLE_ATTEMPTS):
            try:
                return await self._snapshot_from(text, screenshot)
            except SnapshotValidationError:
                await self._dispatch("browser_wait_for", {"time": _SETTLE_SECONDS})
                text = text_of(await self._dispatch("browser_snapshot", {}))
        return await self._snapshot_from(text, screenshot)

    async def _close_file_chooser(self) -> NormalizedSnapshot:
        """Close a file chooser the action opened: SubTerminator never uploads files.

        ``browser_file_upload`` without paths only cancels the chooser; the tool itself
        stays off the allowlist, so no model can ever call it.
        """
        await self._dispatch("browser_file_upload", {})
        fresh = await self._snapshot_from(
            text_of(await self._dispatch("browser_snapshot", {})), None
        )
        notes = {**fresh.notes, "Note": _FILE_CHOOSER_NOTE}
        self.last_snapshot = dataclasses.replace(fresh, notes=notes)
        return self.last_snapshot

    def checked_arguments(self, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
        """``arguments`` with the server's defaults, validated; MCPToolError before anything runs.

        The loop calls this before asking the person, so nobody approves a call the
        browser would then refuse.
        """
        check_allowed(name)
        tool = self.server_tools.get(name)
        schema = tool.input_schema if tool else None
        args = with_schema_defaults(arguments or {}, schema)
        validate_arguments(name, args, schema)
        return args

    async def inspect(self, ref: str | None = None) -> PageFacts:
        """Read the target's visible text, the focused element and the forms from the DOM.

        Runs SubTerminator's own fixed function (never a model's) through
        ``browser_evaluate``, which the allowlist keeps from every model. Empty facts
        when the page cannot be read (a dialog is open, the ref is gone).
        """
        arguments: dict[str, Any] = {"function": PAGE_FACTS_FUNCTION}
        if ref is not None:
            arguments["target"] = ref
        try:
            result = await self._dispatch_with_restart("browser_evaluate", arguments)
        except MCPToolError:
            return NO_FACTS
        if result.is_error:
            return NO_FACTS if ref is None else await self.inspect(None)
        return parse_page_facts(text_of(result))

    def _explain_error(self, text: str) -> str:
        """The tool's error in a line or two; the browser's launch log goes to the server log."""
        message = error_message(text)
        if "Browser logs:" not in message:
            return message
        head = message.split("Browser logs:", 1)[0].strip()
        if self._errlog is not None:
            self._errlog.write(ANSI.sub("", message) + "\n")
            self._errlog.flush()
        return (
            f"{head}. The browser {self.plan.browser} did not start or closed at once: check "
            f"SUBTERMINATOR_BROWSER and run `subterminator doctor`. Browser log: "
            f"{self.plan.server_log}"
        )

    async def snapshot(self) -> NormalizedSnapshot:
        """A fresh snapshot of the current page."""
        return (await self.call("browser_snapshot")).snapshot

    async def screenshot(self) -> Path:
        """Save a screenshot of the viewport and return its path."""
        result = await self.call("browser_take_screenshot", {"type": "png"})
        if result.screenshot_path is None:
            raise MCPToolError("Playwright MCP returned no image for the screenshot")
        return result.screenshot_path

    async def _dispatch_with_restart(self, name: str, args: dict[str, Any]) -> types.CallToolResult:
        if self._server_died or (self._owner is not None and self._owner.done()):
            reopened = await self._restart()
            if name not in _REPEATABLE:
                raise MCPToolError(restart_message(reopened), snapshot=self.last_snapshot)
        try:
            return await self._dispatch(name, args)
        except _ServerStopped:
            reopened = await self._restart()
            if name not in _REPEATABLE:
                # The call was sent and the server died before answering: it may have run.
                raise OutcomeUnknownError(
                    restart_message(reopened), snapshot=self.last_snapshot
                ) from None
            return await self._dispatch(name, args)

    async def _dispatch(self, name: str, args: dict[str, Any]) -> types.CallToolResult:
        if self._closing or self._owner is None:
            raise MCPConnectionError("The browser gateway is closed.")
        reply: asyncio.Future[types.CallToolResult] = asyncio.get_running_loop().create_future()
        self._requests.put_nowait(_Request(name, args, reply))
        started = time.perf_counter()
        try:
            return await asyncio.wait_for(asyncio.shield(reply), self.call_timeout)
        except TimeoutError:
            # A hung server: the next call starts a new one. What this call did is unknown.
            self._server_died = True
            raise OutcomeUnknownError(
                f"{name} did not finish within {self.call_timeout:.0f} s; the browser was "
                "restarted and what the call did is not known",
                snapshot=self.last_snapshot,
            ) from None
        finally:
            self.mcp_seconds += time.perf_counter() - started

    async def _restart(self) -> str | None:
        if self.restarts >= self.max_restarts:
            raise MCPConnectionError(
                "Playwright MCP stopped again after a restart; giving up. " + self._diagnostics()
            )
        self.restarts += 1
        logger.warning("Restarting Playwright MCP (restart %d)", self.restarts)
        await self._stop_server()
        ensure_profile_free(self.plan.profile_dir)
        await self._start_server()
        await self._restore_sign_in()
        last_url = self.last_snapshot.url if self.last_snapshot else None
        if last_url and last_url != "about:blank":
            result = await self._dispatch("browser_navigate", {"url": last_url})
            self.last_snapshot = await self._snapshot_from(text_of(result), None)
        return last_url

    async def _snapshot_from(self, text: str, screenshot: Path | None) -> NormalizedSnapshot:
        if "### Snapshot" not in text:
            # Some answers (a screenshot, a key press, a wait) carry no tree: ask for one.
            text = text_of(await self._dispatch("browser_snapshot", {}))
        snapshot = normalize_snapshot(
            text,
            self.plan.run_dir,
            screenshot_path=str(screenshot) if screenshot else None,
        )
        self.last_snapshot = snapshot
        return snapshot

    async def _fresh_snapshot_or_none(self) -> NormalizedSnapshot | None:
        try:
            result = await self._dispatch("browser_snapshot", {})
            return await self._snapshot_from(text_of(result), None)
        except (MCPToolError, SnapshotValidationError, _ServerStopped):
            return None

    def _save_images(self, result: types.CallToolResult) -> Path | None:
        saved: Path | None = None
        for block in result.content:
            if isinstance(block, types.ImageContent):
                self._screenshots += 1
                suffix = {"image/jpeg": ".jpg", "image/webp": ".webp"}.get(block.mime_type, ".png")
                folder = self.plan.run_dir / "screenshots"
                folder.mkdir(exist_ok=True)
                saved = folder / f"screenshot-{self._screenshots:03d}{suffix}"
                saved.write_bytes(base64.b64decode(block.data))
        return saved
