"""One proposed browser call carried out: prepared, asked about, sent and settled.

An approved irreversible step is journaled before and after it goes out; when the
browser stops answering during one, the page (never a second try) says what happened.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.errors import (
    MCPConnectionError,
    MCPToolError,
    SubTerminatorError,
)
from subterminator_tui.guarded.guard import describe_action
from subterminator_tui.guarded.pipeline import Failed, Held, Lost, Refused, Unsent, Verdict
from subterminator_tui.guarded.secrets import kept_screenshot
from subterminator_tui.orchestrator.events import PageSeen
from subterminator_tui.orchestrator.page_arrival import PageIntake
from subterminator_tui.orchestrator.run_context import RunContext
from subterminator_tui.orchestrator.turns import RunEnded, TurnOutcome
from subterminator_tui.orchestrator.virtual_calls import VirtualCalls
from subterminator_tui.pilots.virtual_tools import (
    COMPLETE_TASK,
    REQUEST_HUMAN_APPROVAL,
    SHOW_REGION,
)

#: Why the person is handed a page no rule knew as a sign-in.
PASSWORD_HANDOFF = (
    "This page asks for a password, and only you type one. Fill in the fields here (nothing "
    "you type is shown, logged or sent to the model) or sign in in the browser window."
)


class CallStep:
    """Turns a proposed call into its outcome, through the guarded-call pipeline."""

    def __init__(self, run: RunContext, intake: PageIntake, virtual: VirtualCalls) -> None:
        self.run = run
        self.intake = intake
        self.virtual = virtual

    async def execute(self, call: ToolCall, snapshot: NormalizedSnapshot) -> TurnOutcome:
        """Carry out ``call`` proposed on ``snapshot``: its outcome for the loop."""
        if call.name == COMPLETE_TASK:
            return await self.virtual.complete(call)
        if call.name == REQUEST_HUMAN_APPROVAL:
            return await self.virtual.model_asks(call, snapshot)
        if call.name == SHOW_REGION:
            return self.virtual.show_region(call, snapshot)
        try:
            prepared = await self.run.calls.begin(
                self.run.ledger.turns, call, snapshot, self.run.browser
            )
        except MCPToolError as unread:
            # The page could not be read before dispatch: nothing was sent; the pilot hears why.
            return self.run.tell_error(call, unread, snapshot)
        if isinstance(prepared, Refused):
            return await self._refused(call, prepared)
        verdict: Verdict | None = None
        if isinstance(prepared, Held):
            # The person may take a while, or the run may die right after: keep the sign-in.
            await self.run.browser.keep_sign_in()
            why, action = prepared.checkpoint.why, prepared.action
            checkpoint = prepared.checkpoint
            decision = await self.run.ask(
                "rule",
                why,
                action,
                snapshot,
                call,
                spends_money=checkpoint.spends_money,
                commit=checkpoint.commit,
            )
            verdict = decision.verdict
            if verdict != "approve":
                # Journaled by the pipeline; nothing goes out.
                self.run.calls.decline(prepared, verdict)
                if verdict == "reject" and not decision.answered:
                    raise RunEnded("no_answer", f"{action} was not run")
                if verdict == "reject":
                    raise RunEnded("human_rejected", f"You rejected: {action}")
                guided = {
                    "error": True,
                    "message": "Not done: the person sent guidance instead.",
                    "human_guidance": decision.guidance,
                }
                return self.run.tell(call, "guidance", guided, snapshot)
            self.run.ledger.step_before(prepared.step, self.run.screenshot)
        # While the person is asked whether to stop, nothing is sent to the page.
        await self.run.pause.until_released()
        sent = await self.run.calls.finish(prepared, self.run.browser, verdict)
        # An approved step, or the answer to the dialog it opened (the same step, going on).
        step = prepared.step
        approved_step = isinstance(prepared, Held) or prepared.finishes is not None
        if isinstance(sent, Refused):
            # The approved target changed while the person was asked: nothing was sent.
            return await self._refused(call, sent)
        if isinstance(sent, Unsent):
            if isinstance(sent.error, MCPConnectionError):
                raise sent.error
            return self.run.tell_error(call, sent.error, snapshot)
        if isinstance(sent, Lost):
            if not approved_step:
                if isinstance(sent.error, MCPConnectionError):
                    raise sent.error
                return self.run.tell_error(call, sent.error, snapshot)
            # An approved irreversible step may have run: look, never repeat it.
            return await self._after_lost_answer(call, snapshot, str(sent.error), step)
        if isinstance(sent, Failed):
            return self.run.tell_error(call, sent.error, snapshot)
        if step is not None:
            await self._after_step(step)
        page, note = await self.intake.settle(sent.result.snapshot)
        if approved_step:
            # The approved step's page proves the cancellation on evidence: the run is done.
            # The pilot's own claim would add nothing the rules have not checked; asking
            # for it costs a model call and offers the page's "rejoin" one more turn.
            verification = await self.run.outcomes.verify(page)
            if verification.verified:
                # The step itself went as any other ("ok": a recording replays it); its
                # verification is what ends the run.
                ended = TurnOutcome.verified_on(page, verification)
                return dataclasses.replace(ended, outcome="ok")
        self.intake.end_without_a_click(page)
        status: dict[str, Any] = {"error": False}
        if note:
            status["note"] = note
        return self.run.tell(call, "ok", status, page)

    async def _refused(self, call: ToolCall, refused: Refused) -> TurnOutcome:
        """Tell the pilot why nothing was sent; a password's page goes to the person."""
        if refused.fresh:
            allowed = self.run.guard.url_allowed(refused.page.url)
            self.run.reporter.emit(PageSeen(refused.page, allowed))
        told: dict[str, Any] = {"error": True, "message": refused.message}
        page = refused.page
        if refused.for_the_person and not self.run.options.dry_run:
            # No rule knew this page for a sign-in, but its password field says so.
            # The page after it arrives as any other: contained, learned, journaled.
            notes: list[str] = []
            handed = await self.intake.hand_off(page, notes, called_for=("login", PASSWORD_HANDOFF))
            page, note = await self.intake.settle(handed)
            told["note"] = " ".join([*notes, note]).strip()
        return self.run.tell(call, "refused", told, page)

    async def _after_step(self, step: int) -> None:
        """Keep what the page showed after an approved step: a receipt's evidence."""
        try:
            shot = await kept_screenshot(self.run.browser, self.run.scrubber)
            text = await self.run.outcomes.seen()
        except SubTerminatorError:
            # Evidence for later only: the run goes on, and its next call meets any real loss.
            shot, text = None, None
        self.run.ledger.step_after(step, shot, text)

    async def _after_lost_answer(
        self, call: ToolCall, seen: NormalizedSnapshot, why: str, step: int | None
    ) -> TurnOutcome:
        """The browser stopped answering during an approved irreversible step: what happened?

        The page decides, by the service's success and failure rules, on the page the
        browser reopens and then on the service's start page. Neither tells: the run
        ends as ``outcome_unknown`` and the pilot is never asked to try again.
        """
        action = describe_action(call, self.run.guard.target_of(call, seen))
        for url in (None, self.run.options.start_url):
            try:
                if url is not None:
                    await self.run.browser.call("browser_navigate", {"url": url})
                page = self.run.scrubber.snapshot(await self.run.browser.snapshot())
            except SubTerminatorError:
                continue
            self.run.ledger.saw(page)
            self.run.reporter.emit(PageSeen(page, self.run.guard.url_allowed(page.url)))
            verification = await self.run.outcomes.verify(page)
            if verification.verified:
                self.run.calls.settle(step, "done")
                return TurnOutcome.verified_on(page, verification)
            if verification.failure_rule is not None:
                self.run.calls.settle(step, "failed")
                raise RunEnded("task_failed", verification.message)
        raise RunEnded(
            "outcome_unknown",
            f"The browser stopped answering right after you approved: {action} ({why}). The "
            f"cancellation may have gone through: check {self.run.options.start_url} yourself "
            "before running again; SubTerminator did not repeat the step.",
        )
