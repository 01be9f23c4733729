"""The browser gateway: one guarded Playwright MCP session with fresh state after every action.

Only allowlisted tools with valid arguments are sent; every answer comes back
with the fresh page. When the server dies (mcp_process.py watches it), the next
call restarts it once and reopens the last URL; an action that
was cut off is reported as of unknown outcome, never repeated.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcp_types as types

from subterminator_tui.browser.answers import (
    ANSI,
    error_message,
    restart_message,
    text_of,
)
from subterminator_tui.browser.dialogs import (
    answer_first_message,
    dispatch_past_alerts,
    open_dialogs,
    with_dialog_notes,
)
from subterminator_tui.browser.inspection import (
    NO_FACTS,
    PAGE_FACTS_FUNCTION,
    PageFacts,
    parse_page_facts,
)
from subterminator_tui.browser.launch import LaunchPlan
from subterminator_tui.browser.mcp_process import PlaywrightMCPProcess, ServerStopped
from subterminator_tui.browser.profile_lock import ensure_profile_free
from subterminator_tui.browser.restart_gate import RestartGate
from subterminator_tui.browser.seen_text import SEEN_TEXT_FUNCTION, parse_seen_text
from subterminator_tui.browser.sign_in import (
    SAVE_STATE_CODE,
    SIGN_IN_FILE,
    add_cookies_code,
    add_state_code,
    parse_saved_state,
    write_private_json,
)
from subterminator_tui.browser.snapshot import (
    NormalizedSnapshot,
    normalize_snapshot,
    split_sections,
)
from subterminator_tui.browser.tools import (
    check_allowed,
    validate_arguments,
    with_schema_defaults,
)
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
#: Tools that may go while a dialog waits for an answer: the answer itself, and looks.
_DIALOG_TOOLS = frozenset({"browser_handle_dialog", "browser_snapshot", "browser_take_screenshot"})
_SETTLE_ATTEMPTS = 3
_SETTLE_SECONDS = 0.5
_FILE_CHOOSER = "[File chooser]"
#: How Playwright MCP's answers link console messages that came since its last answer.
_NEW_CONSOLE_ENTRIES = "New console entries:"
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


class BrowserGateway(PlaywrightMCPProcess):
    """A Playwright MCP server plus the browser it drives, used from one asyncio task.

    The process side (start, watchdog, stop, the queue to the session owner) is
    :class:`PlaywrightMCPProcess`; this class is the guarded page: every call checked
    and answered with the fresh page, restarts that never repeat an action, sign-ins
    kept, file choosers closed.
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
        super().__init__(plan, connect_timeout=connect_timeout, call_timeout=call_timeout)
        self.max_restarts = max_restarts
        self.last_snapshot: NormalizedSnapshot | None = None
        self.restarts = 0
        self._screenshots = 0
        # A console read that found no message, while no answer has linked one since.
        self._quiet_console: str | None = None

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
        state = await self.storage_state()
        if state is not None:
            await asyncio.to_thread(write_private_json, self.plan.profile_dir / SIGN_IN_FILE, state)

    async def storage_state(self) -> Any:
        """The context's cookies and local storage (Playwright's storage state), or None.

        Read with SubTerminator's own fixed code; no model is ever offered the tool,
        so no model can read a cookie.
        """
        try:
            result = await self._dispatch("browser_run_code_unsafe", {"code": SAVE_STATE_CODE})
        except (MCPToolError, ServerStopped):
            return None
        return parse_saved_state(text_of(result))

    async def add_storage_state(self, state: dict[str, Any]) -> None:
        """Add a saved sign-in (already narrowed to one service's domains) to the browser.

        Raises MCPToolError when the browser refuses it.
        """
        code = add_state_code(state)
        if code is None:
            return
        result = await self._dispatch("browser_run_code_unsafe", {"code": code})
        if result.is_error:
            raise MCPToolError(error_message(text_of(result)))

    async def _restore_sign_in(self) -> None:
        code = add_cookies_code(self.plan.profile_dir / SIGN_IN_FILE)
        if code is not None:
            with contextlib.suppress(MCPToolError, ServerStopped):
                await self._dispatch("browser_run_code_unsafe", {"code": code})

    def page_before_failure(self) -> NormalizedSnapshot | None:
        """The last page seen, carried by the errors of calls that got no answer."""
        return self.last_snapshot

    # --- calls ----------------------------------------------------------------------

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> ActionResult:
        """Dispatch one allowlisted tool call and return the fresh page it left.

        Raises MCPToolError (refused, invalid or failed; carries the fresh page
        when there is one) or MCPConnectionError (the server cannot be kept alive).
        """
        args = self.checked_arguments(name, arguments)
        self._refuse_past_open_dialog(name)
        await self.watch_requests()
        result, acknowledged = await self._dispatch_past_alerts(name, args)
        text = text_of(result)
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
            raise MCPToolError(self._explain_error(text), snapshot=fresh)
        screenshot = self._save_images(result)
        snapshot = await self._settled_snapshot(text, screenshot)
        if acknowledged:
            snapshot = with_dialog_notes(snapshot, None, acknowledged)
        if _FILE_CHOOSER in snapshot.notes.get("Modal state", ""):
            snapshot = await self._close_file_chooser()
        return ActionResult(name, args, text, snapshot, screenshot)

    def _refuse_past_open_dialog(self, name: str) -> None:
        """A confirm/prompt waits for an answer: only the dialog tool (or a look) may go."""
        if name in _DIALOG_TOOLS or self.last_snapshot is None:
            return
        waiting = [
            dialog
            for dialog in open_dialogs(self.last_snapshot.notes.get("Modal state"))
            if dialog.needs_an_answer
        ]
        if waiting:
            raise MCPToolError(answer_first_message(waiting[0]), snapshot=self.last_snapshot)

    async def _dispatch_past_alerts(
        self, name: str, args: dict[str, Any]
    ) -> tuple[types.CallToolResult, list[str]]:
        before = self.last_snapshot.url if self.last_snapshot else None
        return await dispatch_past_alerts(
            self._dispatch_with_restart, self._dispatch, name, args, before
        )

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

    async def seen_text(self) -> str | None:
        """The text a person can see on the page (see browser/seen_text.py), or None when the
        page cannot be read (a native dialog is open, the page is gone)."""
        arguments: dict[str, Any] = {"function": SEEN_TEXT_FUNCTION}
        try:
            result = await self._dispatch_with_restart("browser_evaluate", arguments)
        except MCPToolError:
            return None
        return None if result.is_error else parse_seen_text(text_of(result))

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
            f"{head}. The browser {self.plan.browser_description} did not start or closed at "
            f"once: check SUBTERMINATOR_BROWSER and run `subterminator doctor`. Browser log: "
            f"{self.plan.server_log}"
        )

    async def console_messages(self) -> str:
        """Every console message of the current page, as Playwright MCP prints them ('' if none).

        SubTerminator's own read (serve mode's call records); the tool stays off the
        allowlist, so no model calls it. Playwright MCP links "New console entries" in
        the next answer after any message (``--console-level debug``: every level), so
        while the last read found none and no answer has linked one since, the page
        still has none (a new page starts empty) and the read is skipped.
        """
        if self._quiet_console is not None:
            return self._quiet_console
        try:
            result = await self._dispatch("browser_console_messages", {"level": "debug"})
        except (MCPToolError, MCPConnectionError, ServerStopped):
            return ""  # a record without console messages, never a failed call
        if result.is_error:
            return ""
        text = text_of(result)
        empty = split_sections(text).get("Result", "").startswith("Total messages: 0 ")
        self._quiet_console = text if empty else None
        return text

    async def _dispatch(self, name: str, args: dict[str, Any]) -> types.CallToolResult:
        try:
            result = await super()._dispatch(name, args)
        except BaseException:
            self._quiet_console = None  # a restart or a lost answer: read again
            raise
        if _NEW_CONSOLE_ENTRIES in text_of(result):
            self._quiet_console = None
        return result

    async def snapshot(self) -> NormalizedSnapshot:
        """A fresh snapshot of the current page."""
        return (await self.call("browser_snapshot")).snapshot

    async def screenshot(self) -> Path:
        """Save a screenshot of the viewport and return its path."""
        result = await self.call("browser_take_screenshot", {"type": "png"})
        if result.screenshot_path is None:
            raise MCPToolError("Playwright MCP returned no image for the screenshot")
        return result.screenshot_path

    async def jpeg_frame(self) -> bytes | None:
        """The viewport as JPEG bytes, for a live view: nothing saved, no snapshot taken.

        None when the browser gives no image (a dialog is open, it is restarting).
        """
        try:
            result = await self._dispatch("browser_take_screenshot", {"type": "jpeg"})
        except (MCPToolError, MCPConnectionError, ServerStopped, OutcomeUnknownError):
            return None
        for block in result.content:
            if isinstance(block, types.ImageContent) and not result.is_error:
                return base64.b64decode(block.data)
        return None

    async def _dispatch_with_restart(self, name: str, args: dict[str, Any]) -> types.CallToolResult:
        if self._server_died or (self._owner is not None and self._owner.done()):
            reopened = await self._restart(f"a call ({name}) found its Playwright MCP dead")
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
                "Playwright MCP stopped again after a restart; giving up. " + self._diagnostics()
            )
        return await self._restart_now()

    async def _restart_now(self) -> str | None:
        self.restarts += 1
        logger.warning("Restarting Playwright MCP (restart %d)", self.restarts)
        await self._stop_server()
        ensure_profile_free(self.plan.profile_dir)
        await self._start_server()
        await self.watch_requests()
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
        except (MCPToolError, SnapshotValidationError, ServerStopped):
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
