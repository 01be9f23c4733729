"""The browser gateway: one guarded Playwright MCP session with fresh state after every action.

Only allowlisted tools with valid arguments are sent; every answer comes back
with the fresh page. The gateway holds the Playwright MCP process (mcp_process.py),
which watches the server; when it dies, the next call restarts it once and reopens
the last URL; an action that was cut off is reported as of unknown outcome, never
repeated.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp_types as types

from subterminator_tui.browser.answers import error_message, restart_message, text_of
from subterminator_tui.browser.console_messages import ConsoleMessages
from subterminator_tui.browser.devtools_session import DevToolsSession
from subterminator_tui.browser.dialogs import (
    dispatch_past_alerts,
    refuse_past_open_dialog,
    with_dialog_notes,
)
from subterminator_tui.browser.inspection import PageFacts, PageReader
from subterminator_tui.browser.interception import RequestWatch
from subterminator_tui.browser.launch import LaunchPlan
from subterminator_tui.browser.mcp_process import PlaywrightMCPProcess, ServerStopped
from subterminator_tui.browser.page_capture import PageCapture
from subterminator_tui.browser.profile_lock import ensure_profile_free
from subterminator_tui.browser.restart_gate import RestartGate
from subterminator_tui.browser.sign_in import SignInKeeper
from subterminator_tui.browser.snapshot import (
    NormalizedSnapshot,
    normalize_snapshot,
    split_sections,
)
from subterminator_tui.browser.tools import check_allowed, validate_arguments, with_schema_defaults
from subterminator_tui.browser.typed_values import TypingWatch
from subterminator_tui.errors import (
    CallNotSentError,
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
#: A page still loading after an action gets this many waits of this long to settle.
_SETTLE_ATTEMPTS = 3
_SETTLE_SECONDS = 0.5
_FILE_CHOOSER = "[File chooser]"
_FILE_CHOOSER_NOTE = (
    "That action opened a file chooser. SubTerminator never uploads files, so it was "
    "closed; this task does not need a file. Choose another way forward."
)


def _same_page(first: NormalizedSnapshot, second: NormalizedSnapshot) -> bool:
    """Two looks at a title-less page saw the same thing: it has settled."""
    return first.url == second.url and first.content == second.content


@dataclass(frozen=True)
class ActionResult:
    """What a dispatched tool call produced: the server's text and the fresh page."""

    tool: str
    arguments: dict[str, Any]
    text: str
    snapshot: NormalizedSnapshot
    screenshot_path: Path | None = None


