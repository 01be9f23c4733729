"""The orchestration loop: one tool call per turn until the task ends.

Every turn: the pilot proposes a call; the guarded-call pipeline (guarded/pipeline.py)
refuses it, or the human is asked first when a checkpoint rule holds; the
browser dispatches it and returns the fresh page; hand-offs and domain checks run
on that page; the pilot hears the outcome. ``complete_task(success)`` ends the run
only when the service's rules confirm it on a fresh snapshot. However the run ends,
it ends in a TaskResult, a finished journal row and a RunFinished event.

The loop is composed of objects that share one run context: ``run_context`` (the
run's collaborators, telling the pilot, asking the person), ``page_arrival``'s page
intake (every fresh page), ``virtual_calls`` (the calls the loop answers itself),
``call_step`` (one browser call carried out) and, here, the run from its first page
to its result.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time

from subterminator_tui.errors import JournalWriteError, SubTerminatorError
from subterminator_tui.guarded.browser import Browser
from subterminator_tui.guarded.gates import HumanGate
from subterminator_tui.guarded.guard import Guard, describe_action
from subterminator_tui.guarded.outcome import OutcomeJudge, sent_not_verified_message
from subterminator_tui.guarded.secrets import SecretScrubber
from subterminator_tui.journal.store import Journal
from subterminator_tui.orchestrator.call_step import CallStep
from subterminator_tui.orchestrator.events import (
    NoAction,
    Notice,
    PageSeen,
    Reporter,
    RunFinished,
    RunStarted,
    TurnFinished,
    TurnStarted,
)
from subterminator_tui.orchestrator.ledger import RunLedger
from subterminator_tui.orchestrator.page_arrival import PageIntake
from subterminator_tui.orchestrator.run_context import RunContext
from subterminator_tui.orchestrator.turns import (
    NO_ACTION_LIMIT,
    NUDGE,
    RunEnded,
    RunOptions,
    reason_for,
)
from subterminator_tui.orchestrator.virtual_calls import VirtualCalls
from subterminator_tui.pilots.base import Pilot
from subterminator_tui.results import TaskReason, TaskResult
from subterminator_tui.rules import ServiceConfig, verify_completion

#: Endings that may hide a guard miss: the run stopped short of a verified cancellation
#: on its own account, while a request sent with nobody asked may have cancelled it.
_MAY_HIDE_A_MISS: frozenset[TaskReason] = frozenset(
    {
        "task_failed",
        "verification_failed",
        "max_turns_exceeded",
        "llm_no_action",
        "llm_error",
        "playbook_diverged",
    }
)
# Not after the person said no or left: the run then stops touching the browser (it
# may already be closing, and a call would start it again). A miss before that point
# still shows on the page the last verification read.


class Orchestrator:
    """Runs one cancellation with a pilot, the guard, a browser and a human gate.

    Composed, not stacked: one :class:`RunContext` holds the run's collaborators; the
    page intake, the calls the loop answers itself and the call step each hold it.
    """

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
        self.context = RunContext(service, browser, pilot, gate, reporter, guard, options, journal)
        self.intake = PageIntake(self.context)
        self.virtual = VirtualCalls(self.context)
        self.steps = CallStep(self.context, self.intake, self.virtual)

    @property
    def outcomes(self) -> OutcomeJudge:
        """The run's evidence and the judge of its outcome."""
        return self.context.outcomes

    @property
    def scrubber(self) -> SecretScrubber:
        """What a person typed, kept out of every page the pilot reads."""
        return self.context.scrubber

    @property
    def ledger(self) -> RunLedger:
        """The run's bookkeeping: its journal rows, tokens, time and result."""
        return self.context.ledger

    @property
    def pilot(self) -> Pilot:
        """What proposes the next call."""
        return self.context.pilot

    async def run(self) -> TaskResult:
        """Drive the run to its end and return the TaskResult (errors become results)."""
        self.context.reporter.emit(
            RunStarted(
                self.context.service.name,
                self.context.pilot.name,
                self.context.pilot.model_name,
                self.context.options.max_turns,
                self.context.guard.checkpoints,
            )
        )
        if self.context.guard.checkpoints and not self.context.service.default_checkpoints:
            self.context.reporter.emit(
                Notice(
                    f"{self.context.service.name} turns the built-in checkpoints off "
                    "(default_checkpoints = false): only its own rules ask before "
                    "irreversible steps.",
                    "warning",
                )
            )
        self.context.ledger.start()
        try:
            result = await self._drive()
        except RunEnded as ended:
            result = self.context.ledger.result(
                ended.reason, success=ended.success, message=ended.message, ending=ended.ending
            )
        except SubTerminatorError as error:
            result = self.context.ledger.result(reason_for(error), error=str(error))
        except asyncio.CancelledError:
            # Interrupted: the journal still learns how the run ended, then cancellation goes on.
            interrupted = self.context.ledger.result(
                "interrupted", message="Interrupted by the person."
            )
            self._finish(interrupted)
            raise
        if self.context.outcomes.needs_a_last_look(result.reason, result.success):
            result = await self._last_look(result)
        result = await self._guard_miss(result)
        result = self._honest(result)
        self._finish(result)
        return result

    async def _last_look(self, result: TaskResult) -> TaskResult:
        """A commit went out and nothing verified it yet: the account page where the run
        started, read again, proves it or not (``subterminator check``'s page)."""
        try:
            opened = await self.context.browser.call(
                "browser_navigate", {"url": self.context.options.start_url}
            )
        except SubTerminatorError:
            return result
        page = self.context.scrubber.snapshot(opened.snapshot)
        self.context.ledger.saw(page)
        self.context.reporter.emit(PageSeen(page, self.context.guard.url_allowed(page.url)))
        verification = await self.context.outcomes.on_account_page(page)
        if not verification.verified:
            return result
        return self.context.ledger.result("completed", success=True, message=verification.message)

    async def _guard_miss(self, result: TaskResult) -> TaskResult:
        """A request that went out with nobody asked, confirmed by the service, ended the
        subscription: the run says cancelled (never "not cancelled") and keeps a guard miss."""
        outcomes = self.context.outcomes
        if outcomes.missed is None and result.reason in _MAY_HIDE_A_MISS and not result.success:
            await self._look_for_a_miss()
        missed = outcomes.missed
        if missed is None or (result.success and result.reason != "cancelled_unasked"):
            return result
        self.context.ledger.guard_missed(missed.detail)
        return self.context.ledger.result(
            "cancelled_unasked", success=True, message=missed.message, guard_miss=missed.request
        )

    async def _look_for_a_miss(self) -> None:
        """The page now, then the account page read again: does either prove a guard miss?"""
        outcomes = self.context.outcomes
        if not outcomes.went_unasked():
            return
        try:
            page = self.context.scrubber.snapshot(await self.context.browser.snapshot())
            if await outcomes.guard_miss(page) is not None:
                return
            opened = await self.context.browser.call(
                "browser_navigate", {"url": self.context.options.start_url}
            )
        except SubTerminatorError:
            return
        page = self.context.scrubber.snapshot(opened.snapshot)
        self.context.ledger.saw(page)
        self.context.reporter.emit(PageSeen(page, self.context.guard.url_allowed(page.url)))
        await outcomes.guard_miss_on_account_page(page)

    def _honest(self, result: TaskResult) -> TaskResult:
        """A run that ends unverified after an approved step went out says so, never
        "not cancelled": sent, not verified, with the page to check."""
        reason = self.context.outcomes.honest_reason(result.reason, result.success)
        if reason == result.reason and self.context.outcomes.approved_only_navigations():
            # What the person approved only opened pages: say so, so "not cancelled" is
            # read as what it is, with nothing to check at the service.
            said = result.message or result.error or ""
            note = (
                "Nothing irreversible was sent: the steps you approved only opened pages, "
                "and the service was sent nothing that changes the subscription."
            )
            return dataclasses.replace(result, message=f"{said} {note}".strip())
        if reason == result.reason:
            return result
        detail = result.message or result.error or result.reason
        message = sent_not_verified_message(
            self.context.options.start_url, f"{result.reason}: {detail}"
        )
        return self.context.ledger.result(reason, message=message)

    def _finish(self, result: TaskResult) -> None:
        """The open turn and the run get their ends; a journal that cannot be written is said."""
        try:
            outcome = "rejected" if result.reason == "human_rejected" else result.reason
            self.context.ledger.close_open_turn(outcome, result.message or result.error or "")
            self.context.ledger.finish(result)
        except JournalWriteError as error:
            self.context.reporter.emit(Notice(str(error), "warning"))
        self.context.reporter.emit(RunFinished(result))

    async def _drive(self) -> TaskResult:
        first = await self.context.browser.call(
            "browser_navigate", {"url": self.context.options.start_url}
        )
        snapshot, _note = await self.intake.settle(
            first.snapshot, allow_handoff=not self.context.options.dry_run
        )
        await self.context.browser.keep_sign_in()
        if self.context.options.verify_first:
            # A resumed run: its interrupted predecessor may have sent the last step.
            verification = verify_completion(self.context.service, snapshot)
            if verification.verified:
                return self.context.ledger.result(
                    "completed",
                    success=True,
                    message=verification.message,
                    verified_by=verification.verified_by,
                )
        elif not self.context.options.dry_run:
            already = await self.context.outcomes.already_cancelled(snapshot)
            if already is not None:
                return self.context.ledger.result("already_cancelled", message=already.message)
        self.intake.end_without_a_click(snapshot)
        self.context.pilot.begin(snapshot)
        no_action = 0
        while self.context.ledger.turns < self.context.options.max_turns:
            await self.context.pause.until_released()
            self.context.ledger.turns += 1
            turn = self.context.ledger.turns
            started = time.perf_counter()
            mcp_before, human_before = self.context.browser.mcp_seconds, self.context.gate.seconds
            proposal = await self.context.pilot.next_turn(snapshot)
            self.context.ledger.count(proposal)
            if proposal.stop is not None:
                raise RunEnded("playbook_diverged", proposal.stop)
            if proposal.call is None:
                no_action += 1
                self.context.reporter.emit(NoAction(turn, proposal.text, no_action))
                if no_action >= NO_ACTION_LIMIT:
                    raise RunEnded(
                        "llm_no_action", "The model answered three times without a tool call."
                    )
                self.context.pilot.nudge(NUDGE)
                continue
            no_action = 0
            call = proposal.call
            target = self.context.guard.target_of(call, snapshot)
            self.context.reporter.emit(
                TurnStarted(turn, call, target, proposal.text, self.context.pilot.name)
            )
            if self.context.options.dry_run:
                return self.context.ledger.result("dry_run", message=describe_action(call, target))
            self.context.calls.intent(turn, call, snapshot)
            step = await self.steps.execute(call, snapshot)
            latency = time.perf_counter() - started
            if step.snapshot is not None:
                snapshot = step.snapshot
            self.context.ledger.outcome(step.outcome, step.message, snapshot, latency, proposal)
            self.context.reporter.emit(
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
                    mcp_seconds=self.context.browser.mcp_seconds - mcp_before,
                    human_seconds=self.context.gate.seconds - human_before,
                )
            )
            if step.outcome == "done" or step.verified:
                return self.context.ledger.result(
                    "completed" if step.verified else "task_failed",
                    success=step.verified,
                    message=step.message,
                    verified_by=step.verified_by,
                )
        raise RunEnded(
            "max_turns_exceeded", f"No result after {self.context.options.max_turns} turns."
        )
