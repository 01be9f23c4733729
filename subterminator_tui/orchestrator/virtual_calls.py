"""The calls the loop answers itself: complete_task, show_region, request_human_approval."""

from __future__ import annotations

from typing import Any

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.orchestrator.events import Outcome
from subterminator_tui.orchestrator.run_context import RunContext
from subterminator_tui.orchestrator.turns import (
    UNVERIFIED_CLAIM_LIMIT,
    RunEnded,
    TurnOutcome,
    unverified_message,
)
from subterminator_tui.pilots.regions import region_text


class VirtualCalls:
    """The pilot's calls that never reach the browser."""

    def __init__(self, run: RunContext) -> None:
        self.run = run

    async def complete(self, call: ToolCall) -> TurnOutcome:
        status = call.arguments.get("status")
        reason = str(call.arguments.get("reason", ""))
        if status == "failed":
            # A pilot giving up is believed: a failure claim cannot cancel anything.
            return TurnOutcome("done", reason, verified=False)
        page = self.run.scrubber.snapshot(await self.run.browser.snapshot())
        self.run.ledger.saw(page)
        verification = await self.run.outcomes.verify(page)
        if verification.verified:
            return TurnOutcome.verified_on(page, verification)
        missed = await self.run.outcomes.guard_miss(page)
        if missed is not None:
            # Cancelled, but by a request nobody was asked about: said as it is, never
            # as "not verified" (the loop journals the miss).
            raise RunEnded("cancelled_unasked", missed.message, success=True)
        self.run.unverified_claims += 1
        if self.run.unverified_claims >= UNVERIFIED_CLAIM_LIMIT:
            raise RunEnded("verification_failed", verification.message)
        message = unverified_message(page.url)
        return self.run.tell(call, "unverified", {"error": True, "message": message}, page)

    def show_region(self, call: ToolCall, snapshot: NormalizedSnapshot) -> TurnOutcome:
        """What a ref of the page the pilot was last sent holds, in full; nothing is sent."""
        try:
            region = region_text(snapshot, str(call.arguments.get("target", "")))
        except ValueError as unknown:
            return self.run.tell(call, "error", {"error": True, "message": str(unknown)}, None)
        return self.run.tell(call, "ok", {"region": region}, None)

    async def model_asks(self, call: ToolCall, snapshot: NormalizedSnapshot) -> TurnOutcome:
        why = str(call.arguments.get("reason", ""))
        action = str(call.arguments.get("action", ""))
        decision = await self.run.ask("model_request", why, action, snapshot, None)
        if decision.verdict == "reject" and not decision.answered:
            raise RunEnded("no_answer", f"{action} was not run")
        if decision.verdict == "reject":
            raise RunEnded("human_rejected", f"You rejected: {action}")
        status: dict[str, Any] = {"approved": decision.verdict == "approve"}
        if decision.verdict == "guidance":
            status["human_guidance"] = decision.guidance
        outcome: Outcome = "ok" if decision.verdict == "approve" else "guidance"
        return self.run.tell(call, outcome, status, snapshot)
