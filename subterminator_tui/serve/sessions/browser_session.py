"""One named browser session: a lazy guarded browser, its journal run, one call at a time.

Every call goes the app's way, through the run loop's guarded-call pipeline
(guarded/pipeline.py): the guard refuses stale refs, tools off the list and
navigation outside the service's domains; a state-changing call is judged on the
page as it is right before dispatch, by the real element it targets
(rules/effects.py); a checkpoint holds it for the operator. The agent then gets an
approval id at once, and the call is sent only after the operator approves, and
only if its target is still the element that was approved.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.gateway import BrowserGateway
from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.errors import (
    BrowserUnavailableError,
    JournalWriteError,
    MCPConnectionError,
    MCPToolError,
    OutcomeUnknownError,
)
from subterminator_tui.guarded.guard import Guard
from subterminator_tui.guarded.pipeline import (
    CallPipeline,
    Failed,
    Held,
    Lost,
    Ready,
    Refused,
    Unsent,
)
from subterminator_tui.guarded.secrets import (
    SecretScrubber,
    kept_screenshot,
    without_revealing_picture,
)
from subterminator_tui.guarded.tabs import contain_tabs
from subterminator_tui.journal.call_log import CallLogStore
from subterminator_tui.journal.store import Journal
from subterminator_tui.rules import ServiceConfig
from subterminator_tui.serve.agent_answer import Answer, judged_by
from subterminator_tui.serve.config import ServeConfig
from subterminator_tui.serve.errors import SessionBusyError
from subterminator_tui.serve.health.policy import SessionHealth
from subterminator_tui.serve.health.restarts import SessionRestarts
from subterminator_tui.serve.names import SessionKey
from subterminator_tui.serve.oversight.approvals import Approval, ApprovalDesk
from subterminator_tui.serve.oversight.call_log import SessionCallLog, typed_values
from subterminator_tui.serve.sessions.hand_offs import hand_off_refusal
from subterminator_tui.serve.sessions.held_calls import HeldCalls
from subterminator_tui.serve.sessions.held_requests import session_request_gate
from subterminator_tui.serve.sessions.lazy_browser import LazyBrowser
from subterminator_tui.serve.sessions.page_changes import PageChanges
from subterminator_tui.serve.sessions.verification import SessionVerification
from subterminator_tui.serve.sessions.window_typing import SessionWindowTyping
from subterminator_tui.session.browser import ServiceBrowser

#: The Playwright tools the server's tools map onto; nothing else is ever sent.
SERVE_BROWSER_TOOLS = frozenset(
    {
        "browser_navigate",
        "browser_navigate_back",
        "browser_snapshot",
        "browser_click",
        "browser_type",
        "browser_select_option",
        "browser_press_key",
        "browser_wait_for",
        "browser_take_screenshot",
        "browser_handle_dialog",
        # Only the Playwright-compatible tools send these three; the guard models each
        # (a hover reads, a tab opened goes through the domain check, fill_form's fields
        # are each judged as their targets).
        "browser_hover",
        "browser_fill_form",
        "browser_tabs",
    }
)


class BrowserSession:
    """A session of one principal: its service, profile, guard and journal run."""

    def __init__(
        self,
        key: SessionKey,
        service: ServiceConfig,
        config: ServeConfig,
        journal: Journal,
        desk: ApprovalDesk,
    ) -> None:
        self.key = key
        self.service = service
        self.config = config
        self.journal = journal
        self.desk = desk
        self.guard = Guard(service, offered_tools=SERVE_BROWSER_TOOLS)
        self.scrubber = SecretScrubber()
        self.lazy = LazyBrowser(service, config, config.profile_root / key.principal / key.name)
        self.turns = 0
        self.last_used = time.monotonic()
        self.in_flight: str | None = None
        #: The call waiting for the operator, if any (one call at a time per session).
        self.held = HeldCalls(desk, key)
        #: The page the agent was last given: its refs are the ones it may use.
        self._seen: NormalizedSnapshot | None = None
        #: The run folders of every browser this session started (Playwright MCP's files).
        self._run_dirs: set[Path] = set()
        self._pilot = f"mcp:{key.principal}"
        #: Bumped after every call: the live view sends a frame then.
        self.changes = PageChanges()
        self.run_id = journal.start_run(service.id, None, self._pilot)
        self.health = SessionHealth(config.health)
        #: Every restart of this session's browser, the watch's and a call's, goes through it.
        self.restarts = SessionRestarts(key.name, self.health)
        self.lazy.restart_gate = self.restarts
        self.call_log = SessionCallLog(CallLogStore(journal), key, self.run_id)
        #: The approved steps and the service's answers: what ``verified`` rests on.
        self.evidence = SessionVerification(
            service, self.lazy, self.call_log.typed.text, journal, self.run_id
        )
        # The backstop: every request the browser sends is judged again where it happens.
        self.requests = session_request_gate(
            key, self.guard, self.call_log, journal, desk, self.lazy, self.evidence.judge
        )
        self.calls = CallPipeline(
            self.guard, self.call_log, self.scrubber.snapshot, self.evidence.judge, self.requests
        )
        #: What the person types in the browser window: scrubbed like the agent never saw it.
        self.window_typing = SessionWindowTyping.installed_in(self)
        #: The call being answered, Playwright's text for it and the page's console listing.
        self._call: tuple[str, dict[str, Any]] = ("", {})
        self._result_text: str | None = None
        self._console_text = ""

    @property
    def pending(self) -> Approval | None:
        """The approval the session's held call waits for (None: nothing held)."""
        return self.held.pending

    @property
    def profile_dir(self) -> Path:
        """The session's own browser profile (kept when the browser closes)."""
        return self.lazy.profile_dir

    @property
    def browser(self) -> ServiceBrowser | None:
        """The running browser, or None while it is closed."""
        return self.lazy.running

    @property
    def page(self) -> NormalizedSnapshot | None:
        """The last page the agent was given."""
        return self._seen

    @page.setter
    def page(self, page: NormalizedSnapshot | None) -> None:
        self._seen = page

    def describe(self) -> dict[str, Any]:
        """The session as session_list shows it."""
        return {
            "name": self.key.name,
            "service": self.service.id,
            "browser": "open" if self.browser is not None else "closed",
            "url": self._seen.url if self._seen else self.lazy.last_url(),
            "busy": self.in_flight,
            "pending_approval": self.pending.id if self.pending else None,
            "calls": self.turns,
            "health": self.health.state,
        }

    # --- one call at a time -----------------------------------------------------------

    def _claim(self, tool: str) -> None:
        self.health.refuse_if_unavailable(self.key.name, time.monotonic())
        if self.pending is not None:
            raise SessionBusyError(
                f"busy: session '{self.key.name}' holds a call waiting for the operator "
                f"(approval {self.pending.id}: {self.pending.action}). Call approval_wait "
                "first; nothing else runs in this session until it is decided."
            )
        if self.in_flight is not None:
            raise SessionBusyError(
                f"busy: session '{self.key.name}' is running {self.in_flight}; one call at a "
                "time per session. Wait for its answer, then call again."
            )
        self.in_flight = tool
        self.last_used = time.monotonic()

    def claim_for(self, what: str) -> bool:
        """Take the session's one slot for the server's own work (an idle close); False if busy."""
        if self.in_flight is not None or self.pending is not None:
            return False
        self.in_flight = what
        return True

    def release(self) -> None:
        """Free the slot taken by :meth:`claim_for`."""
        self._release()

    def _release(self) -> None:
        self.in_flight = None
        self.last_used = time.monotonic()
        self.changes.bump()

    async def run(self, tool: str, arguments: dict[str, Any]) -> Answer:
        """Run one browser tool call through the guard; the answer carries the fresh page."""
        self._claim(tool)
        held = False
        try:
            answer = await self.judged(await self._run(tool, arguments))
            held = answer.status == "approval_pending"
            if answer.status == "error" and not self.browser_alive():
                await self.close_browser()
            return answer
        except MCPConnectionError:
            # The browser could not be kept alive: the next call starts a fresh one.
            await self.close_browser()
            raise
        finally:
            if typed_values(tool, arguments) or self.window_typing.files_stale:
                # The page may have logged what was just typed into a file already.
                self.window_typing.files_stale = False
                await self._scrub_files()
            if not held:
                self._release()

    async def judged(self, answer: Answer) -> Answer:
        """``answer`` with its page judged: verified on this session's evidence, or not."""
        return judged_by(self.service, answer, await self.evidence.verified(answer.page))

    def browser_alive(self) -> bool:
        """Whether the browser runs, or a call may still restart it (not when degraded)."""
        gateway = self.lazy.gateway
        return (
            gateway is None or gateway.alive or (gateway.can_restart and not self.health.degraded)
        )

    async def _run(self, tool: str, arguments: dict[str, Any]) -> Answer:
        reopened = self.browser is None
        gateway = await self._open_browser()
        if tool == "browser_navigate":
            base = self._seen.url if self._seen and self._seen.url.startswith("http") else None
            arguments = {**arguments, "url": urljoin(base or self.lazy.start_url, arguments["url"])}
        call = ToolCall(f"call-{self.turns + 1}", tool, arguments)
        self.turns += 1
        started = time.perf_counter()
        self._call, self._result_text, self._console_text = (tool, arguments), None, ""
        # Typed text never reaches the journal (oversight/call_log.py); its length does.
        self.call_log.remember_typed(tool, arguments)
        self.window_typing.agent_typed(arguments.get("text"))
        seen = self._seen
        if seen is None:
            seen = await self._settle(await gateway.snapshot())
        row = self.calls.intent(self.turns, call, seen)
        if reopened and call.target_refs():
            # Refs from the page before the browser closed may name other elements now.
            message = (
                "The session's browser had closed (idle) and was reopened on its last page; "
                "refs from before are void. Nothing was done; use a ref from the page below."
            )
            return self.record_answer(row, started, Answer("refused", message, seen))
        # An agent never signs in: the sign-in belongs to the operator, as a rule.
        handed_off = hand_off_refusal(self.service, tool, seen)
        if handed_off is not None:
            return self.record_answer(row, started, Answer("refused", handed_off, seen))
        try:
            prepared = await self.calls.begin(self.turns, call, seen, gateway)
        except MCPToolError as unread:
            return self.record_answer(row, started, Answer("refused", str(unread), seen))
        if isinstance(prepared, Refused):
            if prepared.fresh:
                self._seen = prepared.page
            return self.record_answer(
                row, started, Answer("refused", prepared.message, prepared.page)
            )
        if isinstance(prepared, Held):
            return await self._hold(prepared, row, started)
        return self.record_answer(row, started, await self.dispatch(prepared))

    async def _hold(self, held: Held, row: int | None, started: float) -> Answer:
        """Hold ``held`` for the operator; it is finished once they decide (never before)."""
        screenshot: str | None = None
        with contextlib.suppress(MCPToolError):
            # None when the page shows something the person typed in the window.
            screenshot = await kept_screenshot(self.running_gateway(), self.scrubber)

        async def decided(approval: Approval) -> Answer:
            return await self._decided(approval, held, row, started)

        def page_now() -> Answer:
            return Answer("error", "The session closed before the call was sent.", held.page)

        return self.held.hold(held, screenshot, decided, self._after_held, page_now)

    async def _decided(
        self, approval: Approval, held: Held, row: int | None, started: float
    ) -> Answer:
        """The operator decided (or the approval was withdrawn): finish the held call."""
        try:
            if approval.withdrawn:
                # Nobody decided: the journal and the agent hear why it was never sent.
                self.calls.decline(held, "withdrawn")
                withdrawn = (
                    f"Not sent: {approval.withdrawn} before the operator decided "
                    f"({approval.action}). Nothing was sent to the browser."
                )
                self.record_answer(row, started, Answer("error", withdrawn, self.page))
                return Answer("error", withdrawn, self.page)
            if approval.decision != "approved":
                self.calls.decline(held, "reject")
                rejected = (
                    f"The operator rejected: {approval.action}. Nothing was sent to the browser."
                )
                # The journal gets the decision only; the operator's note goes to the agent.
                self.record_answer(row, started, Answer("rejected", rejected, self.page))
                said = f" The operator says: {approval.note}" if approval.note else ""
                return Answer("rejected", rejected + said, self.page)
            sent = await self.dispatch(held, "approve")
            return await self.judged(self.record_answer(row, started, sent))
        except BrowserUnavailableError as down:
            return Answer("error", str(down), self.page, unavailable=down.facts())
        except (MCPToolError, MCPConnectionError, JournalWriteError) as error:
            return Answer("error", str(error), self.page)

    async def _after_held(self, _answer: Answer) -> None:
        """A held call has its answer: a dead browser is closed, the slot freed."""
        if not self.browser_alive():
            await self.close_browser()
        self.release()

    async def dispatch(self, prepared: Ready | Held, verdict: str | None = None) -> Answer:
        """Finish ``prepared`` through the pipeline (a held one with the operator's
        ``verdict``) and answer with the page."""
        seen = prepared.seen if isinstance(prepared, Ready) else prepared.page
        sent = await self.calls.finish(
            prepared, self.running_gateway(), "approve" if verdict == "approve" else None
        )
        if isinstance(sent, Refused):
            # The approved target changed while the operator decided: nothing was sent.
            if sent.fresh:
                self._seen = sent.page
            return Answer("refused", sent.message, sent.page)
        if isinstance(sent, Unsent):
            message = f"{sent.error} The call was not sent."
            if isinstance(sent.error, BrowserUnavailableError):
                return Answer("error", message, self._seen, unavailable=sent.error.facts())
            return Answer("error", message, self._seen)
        if isinstance(sent, Lost):
            lost = sent.error
            if isinstance(lost, BrowserUnavailableError):
                # Its browser died and the policy allows no restart now (degraded).
                message = f"{lost} If the call was sent, what it did is not known."
                return Answer("error", message, self._seen, unavailable=lost.facts())
            message = f"{lost} What the call did is not known: take a snapshot before acting again."
            reopened = lost.snapshot if isinstance(lost, OutcomeUnknownError) else None
            if isinstance(reopened, NormalizedSnapshot) and self.browser_alive():
                # The browser was restarted and reopened the page: the agent gets that page.
                with contextlib.suppress(MCPToolError, MCPConnectionError):
                    return Answer("error", message, await self._settle(reopened))
            return Answer("error", message, self._seen)
        if isinstance(sent, Failed):
            self._console_text = await self.running_gateway().console_messages()
            failed = sent.error
            page = failed.snapshot if isinstance(failed.snapshot, NormalizedSnapshot) else seen
            if page is None:
                page = await self.running_gateway().snapshot()
            return Answer("error", str(failed), await self._settle(page))
        self._result_text = sent.result.text
        self._console_text = await self.running_gateway().console_messages()
        page = await self._settle(sent.result.snapshot)
        return Answer("ok", "", page, browser_text=self.scrubber.text(sent.result.text))

    async def _settle(self, raw: NormalizedSnapshot) -> NormalizedSnapshot:
        """Scrub the page, close tabs that left the domains, remember it as the agent's page."""
        # What the person typed in the window so far is known before the page is scrubbed.
        await self.running_gateway().requests.typed_values_heard()
        page = self.scrubber.snapshot(without_revealing_picture(raw, self.scrubber))
        contained, _removed = await contain_tabs(
            self.running_gateway(), page, self.guard.url_allowed
        )
        page = self.scrubber.snapshot(contained)
        self.guard.learn(page)
        self._seen = page
        self.lazy.remember(self.call_log.typed.text(page.url))
        return page

    def record_answer(self, row: int | None, started: float, answer: Answer) -> Answer:
        """Journal ``answer`` (turn row ``row``) and its call log entry; the answer with its
        ref_id and the request gate's notes."""
        refused = self.requests.take_notes()
        if refused:
            answer = dataclasses.replace(
                answer, message=" ".join([answer.message, *refused]).strip()
            )
        self.call_log.turn_outcome(row, answer, time.perf_counter() - started)
        tool, arguments = self._call
        ref_id = self.call_log.record(
            tool,
            arguments,
            answer,
            result_text=self._result_text,
            console_text=self._console_text,
            latency=time.perf_counter() - started,
            turn_id=row,
        )
        return dataclasses.replace(answer, ref_id=ref_id)

    # --- the browser, lazily ----------------------------------------------------------

    def running_gateway(self) -> BrowserGateway:
        """The running browser's gateway; MCPConnectionError while it is closed."""
        gateway = self.lazy.gateway
        if gateway is None:
            raise MCPConnectionError(f"The browser of session '{self.key.name}' is closed.")
        return gateway

    async def _open_browser(self) -> BrowserGateway:
        """The running gateway; a closed browser starts and reopens the session's last page."""
        gateway = self.lazy.gateway
        if gateway is not None:
            return gateway
        self._seen = None
        result = await self.lazy.open()
        self._run_dirs.add(self.running_gateway().plan.run_dir)
        # The guard judges by the service as the browser runs it (a practice port pinned).
        running = self.lazy.running
        self.guard.service = running.service if running else self.service
        if running is not None and running.reach is not None:
            # One answer to "reachable now" for the guard, the request gate and the filter.
            self.guard.reach = running.reach
        try:
            await self._settle(result.snapshot)
        except BaseException:
            await self.lazy.close()
            raise
        return self.running_gateway()

    async def open_browser(self) -> None:
        """Start the browser on the session's last page (a restart after a crash)."""
        await self._open_browser()

    async def close_browser(self) -> None:
        """Close the browser (idle or closing); the profile and the last URL stay."""
        self._seen = None
        await self.lazy.close()
        await self._scrub_files()

    async def _scrub_files(self) -> None:
        """Playwright MCP writes the page's console log (and any file it saves) under the
        browser's run folder: nothing typed in this session stays in them."""
        for run_dir in sorted(self._run_dirs):
            await asyncio.to_thread(self.call_log.typed.files, run_dir)

    async def close(self, why: str = "the session closed") -> None:
        """End unsent what waits for the operator (``why``), close the browser, end the run."""
        self.held.withdraw_all(why)
        await self.held.drained()
        page = self._seen
        await self.close_browser()
        result = self.evidence.closing_result(self.service, self.turns, page, self.run_id)
        with contextlib.suppress(JournalWriteError):
            self.journal.finish_run(self.run_id, result, model=None, pilot=self._pilot)
