"""The orchestration loop: one tool call per turn until the task ends.

Every turn: the pilot proposes a call; the guarded-call pipeline (pipeline.py)
refuses it, or the human is asked first when a checkpoint rule holds; the
browser dispatches it and returns the fresh page; hand-offs and domain checks run on that page; the
pilot hears the outcome. ``complete_task(success)`` ends the run only when the
service's rules confirm it on a fresh snapshot. However the run ends, it ends
in a TaskResult, a finished journal row and a RunFinished event.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from typing import Any

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.errors import (
    CallNotSentError,
    JournalWriteError,
    MCPConnectionError,
    MCPToolError,
    SubTerminatorError,
)
from subterminator_tui.journal.request_log import RequestLog
from subterminator_tui.journal.store import Journal
from subterminator_tui.orchestrator.browser import Browser
from subterminator_tui.orchestrator.events import (
    NoAction,
    Notice,
    Outcome,
    PageSeen,
    Reporter,
    RunFinished,
    RunStarted,
    TurnFinished,
    TurnStarted,
)
from subterminator_tui.orchestrator.gates import (
    CheckpointKind,
    CheckpointRequest,
    Decision,
    HumanGate,
    TimedGate,
)
from subterminator_tui.orchestrator.guard import Guard, describe_action
from subterminator_tui.orchestrator.handoff import HandoffCancelled, describe_handoff, hand_off
from subterminator_tui.orchestrator.ledger import RunLedger
from subterminator_tui.orchestrator.outcome import OutcomeJudge, sent_not_verified_message
from subterminator_tui.orchestrator.pause import pause_of
from subterminator_tui.orchestrator.pipeline import CallPipeline, Failed, Held, Lost, Refused
from subterminator_tui.orchestrator.request_evidence import LoggedAnswers
from subterminator_tui.orchestrator.request_gate import gate_for_run
from subterminator_tui.orchestrator.secrets import SecretScrubber
from subterminator_tui.orchestrator.sign_in_window import sign_in_pending
from subterminator_tui.orchestrator.tabs import contain_tabs
from subterminator_tui.orchestrator.turns import (
    NO_ACTION_LIMIT,
    NUDGE,
    UNVERIFIED_CLAIM_LIMIT,
    RunEnded,
    RunOptions,
    TurnOutcome,
    reason_for,
    unverified_message,
)
from subterminator_tui.pilots.base import Pilot
from subterminator_tui.pilots.regions import region_text
from subterminator_tui.pilots.virtual_tools import (
    COMPLETE_TASK,
    REQUEST_HUMAN_APPROVAL,
    SHOW_REGION,
)
from subterminator_tui.results import TaskResult
from subterminator_tui.rules import ServiceConfig, verify_completion
from subterminator_tui.rules.effects import READ_ONLY_TOOLS
from subterminator_tui.rules.typed_endings import detect_ending


class Orchestrator:
    """Runs one cancellation with a pilot, the guard, a browser and a human gate."""

    def __init__(
        self,
        service: ServiceConfig,
        browser: Browser,
        pilot: Pilot,
        gate: HumanGate,
        reporter: Reporter,
        guard: Guard,
        options: RunOptions,
        journal: Journal | None = None,
    ) -> None:
        self.service = service
        self.browser = browser
        self.pilot = pilot
        self.gate = TimedGate(gate)
        self.pause = pause_of(gate)
        self.reporter = reporter
        self.guard = guard
        self.options = options
        self.ledger = RunLedger(service.id, pilot, journal, options.start_url, options.price)
        self.scrubber = SecretScrubber()
        # The backstop: every request the browser sends is judged again where it happens.
        self.requests = gate_for_run(browser, guard, self.ledger, self.gate, self.scrubber.text)
        self.calls = CallPipeline(guard, self.ledger, self.scrubber.snapshot, self.requests)
        self.outcomes = OutcomeJudge(service, browser, self.scrubber.text)
        self._unverified_claims = 0
        #: The screenshot the person was last asked on (a receipt shows it).
        self._screenshot: str | None = None

    async def run(self) -> TaskResult:
        """Drive the run to its end and return the TaskResult (errors become results)."""
        self.reporter.emit(
            RunStarted(
                self.service.name,
                self.pilot.name,
                self.pilot.model_name,
                self.options.max_turns,
                self.guard.checkpoints,
            )
        )
        if self.guard.checkpoints and not self.service.default_checkpoints:
            self.reporter.emit(
                Notice(
                    f"{self.service.name} turns the built-in checkpoints off "
                    "(default_checkpoints = false): only its own rules ask before "
                    "irreversible steps.",
                    "warning",
                )
            )
        self.ledger.start()
        if self.requests is not None and self.ledger.journal is not None:
            self.requests.request_log = RequestLog(self.ledger.journal)
            self.requests.run_id = self.ledger.run_id
            # The service's answers to the approved steps' requests: evidence, or a veto.
            self.outcomes.requests = LoggedAnswers(
                self.requests.request_log, lambda: self.ledger.run_id
            )
        try:
            result = await self._drive()
        except RunEnded as ended:
            result = self.ledger.result(
                ended.reason, success=ended.success, message=ended.message, ending=ended.ending
            )
        except SubTerminatorError as error:
            result = self.ledger.result(reason_for(error), error=str(error))
        except asyncio.CancelledError:
            # Interrupted: the journal still learns how the run ended, then cancellation goes on.
            interrupted = self.ledger.result("interrupted", message="Interrupted by the person.")
            self._finish(interrupted)
            raise
        result = self._honest(result)
        self._finish(result)
        return result

    def _honest(self, result: TaskResult) -> TaskResult:
        """A run that ends unverified after an approved step went out says so, never
        "not cancelled": sent, not verified, with the page to check."""
        reason = self.outcomes.honest_reason(result.reason, result.success)
        if reason == result.reason:
            return result
        detail = result.message or result.error or result.reason
        message = sent_not_verified_message(self.options.start_url, f"{result.reason}: {detail}")
        return self.ledger.result(reason, message=message)

    def _finish(self, result: TaskResult) -> None:
        """The open turn and the run get their ends; a journal that cannot be written is said."""
        try:
            outcome = "rejected" if result.reason == "human_rejected" else result.reason
            self.ledger.close_open_turn(outcome, result.message or result.error or "")
            self.ledger.finish(result)
        except JournalWriteError as error:
            self.reporter.emit(Notice(str(error), "warning"))
        self.reporter.emit(RunFinished(result))

    async def _drive(self) -> TaskResult:
        first = await self.browser.call("browser_navigate", {"url": self.options.start_url})
        snapshot, _note = await self._settle(first.snapshot, allow_handoff=not self.options.dry_run)
        await self.browser.keep_sign_in()
        if self.options.verify_first:
            # A resumed run: its interrupted predecessor may have sent the last step.
            verification = verify_completion(self.service, snapshot)
            if verification.verified:
                return self.ledger.result(
                    "completed",
                    success=True,
                    message=verification.message,
                    verified_by=verification.verified_by,
                )
        elif not self.options.dry_run:
            already = await self.outcomes.already_cancelled(snapshot)
            if already is not None:
                return self.ledger.result("already_cancelled", message=already.message)
        self._end_without_a_click(snapshot)
        self.pilot.begin(snapshot)
        no_action = 0
        while self.ledger.turns < self.options.max_turns:
            await self.pause.until_released()
            self.ledger.turns += 1
            turn = self.ledger.turns
            started = time.perf_counter()
            mcp_before, human_before = self.browser.mcp_seconds, self.gate.seconds
            proposal = await self.pilot.next_turn(snapshot)
            self.ledger.count(proposal)
            if proposal.stop is not None:
                raise RunEnded("playbook_diverged", proposal.stop)
            if proposal.call is None:
                no_action += 1
                self.reporter.emit(NoAction(turn, proposal.text, no_action))
                if no_action >= NO_ACTION_LIMIT:
                    raise RunEnded(
                        "llm_no_action", "The model answered three times without a tool call."
                    )
                self.pilot.nudge(NUDGE)
                continue
            no_action = 0
            call = proposal.call
            target = self.guard.target_of(call, snapshot)
            self.reporter.emit(TurnStarted(turn, call, target, proposal.text, self.pilot.name))
            if self.options.dry_run:
                return self.ledger.result("dry_run", message=describe_action(call, target))
            self.calls.intent(turn, call, snapshot)
            step = await self._execute(call, snapshot)
            latency = time.perf_counter() - started
            if step.snapshot is not None:
                snapshot = step.snapshot
            self.ledger.outcome(step.outcome, step.message, snapshot, latency, proposal)
            self.reporter.emit(
                TurnFinished(
                    turn,
                    call,
                    target,
                    step.outcome,
                    step.message,
                    latency,
                    proposal.usage.input_tokens,
                    proposal.usage.output_tokens,
                    model_seconds=proposal.latency,
                    cache_read_tokens=proposal.usage.cache_read_tokens,
                    cache_write_tokens=proposal.usage.cache_write_tokens,
                    mcp_seconds=self.browser.mcp_seconds - mcp_before,
                    human_seconds=self.gate.seconds - human_before,
                )
            )
            if step.outcome == "done" or step.verified:
                return self.ledger.result(
                    "completed" if step.verified else "task_failed",
                    success=step.verified,
                    message=step.message,
                    verified_by=step.verified_by,
                )
        raise RunEnded("max_turns_exceeded", f"No result after {self.options.max_turns} turns.")

    async def _execute(self, call: ToolCall, snapshot: NormalizedSnapshot) -> TurnOutcome:
        if call.name == COMPLETE_TASK:
            return await self._complete(call)
        if call.name == REQUEST_HUMAN_APPROVAL:
            return await self._model_asks(call, snapshot)
        if call.name == SHOW_REGION:
            return self._show_region(call, snapshot)
        try:
            prepared = await self.calls.prepare(call, snapshot, self.browser)
        except MCPToolError as unread:
            # The page could not be read before dispatch: nothing was sent; the pilot hears why.
            return self._tell_error(call, unread, snapshot)
        if isinstance(prepared, Refused):
            if prepared.fresh:
                allowed = self.guard.url_allowed(prepared.page.url)
                self.reporter.emit(PageSeen(prepared.page, allowed))
            refused = {"error": True, "message": prepared.message}
            return self._tell(call, "refused", refused, prepared.page)
        step = None
        if isinstance(prepared, Held):
            # The person may take a while, or the run may die right after: keep the sign-in.
            await self.browser.keep_sign_in()
            step = self.calls.ask(self.ledger.turns, prepared)
            # Read while asking, not after: the first thing after an approval is the step.
            seen = await self.outcomes.seen()
            why, action = prepared.checkpoint.why, prepared.action
            decision = await self._ask("rule", why, action, snapshot, call)
            self.calls.decide(step, decision.verdict)
            if decision.verdict == "reject" and not decision.answered:
                raise RunEnded("no_answer", f"{action} was not run")
            if decision.verdict == "reject":
                raise RunEnded("human_rejected", f"You rejected: {action}")
            if decision.verdict == "guidance":
                guided = {
                    "error": True,
                    "message": "Not done: the person sent guidance instead.",
                    "human_guidance": decision.guidance,
                }
                return self._tell(call, "guidance", guided, snapshot)
            self.ledger.step_before(step, self._screenshot)
            approved = self.outcomes.approved(
                step, prepared.action, prepared.checkpoint, snapshot, seen
            )
        else:
            approved = None
            if not self.guard.checkpoints and call.name not in READ_ONLY_TOOLS:
                # Checkpoints are off by the person's choice: every step stands in for one.
                target = self.guard.target_of(call, snapshot)
                labels = (target.label,) if target is not None else ()
                approved = await self.outcomes.unasked(
                    describe_action(call, target), labels, snapshot
                )
        # While the person is asked whether to stop, nothing is sent to the page.
        await self.pause.until_released()
        sent = await self.calls.send(
            call, self.browser, step, turn=self.ledger.turns, approved=isinstance(prepared, Held)
        )
        if isinstance(sent, Lost):
            self.outcomes.went(approved, "unknown")
            if not isinstance(prepared, Held):
                if isinstance(sent.error, MCPConnectionError):
                    raise sent.error
                return self._tell_error(call, sent.error, snapshot)
            # An approved irreversible step may have run: look, never repeat it.
            return await self._after_lost_answer(call, snapshot, str(sent.error), step)
        if isinstance(sent, Failed):
            if not isinstance(sent.error, CallNotSentError):
                # Refused by the browser after it may have acted: counted as sent.
                self.outcomes.went(approved, "failed")
            return self._tell_error(call, sent.error, snapshot)
        self.outcomes.went(approved, "done")
        if step is not None:
            await self._after_step(step)
        page, note = await self._settle(sent.result.snapshot)
        if isinstance(prepared, Held):
            # The approved step's page proves the cancellation on evidence: the run is done.
            # The pilot's own claim would add nothing the rules have not checked; asking
            # for it costs a model call and offers the page's "rejoin" one more turn.
            verification = await self.outcomes.verify(page)
            if verification.verified:
                # The step itself went as any other ("ok": a recording replays it); its
                # verification is what ends the run.
                ended = TurnOutcome.verified_on(page, verification)
                return dataclasses.replace(ended, outcome="ok")
        self._end_without_a_click(page)
        status: dict[str, Any] = {"error": False}
        if note:
            status["note"] = note
        return self._tell(call, "ok", status, page)

    async def _after_step(self, step: int) -> None:
        """Keep what the page showed after an approved step: a receipt's evidence."""
        try:
            shot: str | None = str(await self.browser.screenshot())
            text = await self.outcomes.seen()
        except SubTerminatorError:
            # Evidence for later only: the run goes on, and its next call meets any real loss.
            shot, text = None, None
        self.ledger.step_after(step, shot, text)

    async def _after_lost_answer(
        self, call: ToolCall, seen: NormalizedSnapshot, why: str, step: int | None
    ) -> TurnOutcome:
        """The browser stopped answering during an approved irreversible step: what happened?

        The page decides, by the service's success and failure rules, on the page the
        browser reopens and then on the service's start page. Neither tells: the run
        ends as ``outcome_unknown`` and the pilot is never asked to try again.
        """
        action = describe_action(call, self.guard.target_of(call, seen))
        for url in (None, self.options.start_url):
            try:
                if url is not None:
                    await self.browser.call("browser_navigate", {"url": url})
                page = self.scrubber.snapshot(await self.browser.snapshot())
            except SubTerminatorError:
                continue
            self.ledger.saw(page)
            self.reporter.emit(PageSeen(page, self.guard.url_allowed(page.url)))
            verification = await self.outcomes.verify(page)
            if verification.verified:
                self.calls.settle(step, "done")
                return TurnOutcome.verified_on(page, verification)
            if verification.failure_rule is not None:
                self.calls.settle(step, "failed")
                raise RunEnded("task_failed", verification.message)
        raise RunEnded(
            "outcome_unknown",
            f"The browser stopped answering right after you approved: {action} ({why}). The "
            f"cancellation may have gone through: check {self.options.start_url} yourself "
            "before running again; SubTerminator did not repeat the step.",
        )

    async def _complete(self, call: ToolCall) -> TurnOutcome:
        status = call.arguments.get("status")
        reason = str(call.arguments.get("reason", ""))
        if status == "failed":
            # A pilot giving up is believed: a failure claim cannot cancel anything.
            return TurnOutcome("done", reason, verified=False)
        page = self.scrubber.snapshot(await self.browser.snapshot())
        self.ledger.saw(page)
        verification = await self.outcomes.verify(page)
        if verification.verified:
            return TurnOutcome.verified_on(page, verification)
        self._unverified_claims += 1
        if self._unverified_claims >= UNVERIFIED_CLAIM_LIMIT:
            raise RunEnded("verification_failed", verification.message)
        message = unverified_message(page.url)
        return self._tell(call, "unverified", {"error": True, "message": message}, page)

    def _show_region(self, call: ToolCall, snapshot: NormalizedSnapshot) -> TurnOutcome:
        """What a ref of the page the pilot was last sent holds, in full; nothing is sent."""
        try:
            region = region_text(snapshot, str(call.arguments.get("target", "")))
        except ValueError as unknown:
            return self._tell(call, "error", {"error": True, "message": str(unknown)}, None)
        return self._tell(call, "ok", {"region": region}, None)

    async def _model_asks(self, call: ToolCall, snapshot: NormalizedSnapshot) -> TurnOutcome:
        why = str(call.arguments.get("reason", ""))
        action = str(call.arguments.get("action", ""))
        decision = await self._ask("model_request", why, action, snapshot, None)
        if decision.verdict == "reject" and not decision.answered:
            raise RunEnded("no_answer", f"{action} was not run")
        if decision.verdict == "reject":
            raise RunEnded("human_rejected", f"You rejected: {action}")
        status: dict[str, Any] = {"approved": decision.verdict == "approve"}
        if decision.verdict == "guidance":
            status["human_guidance"] = decision.guidance
        outcome: Outcome = "ok" if decision.verdict == "approve" else "guidance"
        return self._tell(call, outcome, status, snapshot)

    async def _ask(
        self,
        kind: CheckpointKind,
        why: str,
        action: str,
        snapshot: NormalizedSnapshot,
        call: ToolCall | None,
    ) -> Decision:
        # The person sees a screenshot of exactly what they approve; while a
        # native dialog is open the browser cannot take one, and the dialog is the page.
        try:
            screenshot: str | None = str(await self.browser.screenshot())
        except MCPToolError:
            screenshot = None
        self._screenshot = screenshot
        request = CheckpointRequest(
            kind=kind,
            why=why,
            action=action,
            url=snapshot.url,
            screenshot_path=screenshot,
            call=call,
            target=self.guard.target_of(call, snapshot) if call else None,
            takes_guidance=self.pilot.model_name is not None,
        )
        return await self.gate.approve(request)

    async def _settle(
        self, raw: NormalizedSnapshot, *, allow_handoff: bool = True
    ) -> tuple[NormalizedSnapshot, str]:
        """Scrub the fresh page, check its domain, and hand off when it needs the human."""
        snapshot = self.scrubber.snapshot(raw)
        notes: list[str] = []
        if allow_handoff and sign_in_pending(self.guard.reach, snapshot):
            # An identity provider's page (or pop-up) is the person's: signed in there
            # first, so containment never takes it away from them.
            snapshot = await self._hand_off(snapshot, notes)
        # Off-domain tabs are closed and the current tab brought back before anyone reads them.
        contained, removed = await contain_tabs(self.browser, snapshot, self.guard.url_allowed)
        snapshot = self.scrubber.snapshot(contained)
        self.reporter.emit(PageSeen(snapshot, True))
        if removed:
            left = ", ".join(removed)
            decision = await self._ask(
                "left_domains",
                f"A page tried to leave {self.service.name}'s allowed domains ({left}); "
                "SubTerminator closed it before anything read it",
                f"Continue the run on {snapshot.url}",
                snapshot,
                None,
            )
            if decision.verdict == "reject":
                raise RunEnded("human_rejected", f"You stopped the run after it reached {left}")
            notes.append(
                "A page outside the allowed domains was closed; the run goes on from this page."
            )
            if decision.verdict == "guidance":
                notes.append(f"The person says: {decision.guidance}")
        if allow_handoff:
            snapshot = await self._hand_off(snapshot, notes)
        self.guard.learn(snapshot)
        self.ledger.saw(snapshot)
        return snapshot, " ".join(notes)

    def _end_without_a_click(self, snapshot: NormalizedSnapshot) -> None:
        """End the run (RunEnded) when the page says no click can cancel it here."""
        ending = detect_ending(self.service, snapshot)
        # A page that proves the cancellation is left to complete_task, whatever else it says.
        if ending is not None and not verify_completion(self.service, snapshot).verified:
            raise RunEnded(ending.reason, ending.message(self.service.name), ending=ending)

    async def _hand_off(self, snapshot: NormalizedSnapshot, notes: list[str]) -> NormalizedSnapshot:
        """Every hand-off the page calls for (sign-ins, codes, captchas); the page after them."""
        try:
            snapshot, kinds = await hand_off(
                self.service,
                self.browser,
                self.gate,
                snapshot,
                self.scrubber,
                headed=self.options.headed,
                hint=self.options.handoff_hint,
                reach=self.guard.reach,
            )
        except HandoffCancelled as cancelled:
            raise RunEnded("human_rejected", str(cancelled)) from None
        if kinds:
            await self.browser.keep_sign_in()
            notes.append(describe_handoff(kinds))
            self.reporter.emit(Notice(describe_handoff(kinds)))
            self.reporter.emit(PageSeen(snapshot, self.guard.url_allowed(snapshot.url)))
        return snapshot

    def _tell_error(
        self, call: ToolCall, error: MCPToolError, seen: NormalizedSnapshot
    ) -> TurnOutcome:
        """A failed call: the pilot hears the error with the page it carries (else the one it
        saw), scrubbed like every page that reaches a pilot."""
        page = error.snapshot if isinstance(error.snapshot, NormalizedSnapshot) else seen
        failed = {"error": True, "message": str(error)}
        return self._tell(call, "error", failed, self.scrubber.snapshot(page))

    def _tell(
        self,
        call: ToolCall,
        outcome: Outcome,
        feedback: dict[str, Any],
        snapshot: NormalizedSnapshot | None,
    ) -> TurnOutcome:
        """Give the pilot the call's feedback (its JSON) and the page; the loop keeps the rest."""
        refused = self.requests.take_notes() if self.requests is not None else []
        if refused:
            feedback = {**feedback, "requests_refused": refused}
        self.pilot.observe(call, feedback, snapshot)
        message = str(feedback.get("message") or feedback.get("note") or "")
        return TurnOutcome(outcome, message, snapshot)
