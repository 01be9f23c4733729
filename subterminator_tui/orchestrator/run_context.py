"""What every part of the loop shares: the run's collaborators, how the pilot hears
how its call went, and how the person is asked.

The loop is composed of parts that each hold this one context (the page intake, the
calls the loop answers itself, the call step), rather than a class stacked in layers.
"""

from __future__ import annotations

from typing import Any

from subterminator_tui.browser.calls import ToolCall
from subterminator_tui.browser.snapshot import NormalizedSnapshot
from subterminator_tui.errors import MCPToolError
from subterminator_tui.guarded.browser import Browser
from subterminator_tui.guarded.gates import (
    CheckpointKind,
    CheckpointRequest,
    Decision,
    HumanGate,
    TimedGate,
)
from subterminator_tui.guarded.guard import Guard
from subterminator_tui.guarded.outcome import OutcomeJudge
from subterminator_tui.guarded.pipeline import CallPipeline
from subterminator_tui.guarded.request_evidence import LoggedAnswers
from subterminator_tui.guarded.request_gate import gate_for_run
from subterminator_tui.guarded.secrets import SecretScrubber, kept_screenshot
from subterminator_tui.guarded.window_typing import AtHandOffs, WindowTyping
from subterminator_tui.journal.request_log import RequestLog
from subterminator_tui.journal.store import Journal
from subterminator_tui.orchestrator.events import Outcome, Reporter
from subterminator_tui.orchestrator.ledger import RunLedger
from subterminator_tui.orchestrator.pause import pause_of
from subterminator_tui.orchestrator.turns import RunOptions, TurnOutcome
from subterminator_tui.pilots.base import Pilot
from subterminator_tui.rules import ServiceConfig


class RunContext:
    """The collaborators of one run, and the two ways a turn reaches someone."""

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
        # What the person types in the browser window at a hand-off is scrubbed too.
        self.window_typing = WindowTyping((self.scrubber,), AtHandOffs(), browser.typing)
        # The backstop: every request the browser sends is judged again where it happens.
        # Requests are logged only where they are watched (a real gateway on a local browser):
        # elsewhere what a step sent is unknown, never "nothing".
        watch = browser.requests
        request_log = RequestLog(journal) if journal is not None and watch is not None else None
        # The service's answers to the approved steps' requests: evidence, or a veto.
        answers = (
            LoggedAnswers(
                request_log, lambda: self.ledger.run_id, lambda: bool(watch and watch.attached)
            )
            if request_log is not None
            else None
        )
        self.outcomes = OutcomeJudge(
            service,
            browser,
            self.scrubber.text,
            answers,
            unasked=answers.unasked if answers is not None else None,
        )
        # The backstop: every request the browser sends is judged again where it happens.
        self.requests = gate_for_run(
            browser,
            guard,
            self.ledger,
            self.gate,
            self.scrubber.text,
            request_log=request_log,
            run_id=lambda: self.ledger.run_id,
            judge=self.outcomes,
        )
        self.calls = CallPipeline(
            guard, self.ledger, self.scrubber.snapshot, self.outcomes, self.requests
        )
        self.unverified_claims = 0
        #: The screenshot the person was last asked on (a receipt shows it).
        self.screenshot: str | None = None

    def tell_error(
        self, call: ToolCall, error: MCPToolError, seen: NormalizedSnapshot
    ) -> TurnOutcome:
        """A failed call: the pilot hears the error with the page it carries (else the one it
        saw), scrubbed like every page that reaches a pilot."""
        page = error.snapshot if isinstance(error.snapshot, NormalizedSnapshot) else seen
        failed = {"error": True, "message": str(error)}
        return self.tell(call, "error", failed, self.scrubber.snapshot(page))

    def tell(
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

    async def ask(
        self,
        kind: CheckpointKind,
        why: str,
        action: str,
        snapshot: NormalizedSnapshot,
        call: ToolCall | None,
        *,
        spends_money: bool = False,
        commit: bool = False,
    ) -> Decision:
        """Ask the person about ``action`` on ``snapshot`` (with a screenshot when one can be
        taken) through the run's gate; their decision. ``spends_money`` and ``commit`` say
        what the rules found the step does."""
        # The person sees a screenshot of exactly what they approve; while a
        # native dialog is open the browser cannot take one, and the dialog is the page.
        try:
            screenshot = await kept_screenshot(self.browser, self.scrubber)
        except MCPToolError:
            screenshot = None
        self.screenshot = screenshot
        request = CheckpointRequest(
            kind=kind,
            why=why,
            action=action,
            url=snapshot.url,
            screenshot_path=screenshot,
            call=call,
            target=self.guard.target_of(call, snapshot) if call else None,
            takes_guidance=self.pilot.model_name is not None,
            spends_money=spends_money,
            commit=commit,
        )
        return await self.gate.approve(request)