class BrowserGateway:
    """A Playwright MCP server plus the browser it drives, used from one asyncio task.

    It holds the process (:class:`PlaywrightMCPProcess`: start, watchdog, stop, the
    queue to the session owner) and is the guarded page: every call checked and
    answered with the fresh page, restarts that never repeat an action, file choosers
    closed. Its helpers keep sign-ins (:class:`SignInKeeper`), save screenshots and
    take live frames (:class:`PageCapture`), read the DOM (:class:`PageReader`) and the
    console (:class:`ConsoleMessages`); every call they send goes through the gateway.
    """

    #: Set by a long-lived server: its policy decides each restart (None: one, at once).
    restart_gate: RestartGate | None = None

    def __init__(
        self,
        plan: LaunchPlan,
        *,
        connect_timeout: float = 10.0,
        call_timeout: float = 30.0,
        max_restarts: int = 1,
    ) -> None:
        self.plan = plan
        self.process = PlaywrightMCPProcess(
            plan,
            connect_timeout=connect_timeout,
            call_timeout=call_timeout,
            last_page=lambda: self.last_snapshot,
        )
        self.max_restarts = max_restarts
        self.last_snapshot: NormalizedSnapshot | None = None
        self.restarts = 0
        self.sign_ins = SignInKeeper(self._dispatch, plan.profile_dir)
        self.capture = PageCapture(self._dispatch, plan.run_dir / "screenshots")
        self.console = ConsoleMessages(self._dispatch)
        # Reading the page is repeatable: a dead server is restarted for it.
        self.reader = PageReader(self._dispatch_with_restart, self._on_element)
        #: A call's page is read once the page's own data requests are answered (a
        #: single-page app draws its controls then); off only where a test shows the raw
        #: answer Playwright MCP gives.
        self.waits_for_page_data = True

    # --- lifecycle ------------------------------------------------------------------

    async def __aenter__(self) -> BrowserGateway:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def start(self) -> None:
        """Check the profile, start the server, handshake, cache tools/list, restore sign-ins."""
        ensure_profile_free(self.plan.profile_dir)
        await self.process.start_server()
        await self.sign_ins.restore()

    async def close(self) -> None:
        """Stop the server and make sure no browser process outlives it, even when cancelled."""
        await self.process.close()

    @property
    def alive(self) -> bool:
        """True while the server is running and answering."""
        return self.process.alive

    @property
    def node_pid(self) -> int | None:
        """The Playwright MCP server's process id (None before it started)."""
        return self.process.node_pid

    @property
    def server_tools(self) -> dict[str, types.Tool]:
        """The server's tools/list, by name."""
        return self.process.server_tools

    @property
    def mcp_seconds(self) -> float:
        """Time spent waiting for Playwright MCP's answers: the browser's share of a turn."""
        return self.process.mcp_seconds

    @mcp_seconds.setter
    def mcp_seconds(self, seconds: float) -> None:
        self.process.mcp_seconds = seconds

    @property
    def requests(self) -> RequestWatch:
        """Every request of the browser paused and judged (a client of our DevTools session)."""
        return self.process.requests

    @property
    def typing(self) -> TypingWatch:
        """What is typed into the browser's pages (a client of our DevTools session)."""
        return self.process.typing

    @property
    def devtools(self) -> DevToolsSession:
        """Our own DevTools session on the browser: its targets and frames."""
        return self.process.devtools

    @property
    def devtools_ports(self) -> set[int]:
        """The DevTools ports no page may reach (the run's egress filter refuses them)."""
        return self.process.devtools_ports

    @devtools_ports.setter
    def devtools_ports(self, ports: set[int]) -> None:
        self.process.devtools_ports = ports

    async def ping(self, within: float) -> bool:
        """Whether the server answers an MCP ping within ``within`` s (see the process)."""
        return await self.process.ping(within)

    # --- sign-ins and pictures (the helpers do the work) ---------------------------

    async def keep_sign_in(self) -> None:
        """Save the browser's sign-ins beside the profile now, so a crash cannot lose them."""
        await self.sign_ins.keep()

    async def storage_state(self) -> Any:
        """The context's cookies and local storage (Playwright's storage state), or None."""
        return await self.sign_ins.storage_state()

    async def add_storage_state(self, state: dict[str, Any]) -> None:
        """Add a saved sign-in, narrowed to one service's domains; MCPToolError if refused."""
        await self.sign_ins.add(state)

    async def jpeg_frame(self) -> bytes | None:
        """The viewport as JPEG bytes for a live view (None when there is no picture now)."""
        return await self.capture.jpeg_frame()

    async def screenshot(self) -> Path:
        """Save a screenshot of the viewport and return its path."""
        result = await self.call("browser_take_screenshot", {"type": "png"})
        if result.screenshot_path is None:
            raise MCPToolError("Playwright MCP returned no image for the screenshot")
        return result.screenshot_path

    async def console_messages(self) -> str:
        """Every console message of the current page, as Playwright MCP prints them ('' if none).

        SubTerminator's own read (serve's call log); the tool stays off the allowlist.
        """
        return await self.console.read()

    # --- calls ----------------------------------------------------------------------

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> ActionResult:
        """Dispatch one allowlisted tool call and return the fresh page it left.

        Raises MCPToolError (refused, invalid or failed; carries the fresh page
        when there is one) or MCPConnectionError (the server cannot be kept alive).
        """
        args = self.checked_arguments(name, arguments)
        refuse_past_open_dialog(name, self.last_snapshot)
        await self.process.watch_requests()
        before = self.last_snapshot.url if self.last_snapshot else None
        watch = self.process.requests
        data_before = watch.data_started
        result, acknowledged = await dispatch_past_alerts(
            self._dispatch_with_restart, self._dispatch, name, args, before
        )
        text = page_text = text_of(result)
        waited_for = watch.data_started > data_before or watch.data_in_flight
        if self.waits_for_page_data and not result.is_error and waited_for:
            # The page asked for its data while the call ran (a single-page app draws its
            # controls when the answers come): the page as drawn once they have arrived.
            await watch.quiet()
            page_text = text_of(await self._dispatch_with_restart("browser_snapshot", {}))
        sections = split_sections(text)
        modal = sections.get("Modal state")
        if modal is not None and self.last_snapshot is not None and "Page" not in sections:
            # A dialog blocks every other tool: the page is the last one plus the dialog.
            blocked = with_dialog_notes(self.last_snapshot, modal, acknowledged)
            if name in ("browser_snapshot", "browser_handle_dialog") or not result.is_error:
                self.last_snapshot = blocked
                return ActionResult(name, args, text, blocked, None)
            raise MCPToolError(error_message(text), snapshot=blocked)
        if result.is_error:
            fresh = await self._fresh_snapshot_or_none()
            raise MCPToolError(self.process.explain_error(text), snapshot=fresh)
        screenshot = self.capture.save_images(result)
        snapshot = await self._settled_snapshot(page_text, screenshot)
        if acknowledged:
            snapshot = with_dialog_notes(snapshot, None, acknowledged)
        if _FILE_CHOOSER in snapshot.notes.get("Modal state", ""):
            snapshot = await self._close_file_chooser()
        return ActionResult(name, args, text, snapshot, screenshot)

    async def _settled_snapshot(self, text: str, screenshot: Path | None) -> NormalizedSnapshot:
        """The page after an action; a page still loading gets time to settle.

        A key press or a click that starts a navigation can answer before the new page
        has a title, or before the answer has a tree at all; it gets short waits. A page
        without a title (JSON, plain text, many real pages) is a page once two looks
        agree, and after the last wait whatever it shows is taken as it is.
        """
        previous: NormalizedSnapshot | None = None
        for _attempt in range(_SETTLE_ATTEMPTS):
            try:
                snapshot: NormalizedSnapshot | None = await self._snapshot_from(text, screenshot)
            except SnapshotValidationError:
                snapshot = None
            if snapshot is not None and (
                snapshot.title
                or "Modal state" in snapshot.notes
                or (previous is not None and _same_page(previous, snapshot))
            ):
                return snapshot
            previous = snapshot
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
        tool = self.process.server_tools.get(name)
        schema = tool.input_schema if tool else None
        args = with_schema_defaults(arguments or {}, schema)
        validate_arguments(name, args, schema)
        return args

    async def _on_element(self, ref: str, function: str) -> Any:
        """``function`` on ref's element over our DevTools session (None: read another way)."""
        return await self.process.worlds.on_element(ref, function)

    async def inspect(self, ref: str | None = None) -> PageFacts:
        """The target's visible text, the focused element and the forms, read from the DOM
        by SubTerminator's own function (empty facts when the page cannot be read)."""
        return await self.reader.facts(ref)

    async def seen_text(self) -> str | None:
        """The text a person can see on the page, or None when it cannot be read."""
        return await self.reader.seen_text()

    async def _dispatch(self, name: str, args: dict[str, Any]) -> types.CallToolResult:
        """Send one call as it is (no checks): the gateway's own calls and its helpers'."""
        try:
            result = await self.process.dispatch(name, args)
        except BaseException:
            self.console.forget()  # a restart or a lost answer: read again
            raise
        self.console.saw(result)
        return result

    async def snapshot(self) -> NormalizedSnapshot:
        """A fresh snapshot of the current page."""
        return (await self.call("browser_snapshot")).snapshot

    async def _dispatch_with_restart(self, name: str, args: dict[str, Any]) -> types.CallToolResult:
        if self.process.died:
            try:
                reopened = await self._restart(f"a call ({name}) found its Playwright MCP dead")
            except MCPConnectionError as down:
                # Found dead before the call went out: whatever it was, it never ran.
                down.may_have_run = False
                raise
            if name not in _REPEATABLE:
                raise CallNotSentError(restart_message(reopened), snapshot=self.last_snapshot)
        try:
            return await self._dispatch(name, args)
        except ServerStopped:
            reopened = await self._restart(f"its Playwright MCP died during a call ({name})")
            if name not in _REPEATABLE:
                # The call was sent and the server died before answering: it may have run.
                raise OutcomeUnknownError(
                    restart_message(reopened), snapshot=self.last_snapshot
                ) from None
            return await self._dispatch(name, args)

    @property
    def can_restart(self) -> bool:
        """Whether a call that finds the server dead may still restart it (a gate decides
        then, and may refuse: BrowserUnavailableError)."""
        return self.restart_gate is not None or self.restarts < self.max_restarts

    async def _restart(self, why: str) -> str | None:
        """Restart the server and reopen the last URL: once without a gate, else as the
        gate allows (after its backoff, counted in its window)."""
        if self.restart_gate is not None:
            async with self.restart_gate.restarting(why):
                return await self._restart_now()
        if self.restarts >= self.max_restarts:
            raise MCPConnectionError(
                "Playwright MCP stopped again after a restart; giving up. "
                + self.process.diagnostics()
            )
        return await self._restart_now()

    async def _restart_now(self) -> str | None:
        self.restarts += 1
        logger.warning("Restarting Playwright MCP (restart %d)", self.restarts)
        await self.process.stop_server()
        ensure_profile_free(self.plan.profile_dir)
        await self.process.start_server()
        await self.process.watch_requests()
        await self.sign_ins.restore()
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
        except (MCPToolError, SnapshotValidationError, ServerStopped):
            return None
