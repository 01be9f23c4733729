"""The orchestration loop (seed 000 §2.4): one tool call per turn until the task ends.

Every turn: the pilot proposes a call; the guard refuses it, or the human is
asked first when a checkpoint rule holds; the browser dispatches it and
returns the fresh page; hand-offs and domain checks run on that page; the
pilot hears the outcome. ``complete_task(success)`` ends the run only when the
service's rules confirm it on a fresh snapshot. However the run ends, it ends
in a TaskResult, a finished journal row and a RunFinished event.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.errors import (
    JournalWriteError,
    MCPConnectionError,
    MCPToolError,
    OutcomeUnknownError,
    SubTerminatorError,
)
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
from subterminator_tui.orchestrator.guard import Checkpoint, Guard, describe_action
from subterminator_tui.orchestrator.handoff import HandoffCancelled, describe_handoff, hand_off
from subterminator_tui.orchestrator.ledger import RunLedger
from subterminator_tui.orchestrator.pause import pause_of
from subterminator_tui.orchestrator.result import TaskResult
from subterminator_tui.orchestrator.secrets import SecretScrubber
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
from subterminator_tui.orchestrator.virtual_tools import COMPLETE_TASK, REQUEST_HUMAN_APPROVAL
from subterminator_tui.pilots.base import Pilot
from subterminator_tui.rules import ServiceConfig, verify_completion


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
        self.ledger = RunLedger(service.id, pilot, journal, options.start_url)
        self.scrubber = SecretScrubber()
        self._unverified_claims = 0

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
        try:
            result = await self._drive()
        except RunEnded as ended:
            result = self.ledger.result(ended.reason, success=ended.success, message=ended.message)
        except SubTerminatorError as error:
            result = self.ledger.result(reason_for(error), error=str(error))
        except asyncio.CancelledError:
            # Interrupted: the journal still learns how the run ended, then cancellation goes on.
            interrupted = self.ledger.result("interrupted", message="Interrupted by the person.")
            self._finish(interrupted)
            raise
        self._finish(result)
        return result

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
            verification = verify_completion(self.service, snapshot)
            if verification.verified:
                return self.ledger.result(
                    "completed",
                    success=True,
                    message=verification.message,
                    verified_by=verification.verified_by,
                )
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
            record = self.ledger.intent(call, target)
            step = await self._execute(call, snapshot)
            latency = time.perf_counter() - started
            if step.snapshot is not None:
                snapshot = step.snapshot
            self.ledger.outcome(record, step.outcome, step.message, snapshot, latency, proposal)
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
                    mcp_seconds=self.browser.mcp_seconds - mcp_before,
                    human_seconds=self.gate.seconds - human_before,
                )
            )
            if step.outcome == "done":
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
        refusal = self.guard.refusal(call, snapshot)
        if refusal is not None:
            refused = {"error": True, "message": refusal.message}
            return self._tell(call, "refused", refused, snapshot)
        try:
            # Before anyone is asked: nobody should approve a call the browser would refuse.
            self.browser.checked_arguments(call.name, call.arguments)
        except MCPToolError as invalid:
            return self._tell(call, "refused", {"error": True, "message": str(invalid)}, snapshot)
        try:
            judged = await self._judge(call, snapshot)
        except MCPToolError as unread:
            # The page could not be read before dispatch: nothing was sent; the pilot hears why.
            return self._tell_error(call, unread, snapshot)
        if isinstance(judged, TurnOutcome):
            return judged
        if judged is not None:
            target = self.guard.target_of(call, snapshot)
            action = describe_action(call, target)
            if judged.effect():
                action = f"{action}: {judged.effect()}"
            # The person may take a while, or the run may die right after: keep the sign-in.
            await self.browser.keep_sign_in()
            step = self.ledger.question(judged.why, action, snapshot.url)
            decision = await self._ask("rule", judged.why, action, snapshot, call)
            self.ledger.decision(step, decision.verdict)
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
        else:
            step = None
        # While the person is asked whether to stop, nothing is sent to the page.
        await self.pause.until_released()
        # Written before the call goes out: a crash now reads "dispatched, outcome unknown".
        self.ledger.dispatch(step)
        try:
            result = await self.browser.call(call.name, call.arguments)
        except (OutcomeUnknownError, MCPConnectionError) as lost:
            self.ledger.step_outcome(step, "unknown")
            if judged is None:
                if isinstance(lost, MCPConnectionError):
                    raise
                return self._tell_error(call, lost, snapshot)
            # An approved irreversible step may have run: look, never repeat it.
            return await self._after_lost_answer(call, snapshot, str(lost), step)
        except MCPToolError as error:
            self.ledger.step_outcome(step, "failed")
            return self._tell_error(call, error, snapshot)
        self.ledger.step_outcome(step, "done")
        page, note = await self._settle(result.snapshot)
        status: dict[str, Any] = {"error": False}
        if note:
            status["note"] = note
        return self._tell(call, "ok", status, page)

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
            verification = verify_completion(self.service, page)
            if verification.verified:
                self.ledger.step_outcome(step, "done")
                return TurnOutcome.verified_on(page, verification)
            if verification.failure_rule is not None:
                self.ledger.step_outcome(step, "failed")
                raise RunEnded("task_failed", verification.message)
        raise RunEnded(
            "outcome_unknown",
            f"The browser stopped answering right after you approved: {action} ({why}). The "
            f"cancellation may have gone through: check {self.options.start_url} yourself "
            "before running again; SubTerminator did not repeat the step.",
        )

    async def _judge(
        self, call: ToolCall, seen: NormalizedSnapshot
    ) -> Checkpoint | TurnOutcome | None:
        """The guard's judgement on the page as it is right before dispatch (None: go on);
        a target that changed since the pilot's snapshot is refused with the fresh page."""
        judged = await self.guard.before_dispatch(call, seen, self.browser, self.scrubber.snapshot)
        if judged.refusal is not None and judged.fresh is not None:
            self.reporter.emit(PageSeen(judged.fresh, self.guard.url_allowed(judged.fresh.url)))
            refused = {"error": True, "message": judged.refusal.message}
            return self._tell(call, "refused", refused, judged.fresh)
        return judged.checkpoint

    async def _complete(self, call: ToolCall) -> TurnOutcome:
        status = call.arguments.get("status")
        reason = str(call.arguments.get("reason", ""))
        if status == "failed":
            # Seed 000 §2.6.3: the pilot's failure determination is trusted.
            return TurnOutcome("done", reason, verified=False)
        page = self.scrubber.snapshot(await self.browser.snapshot())
        self.ledger.saw(page)
        verification = verify_completion(self.service, page)
        if verification.verified:
            return TurnOutcome.verified_on(page, verification)
        self._unverified_claims += 1
        if self._unverified_claims >= UNVERIFIED_CLAIM_LIMIT:
            raise RunEnded("verification_failed", verification.message)
        message = unverified_message(page.url)
        return self._tell(call, "unverified", {"error": True, "message": message}, page)

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
        # AC-5.4: the person sees a screenshot of exactly what they approve; while a
        # native dialog is open the browser cannot take one, and the dialog is the page.
        try:
            screenshot: str | None = str(await self.browser.screenshot())
        except MCPToolError:
            screenshot = None
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
            try:
                snapshot, kinds = await hand_off(
                    self.service,
                    self.browser,
                    self.gate,
                    snapshot,
                    self.scrubber,
                    headed=self.options.headed,
                    hint=self.options.handoff_hint,
                )
            except HandoffCancelled as cancelled:
                raise RunEnded("human_rejected", str(cancelled)) from None
            if kinds:
                await self.browser.keep_sign_in()
                notes.append(describe_handoff(kinds))
                self.reporter.emit(Notice(describe_handoff(kinds)))
                self.reporter.emit(PageSeen(snapshot, self.guard.url_allowed(snapshot.url)))
        self.guard.learn(snapshot)
        self.ledger.saw(snapshot)
        return snapshot, " ".join(notes)

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
        self.pilot.observe(call, feedback, snapshot)
        message = str(feedback.get("message") or feedback.get("note") or "")
        return TurnOutcome(outcome, message, snapshot)
